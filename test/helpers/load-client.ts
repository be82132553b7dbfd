// The client side of the load and fault tests (test/load/*.test.ts): the server children, the
// caller profiles (agents and browsers), the request mix, and the check of every response against
// what it must be: success bodies by hash, agent errors by the validators and their code, browser
// pages byte for byte against the bare app's own.

import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { AGENT, ANY, BROWSER, PROBLEM, SIGNED } from './agents.js';
import { ADAPTERS, AGENT_ERROR, JSON_BODY, LIMIT, SECRET, STREAM_SIZES, streamBody, type Adapter, type Ready, type ServerStats, type ToServer } from './load-shared.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER_ENTRY = fileURLToPath(new URL('./load-server.ts', import.meta.url));

/** A server child: one adapter's wrapped and bare apps. */
export interface ServerChild {
  readonly adapter: Adapter;
  /** Origins, http://127.0.0.1:port. */
  readonly wrapped: string;
  readonly bare: string;
  readonly pid: number;
  readonly stats: (gc?: boolean) => Promise<ServerStats>;
  /** How the child ended, if it did: a crash shows here. */
  readonly exit: () => { code: number | null; signal: string | null } | null;
  /** The last 16 KB of its stderr (Express and @hono/node-server log what they catch there). */
  readonly stderr: () => string;
  readonly close: () => Promise<void>;
}

/** Starts one adapter's server child: `node --expose-gc --import tsx test/helpers/load-server.ts <adapter>`, in production mode. */
export function spawnServer(adapter: Adapter): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', SERVER_ENTRY, adapter], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    // Production, as a site runs: Express's error pages then carry no stack (which would differ between
    // the wrapped and the bare app by the adapter's frames), only the status text.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (text: string) => void (stderr = (stderr + text).slice(-16_384)));
  let exited: { code: number | null; signal: string | null } | null = null;
  let next = 1;
  const pending = new Map<number, (stats: ServerStats) => void>();
  child.on('exit', (code, signal) => {
    exited = { code, signal };
    for (const resolve of pending.values()) resolve(undefined as never);
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code, signal) => reject(new Error(`the ${adapter} server exited before it listened (${code ?? signal}): ${stderr}`)));
    child.on('message', (message: Ready | { id: number; stats: ServerStats }) => {
      if ('stats' in message) return void pending.get(message.id)?.(message.stats);
      resolve({
        adapter,
        wrapped: `http://127.0.0.1:${message.wrapped}`,
        bare: `http://127.0.0.1:${message.bare}`,
        pid: message.pid,
        exit: () => exited,
        stderr: () => stderr,
        stats: (gc = false) =>
          new Promise((done, fail) => {
            if (exited) return fail(new Error(`the ${adapter} server has exited (${exited.code ?? exited.signal})`));
            const id = next++;
            pending.set(id, (stats) => {
              pending.delete(id);
              if (stats) done(stats);
              else fail(new Error(`the ${adapter} server exited while asked for its stats`));
            });
            child.send({ id, cmd: 'stats', gc } satisfies ToServer);
          }),
        close: () =>
          new Promise((done) => {
            if (exited) return done();
            child.once('exit', () => done());
            child.send({ id: next++, cmd: 'exit' } satisfies ToServer);
          }),
      });
    });
  });
}

// ---- callers ----

/** The callers: browsers (and a bare Accept of any type, which is not an agent) and agents of each kind. */
export const PROFILES = {
  browser: { agent: false, format: 'page', headers: BROWSER },
  any: { agent: false, format: 'page', headers: ANY },
  json: { agent: true, format: 'envelope', headers: { accept: 'application/json' } },
  problem: { agent: true, format: 'problem', headers: PROBLEM },
  markdown: { agent: true, format: 'envelope', headers: AGENT },
  signed: { agent: true, format: 'envelope', headers: SIGNED },
} as const satisfies Record<string, { agent: boolean; format: 'page' | 'envelope' | 'problem'; headers: Record<string, string> }>;
export type Profile = keyof typeof PROFILES;
const PROFILE_WEIGHTS: Record<Profile, number> = { browser: 35, any: 15, json: 15, problem: 15, markdown: 10, signed: 10 };

/** The routes of the mix, and their share of it. */
export const ROUTES = ['stream', 'json', 'missing', 'boom', 'agent-error', 'limited'] as const;
export type Route = (typeof ROUTES)[number];
const ROUTE_WEIGHTS: Record<Route, number> = { stream: 25, json: 15, missing: 15, boom: 15, 'agent-error': 10, limited: 20 };
const PATHS: Record<Exclude<Route, 'stream'>, string> = { json: '/ok/json', missing: '/missing', boom: '/boom', 'agent-error': '/agent-error', limited: '/limited' };

/** What an agent must get for each error route: the code and status. */
const AGENT_CODES: Record<Exclude<Route, 'stream' | 'json' | 'limited'>, { code: string; status: number }> = {
  missing: { code: 'not_found', status: 404 },
  boom: { code: 'internal', status: 500 },
  'agent-error': { code: AGENT_ERROR.code, status: 503 },
};

/** One request of a plan. */
export interface Planned {
  readonly adapter: Adapter;
  readonly profile: Profile;
  readonly route: Route;
  readonly path: string;
  /** The X-Client key of a /limited request. */
  readonly key?: string;
  /** The seed of a /ok/stream request. */
  readonly seed?: number;
}

/** A small seeded PRNG (mulberry32), so that a plan is the same on every run. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<K extends string>(weights: Record<K, number>, r: number): K {
  const entries = Object.entries(weights) as [K, number][];
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  let at = r * total;
  for (const [key, weight] of entries) if ((at -= weight) < 0) return key;
  return entries[entries.length - 1]![0];
}

/**
 * `count` requests, a quarter to each adapter in turn, with profile and route drawn by weight. The
 * /limited requests of each adapter share keys (named after `phase`), about six requests a key, so
 * that about half of them are over the limit, agents and browsers mixed on the same key.
 */
export function plan(count: number, phase: string, seed: number): Planned[] {
  const next = random(seed);
  const drafts = Array.from({ length: count }, (_, i) => ({
    adapter: ADAPTERS[i % ADAPTERS.length]!,
    profile: pick(PROFILE_WEIGHTS, next()),
    route: pick(ROUTE_WEIGHTS, next()),
    seed: Math.floor(next() * STREAM_SIZES.length),
  }));
  const limitedCount = new Map<Adapter, number>();
  for (const d of drafts) if (d.route === 'limited') limitedCount.set(d.adapter, (limitedCount.get(d.adapter) ?? 0) + 1);
  const seen = new Map<Adapter, number>();
  return drafts.map((d): Planned => {
    if (d.route === 'stream') return { adapter: d.adapter, profile: d.profile, route: d.route, path: `/ok/stream?seed=${d.seed}`, seed: d.seed };
    if (d.route !== 'limited') return { adapter: d.adapter, profile: d.profile, route: d.route, path: PATHS[d.route] };
    const j = seen.get(d.adapter) ?? 0;
    seen.set(d.adapter, j + 1);
    const keys = Math.max(1, Math.ceil(limitedCount.get(d.adapter)! / (2 * LIMIT)));
    return { adapter: d.adapter, profile: d.profile, route: d.route, path: PATHS.limited, key: `${phase}-${j % keys}` };
  });
}

// ---- sending ----

/** What came back for one request. */
export interface Outcome {
  /** complete: a whole response; cut: headers, then the body failed; reset: no response; aborted: the client gave up. */
  readonly kind: 'complete' | 'cut' | 'reset' | 'aborted';
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
  readonly error?: string;
}

const flat = (headers: Record<string, string | string[] | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v.join(', ') : (v ?? '')]));
const errorText = (error: unknown): string => {
  const e = error as { name?: string; code?: string; message?: string };
  return `${e?.name ?? 'Error'}${e?.code ? ` ${e.code}` : ''}: ${e?.message ?? String(error)}`;
};

/** Sends one request on `pool` and reads the whole body, never throwing: a failure is an outcome. */
export async function send(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  options: { method?: 'GET' | 'POST'; body?: AsyncIterable<Buffer> | Buffer; signal?: AbortSignal } = {},
): Promise<Outcome> {
  let response;
  try {
    response = await pool.request({ path, method: options.method ?? 'GET', headers, body: options.body as never, signal: options.signal });
  } catch (error) {
    return { kind: options.signal?.aborted ? 'aborted' : 'reset', status: 0, headers: {}, body: Buffer.alloc(0), error: errorText(error) };
  }
  const chunks: Buffer[] = [];
  const meta = { status: response.statusCode, headers: flat(response.headers as Record<string, string | string[] | undefined>) };
  try {
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    return { kind: 'complete', ...meta, body: Buffer.concat(chunks) };
  } catch (error) {
    return { kind: options.signal?.aborted ? 'aborted' : 'cut', ...meta, body: Buffer.concat(chunks), error: errorText(error) };
  }
}

/** A pool of keep-alive connections to one origin. */
export const pool = (origin: string, connections = 100): Pool => new Pool(origin, { connections, pipelining: 1 });

// ---- checking ----

export const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');
const STREAM_HASHES = STREAM_SIZES.map((_, seed) => sha256(streamBody(seed)));
const JSON_HASH = sha256(JSON.stringify(JSON_BODY));

/** A browser's expected page: status, content type, body. */
export interface Page {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/**
 * The page a browser must get from the wrapped app, per adapter, route, profile and status: the bare
 * app's own response to the same request. One exception, by design: Fastify's page for a thrown
 * Error, which the adapter renders in Fastify's shape without the error's message (bare Fastify
 * shows the message, here the secret).
 */
export type References = Map<string, Page>;
export const refKey = (adapter: Adapter, route: Route, profile: Profile, status: number): string => `${adapter} ${route} ${profile} ${status}`;
const FASTIFY_BOOM: Page = {
  status: 500,
  contentType: 'application/json; charset=utf-8',
  body: '{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}',
};

/** Fetches every browser reference from the bare apps (a /limited key of its own, past its limit, for the 429). */
export async function references(children: readonly ServerChild[]): Promise<References> {
  const refs: References = new Map();
  await Promise.all(
    children.map(async (child) => {
      const p = pool(child.bare, 4);
      try {
        for (const profile of ['browser', 'any'] as const) {
          const { headers } = PROFILES[profile];
          for (const route of ['missing', 'boom', 'agent-error'] as const) {
            const res = await send(p, PATHS[route], headers);
            refs.set(refKey(child.adapter, route, profile, res.status), { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body.toString('latin1') });
          }
          for (let i = 0; i <= LIMIT; i++) {
            const res = await send(p, PATHS.limited, { ...headers, 'x-client': `reference-${profile}` });
            refs.set(refKey(child.adapter, 'limited', profile, res.status), { status: res.status, contentType: res.headers['content-type'] ?? '', body: res.body.toString('latin1') });
          }
          if (child.adapter === 'fastify') refs.set(refKey('fastify', 'boom', profile, 500), FASTIFY_BOOM);
        }
      } finally {
        await p.close();
      }
    }),
  );
  return refs;
}

/** @fastify/rate-limit's 429 message says how long is left of the window ("retry in 59 minutes"): compared without it. */
const normalize = (adapter: Adapter, route: Route, body: string): string =>
  adapter === 'fastify' && route === 'limited' ? body.replace(/retry in [^"]*/, 'retry in (time left)') : body;

/** The delay an agent error carries in its body (envelope retry_after, problem retry_after_seconds). */
function bodyDelay(value: Record<string, unknown>, format: 'envelope' | 'problem'): unknown {
  return format === 'problem' ? value.retry_after_seconds : (value.error as Record<string, unknown> | undefined)?.retry_after;
}

/**
 * An agent's error: the contract's content type, a valid body (strictly: every error in this mix
 * carries what its retry word calls for, see below), the expected code and status, and Retry-After
 * equal to the body's delay. Returns the problems found.
 *
 * Strict validation, not `{ received: true }`: that option is for a conversion from a page that did
 * not give a field or a delay its code calls for; here every converted error has them (a 404 and a
 * 500 need none, `internal`'s retry-once delay is filled by the adapter, and each rate limiter sends
 * Retry-After), so a missing one is a fault.
 */
export function checkAgentError(outcome: Outcome, format: 'envelope' | 'problem', expected: { code: string; status: number }): string[] {
  const problems: string[] = [];
  if (outcome.kind !== 'complete') return [`${outcome.kind}: ${outcome.error}`];
  if (outcome.status !== expected.status) problems.push(`status ${outcome.status}, expected ${expected.status}`);
  const type = outcome.headers['content-type'] ?? '';
  if (format === 'problem' ? !/^application\/problem\+json/.test(type) : !/^application\/json/.test(type)) problems.push(`content-type ${type}`);
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(outcome.body.toString('utf8'));
  } catch {
    return [...problems, `not JSON: ${outcome.body.toString('utf8').slice(0, 120)}`];
  }
  // An app's own JSON error (Fastify's 404, @fastify/rate-limit's 429) stays the app's for a JSON
  // agent, the contract added in its own format: read as an agent reads it, its delay in both places.
  if (format === 'envelope' && (typeof value !== 'object' || value === null || typeof value.error !== 'object')) {
    const read = fromResponse(outcome.status, outcome.headers, value).error;
    if (read.code !== expected.code) problems.push(`the app's own JSON read as ${read.code}, expected ${expected.code}`);
    if (typeof value.retry !== 'string') problems.push(`the app's own JSON without a retry word added: ${JSON.stringify(value).slice(0, 120)}`);
    const header = outcome.headers['retry-after'];
    if ((read.retry_after === null ? header !== undefined : header !== String(read.retry_after)) && read.retry === 'after_delay') problems.push(`Retry-After ${String(header)} with a body delay of ${String(read.retry_after)}`);
    return problems;
  }
  const verdict = format === 'problem' ? validateProblem(value) : validateEnvelope(value);
  if (!verdict.valid) problems.push(`invalid ${format}: ${verdict.errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`);
  const code = format === 'problem' ? value.code : (value.error as Record<string, unknown> | undefined)?.code;
  if (code !== expected.code) problems.push(`code ${String(code)}, expected ${expected.code}`);
  if (format === 'problem' && value.status !== outcome.status) problems.push(`problem status ${String(value.status)} on a ${outcome.status}`);
  const delay = bodyDelay(value, format);
  const header = outcome.headers['retry-after'];
  if ((delay ?? null) === null ? header !== undefined : header !== String(delay)) problems.push(`Retry-After ${String(header)} with a body delay of ${String(delay)}`);
  return problems;
}

/** Nothing of a thrown error's text in the body or any header. */
export function leaks(outcome: Outcome): boolean {
  return outcome.body.includes(SECRET) || Object.values(outcome.headers).some((v) => v.includes(SECRET));
}

/** Checks one response of the mix; returns its problems (none when it is what it must be). */
export function check(request: Planned, outcome: Outcome, refs: References): string[] {
  const { agent, format } = PROFILES[request.profile];
  const problems: string[] = [];
  if (leaks(outcome)) problems.push('shows the thrown error text');
  if (outcome.kind !== 'complete') return [...problems, `${outcome.kind} (status ${outcome.status}, ${outcome.body.length} bytes): ${outcome.error}`];
  switch (request.route) {
    case 'stream':
    case 'json': {
      const expected = request.route === 'json' ? JSON_HASH : STREAM_HASHES[request.seed!];
      if (outcome.status !== 200) problems.push(`status ${outcome.status}`);
      if (sha256(outcome.body) !== expected) problems.push(`body of ${outcome.body.length} bytes, hash differs`);
      return problems;
    }
    case 'limited':
      if (outcome.status === 200) return outcome.body.toString() === 'ok' ? problems : [...problems, `200 body ${outcome.body.toString().slice(0, 80)}`];
      if (outcome.status !== 429) return [...problems, `status ${outcome.status}`];
      if (agent) {
        problems.push(...checkAgentError(outcome, format as 'envelope' | 'problem', { code: 'rate_limited', status: 429 }));
        if (!(Number(outcome.headers['retry-after']) > 0)) problems.push(`Retry-After ${outcome.headers['retry-after']}`);
        return problems;
      }
      break;
    default:
      if (agent) {
        problems.push(...checkAgentError(outcome, format as 'envelope' | 'problem', AGENT_CODES[request.route]));
        if (request.route === 'agent-error' && format === 'envelope') {
          const body = outcome.body.toString('utf8');
          if (body !== JSON.stringify({ error: AGENT_ERROR })) problems.push(`body ${body}, expected the thrown AgentError's envelope`);
        }
        return problems;
      }
      // A browser gets a thrown AgentError as the catalog's page: its status, its delay, Vary: Accept, HTML.
      if (request.route === 'agent-error') {
        const expected = AGENT_CODES['agent-error'];
        if (outcome.status !== expected.status) problems.push(`status ${outcome.status}, the catalog's is ${expected.status}`);
        if (!(outcome.headers['content-type'] ?? '').startsWith('text/html')) problems.push(`content-type ${outcome.headers['content-type']}, not the HTML page`);
        if (outcome.headers['retry-after'] !== String(AGENT_ERROR.retry_after)) problems.push(`Retry-After ${outcome.headers['retry-after']}`);
        if (!/(^|,)\s*accept\s*(,|$)/i.test(String(outcome.headers.vary ?? ''))) problems.push(`Vary ${outcome.headers.vary}, without Accept`);
        if (!outcome.body.toString('utf8').includes(`/problems/${expected.code}`)) problems.push("the page does not link the code's docs page");
        return problems;
      }
  }
  const page = refs.get(refKey(request.adapter, request.route, request.profile, outcome.status));
  if (!page) return [...problems, `status ${outcome.status}, no bare page with that status`];
  if ((outcome.headers['content-type'] ?? '') !== page.contentType) problems.push(`content-type ${outcome.headers['content-type']}, the app's is ${page.contentType}`);
  const body = outcome.body.toString('latin1');
  if (normalize(request.adapter, request.route, body) !== normalize(request.adapter, request.route, page.body)) problems.push(`page differs from the app's own: ${body.slice(0, 120)}`);
  return problems;
}

// ---- running a mix ----

/** Counts by adapter, then by a label. */
export type Tally = Record<Adapter, Record<string, number>>;
export const emptyTally = (): Tally => Object.fromEntries(ADAPTERS.map((a) => [a, {}])) as unknown as Tally;
const bump = (tally: Tally, adapter: Adapter, label: string): void => void (tally[adapter][label] = (tally[adapter][label] ?? 0) + 1);

/** What a run of a plan found. */
export interface RunResult {
  readonly sent: number;
  readonly answered: number;
  /** Per adapter: requests by profile, by route and status, by caller kind. */
  readonly byProfile: Tally;
  readonly byRoute: Tally;
  /** The /limited answers per adapter and key: how many 200s and how many requests. */
  readonly limited: Map<string, { ok: number; total: number }>;
  /** Every problem found, with its request; empty when every response was what it must be. */
  readonly problems: string[];
  readonly ms: number;
}

/** Sends `requests` with `concurrency` requests in flight at all times, over one pool per server, and checks each response. */
export async function run(requests: readonly Planned[], pools: Record<Adapter, Pool>, refs: References, concurrency: number): Promise<RunResult> {
  const started = performance.now();
  const byProfile = emptyTally();
  const byRoute = emptyTally();
  const limited = new Map<string, { ok: number; total: number }>();
  const problems: string[] = [];
  let nextIndex = 0;
  let answered = 0;
  const worker = async (): Promise<void> => {
    while (nextIndex < requests.length) {
      const request = requests[nextIndex++]!;
      const { headers } = PROFILES[request.profile];
      const outcome = await send(pools[request.adapter], request.path, request.key ? { ...headers, 'x-client': request.key } : headers);
      if (outcome.kind === 'complete') answered += 1;
      bump(byProfile, request.adapter, request.profile);
      bump(byRoute, request.adapter, `${request.route} ${outcome.kind === 'complete' ? outcome.status : outcome.kind}`);
      if (request.route === 'limited') {
        const key = `${request.adapter} ${request.key}`;
        const entry = limited.get(key) ?? { ok: 0, total: 0 };
        entry.total += 1;
        if (outcome.status === 200) entry.ok += 1;
        limited.set(key, entry);
      }
      for (const problem of check(request, outcome, refs)) problems.push(`${request.adapter} ${request.profile} GET ${request.path}${request.key ? ` (x-client ${request.key})` : ''}: ${problem}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { sent: requests.length, answered, byProfile, byRoute, limited, problems, ms: performance.now() - started };
}

/** Each rate limiter let exactly LIMIT requests of a key through (or all, when it had fewer); returns the keys that did not. */
export function limiterMisses(result: RunResult): string[] {
  return [...result.limited].filter(([, { ok, total }]) => ok !== Math.min(LIMIT, total)).map(([key, { ok, total }]) => `${key}: ${ok} of ${total} let through`);
}

/** Polls `probe` until `done` holds or `ms` pass; returns the last value. A bounded wait for things to settle, never a timing assertion. */
export async function settle<T>(probe: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  let value = await probe();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    value = await probe();
  }
  return value;
}

export const MB = 1024 * 1024;
export const mb = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;
