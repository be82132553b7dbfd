// The fleet harness of test/agent/fleet.test.ts and bench/fleet.ts: agent worker processes
// (test/helpers/fleet-worker.ts, forked with tsx and driven over IPC) sharing one real Redis, and
// the loopback sites they call: limitedSite, a limiter that hands out Retry-After windows one after
// another, and quotaSite, express-rate-limit announcing a quota. Every time here is on the host
// clock (hostNow), sub-ms and comparable between the processes of one machine.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import type { Command } from './fleet-worker.js';
import { serve, type TestServer } from './server.js';

export type { BatchReport, CallsReport, Command, HammerReport, LoopReport, RequestRecord, Status, StoreKind } from './fleet-worker.js';

const WORKER = fileURLToPath(new URL('./fleet-worker.ts', import.meta.url));

/** This host's clock with sub-ms resolution, comparable between processes (the workers read the same). */
export const hostNow = (): number => performance.timeOrigin + performance.now();

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `check` holds, polling every 50 ms; rejects after `ms` naming `what`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, ms = 8000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await pause(50);
  }
}

/** Calls per window: a window opens with the first call after the last one closed, and lasts `windowMs`. */
export function perWindow(arrivals: readonly number[], windowMs: number): { opened: number; calls: number }[] {
  const windows: { opened: number; calls: number }[] = [];
  for (const t of arrivals) {
    const last = windows.at(-1);
    if (last && t < last.opened + windowMs) last.calls += 1;
    else windows.push({ opened: t, calls: 1 });
  }
  return windows;
}

// ---------------------------------------------------------------------------------------------
// Worker processes

export interface Worker<C extends object = Command> {
  /** The worker's process id. */
  readonly pid: number;
  /** Sends one command and resolves with the worker's answer (see Command in fleet-worker.ts). */
  readonly send: (command: C) => Promise<any>;
  /** Disconnects; the worker exits by itself. Resolves once it has. */
  readonly close: () => Promise<void>;
  /** Kills the worker at once (SIGKILL), as a crash would, mid-call or not; resolves once it is gone. Commands in flight reject. */
  readonly kill: () => Promise<void>;
}

export interface WorkerOptions {
  /** The probe lease, in ms, of the worker's 'redis' and 'memory' stores (env PROBE_LEASE_MS); the stores' default when unset. */
  readonly probeLeaseMs?: number;
  /** More environment for the worker. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Forks one worker on the Redis at `redisUrl`, its Redis stores under `prefix`; resolves once it is connected and ready. */
export function startWorker(redisUrl: string, prefix: string, options: WorkerOptions = {}): Promise<Worker> {
  return forkWorker<Command>(WORKER, {
    REDIS_URL: redisUrl,
    KEY_PREFIX: prefix,
    ...(options.probeLeaseMs === undefined ? {} : { PROBE_LEASE_MS: String(options.probeLeaseMs) }),
    ...options.env,
  });
}

/**
 * Forks `file` with tsx (`node --import tsx`) and `env` on top of this process's, driven over IPC:
 * it says { ready: true } once ready, and answers each message { id, ...command } with { id,
 * result } or { id, error }. `name` names it in errors. Resolves once it is ready.
 */
export async function forkWorker<C extends object>(file: string, env: Readonly<Record<string, string>>, name = 'worker'): Promise<Worker<C>> {
  const child: ChildProcess = fork(file, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let next = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before it was ready`)));
    child.on('message', (message: { ready?: true; id?: number; result?: unknown; error?: string }) => {
      if (message.ready) return resolve();
      const pending = waiting.get(message.id!);
      waiting.delete(message.id!);
      if (message.error !== undefined) pending?.reject(new Error(message.error));
      else pending?.resolve(message.result);
    });
  });
  child.once('exit', (code, signal) => {
    for (const { reject } of waiting.values()) reject(new Error(`${name} exited with ${signal ?? code}`));
    waiting.clear();
  });
  return {
    pid: child.pid!,
    send: (command) =>
      new Promise((resolve, reject) => {
        if (!child.connected) return reject(new Error(`${name} is gone`));
        const id = next++;
        waiting.set(id, { resolve, reject });
        child.send({ id, ...command });
      }),
    close: async () => {
      if (child.connected) child.disconnect();
      await exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** `count` workers on one Redis and prefix, started together. */
export function startFleet(count: number, redisUrl: string, prefix: string, options: WorkerOptions = {}): Promise<Worker[]> {
  return Promise.all(Array.from({ length: count }, () => startWorker(redisUrl, prefix, options)));
}

// ---------------------------------------------------------------------------------------------
// limitedSite: Retry-After windows, one after another

/** One request a site received. */
export interface Arrival {
  /** When it arrived, host clock. */
  readonly at: number;
  /** The window it fell in (it opened it, or came while it was open), or null: it came after the last window closed. */
  readonly window: number | null;
  /** The answer decided at arrival: 429 inside a window, 200 after the last. */
  readonly status: number;
  /** It was held by hangNext. */
  readonly hung: boolean;
  /** When the answer was sent, host clock; undefined while unanswered (a hung request never answered stays so). */
  answered?: number;
}

/** A window of limitedSite: opened by a call when none was open, closing windowMs later. */
export interface SiteWindow {
  readonly opened: number;
  readonly closes: number;
  calls: number;
}

export interface LimitedSite extends TestServer {
  readonly windowMs: number;
  /** How many windows it opens before answering 200. */
  readonly windows: number;
  /** Every request, in order of arrival. */
  readonly arrivals: readonly Arrival[];
  /** The windows opened so far. */
  readonly opened: readonly SiteWindow[];
  /** Calls per window opened so far. */
  callsPerWindow(): number[];
  /** Windows that have closed. */
  closedWindows(): number;
  /** Every window has been opened and closed, and a 200 has been answered. */
  finished(): boolean;
  /** Holds the next request: never answers it (the default; closing the site drops it), or answers after `ms`. */
  hangNext(ms?: number): void;
  /** Requests held by hangNext and not answered yet. */
  held(): number;
}

/**
 * A loopback site that rate-limits the way a real limiter does: a call when no window is open opens
 * one (until `windows` have been opened) and gets 429 with Retry-After = the whole seconds left in
 * it, rounded up; calls inside an open window get 429 with the seconds left; once the last window
 * has closed it answers 200. The answer (window, status, Retry-After) is decided when a request
 * arrives, as a limiter in front of a slow app decides it, also for a request hangNext holds.
 * `latencyMs` delays every answer by that much (a site across a network rather than on loopback),
 * which widens the moment in which waiting workers can call before the first answer is known.
 */
export async function limitedSite({ windowMs, windows, latencyMs = 0 }: { windowMs: number; windows: number; latencyMs?: number }): Promise<LimitedSite> {
  const arrivals: Arrival[] = [];
  const opened: SiteWindow[] = [];
  const hangs: (number | null)[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let held = 0;
  const server = await serve((_req, res) => {
    const at = hostNow();
    let current = opened.at(-1);
    if ((!current || at >= current.closes) && opened.length < windows) {
      current = { opened: at, closes: at + windowMs, calls: 0 };
      opened.push(current);
    }
    const inside = current !== undefined && at < current.closes;
    if (inside) current!.calls += 1;
    const hang = hangs.length > 0 ? hangs.shift()! : undefined;
    const arrival: Arrival = { at, window: inside ? opened.length - 1 : null, status: inside ? 429 : 200, hung: hang !== undefined };
    arrivals.push(arrival);
    const headers: Record<string, string> = { 'content-type': 'text/plain' };
    if (inside) headers['retry-after'] = String(Math.ceil((current!.closes - at) / 1000));
    const answer = (): void => {
      arrival.answered = hostNow();
      res.writeHead(arrival.status, headers).end(inside ? 'Too many requests' : 'ok');
    };
    if (hang === null) return void (held += 1);
    if (hang !== undefined) held += 1;
    const delay = hang ?? latencyMs;
    if (delay <= 0) return answer();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (hang !== undefined) held -= 1;
      answer();
    }, delay);
    timers.add(timer);
  });
  const now = hostNow;
  const closeServer = server.close;
  return Object.assign(server, {
    windowMs,
    windows,
    arrivals,
    opened,
    callsPerWindow: () => opened.map((w) => w.calls),
    closedWindows: () => opened.filter((w) => w.closes <= now()).length,
    finished: () => opened.length === windows && opened.at(-1)!.closes <= now() && arrivals.some((a) => a.status === 200 && a.answered !== undefined),
    hangNext: (ms?: number) => void hangs.push(ms ?? null),
    held: () => held,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      await closeServer();
    },
  });
}

// ---------------------------------------------------------------------------------------------
// quotaSite: express-rate-limit announcing its quota

/** One request quotaSite received. */
export interface QuotaArrival {
  /** When it arrived, host clock. */
  readonly at: number;
  /** The status it was answered with; 0 until answered. */
  status: number;
  /** The ms the site took from arrival to the end of its answer; NaN until answered. */
  ms: number;
}

export interface QuotaSite extends TestServer {
  readonly limit: number;
  readonly windowMs: number;
  readonly arrivals: readonly QuotaArrival[];
  /** 200s sent. */
  ok(): number;
  /** 429s sent. */
  limited(): number;
}

/**
 * A real rate limiter: express-rate-limit (v8, its memory store) on an Express app, a fixed window
 * of `windowMs` per client IP (every loopback worker is one client) that starts with the first
 * request after the last window ended, `limit` requests in it. It announces the quota on every
 * answer, 200 or 429, in both dialects: `RateLimit: limit=10, remaining=9, reset=5` and
 * `RateLimit-Policy: 10;w=5` (standardHeaders 'draft-7'; reset in delta seconds, rounded up) and
 * `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (legacyHeaders; the reset in
 * epoch seconds, rounded up, with a Date header of its own); its 429 adds `Retry-After`, the delta
 * seconds to the reset rounded up. The 200 that spends the last request says remaining=0 and has
 * no Retry-After.
 */
export async function quotaSite({ limit = 10, windowMs = 5000 }: { limit?: number; windowMs?: number } = {}): Promise<QuotaSite> {
  const arrivals: QuotaArrival[] = [];
  const app = express();
  app.use((_req, res, next) => {
    const arrival: QuotaArrival = { at: hostNow(), status: 0, ms: Number.NaN };
    arrivals.push(arrival);
    res.once('finish', () => {
      arrival.status = res.statusCode;
      arrival.ms = hostNow() - arrival.at;
    });
    next();
  });
  app.use(rateLimit({ windowMs, limit, standardHeaders: 'draft-7', legacyHeaders: true }));
  app.use((_req, res) => void res.type('text/plain').send('ok'));
  const server = await serve(app);
  return Object.assign(server, {
    limit,
    windowMs,
    arrivals,
    ok: () => arrivals.filter((a) => a.status === 200).length,
    limited: () => arrivals.filter((a) => a.status === 429).length,
  });
}
