// Benchmark of the site side: requests per second through each AgentFriendly adapter against the
// same app without it. The machine is shared and noisy, so every verdict is a ratio of two things
// measured in this same run (interleaved rounds in rotating order, after a warm-up, medians);
// absolute numbers are context only.
//
//   npx tsx bench/site.ts          a table
//   npx tsx bench/site.ts --json   the same as JSON
//
// Apps (bench/site-apps.ts): node:http (agentFriendlyNode(listener)), Express 5 (agentFriendlyExpress()
// first, agentFriendlyExpressErrorHandler() last), Fastify 5 (the agentFriendlyFastify plugin), Hono 4 on
// @hono/node-server (agentFriendlyHono() first), and the same Hono app with no middleware as a Fetch
// API app (agentFriendlyFetch(app.fetch), app.onError(agentFriendlyHonoErrorHandler())), each with the same
// four routes, bare or wrapped.
// Every app is a server in a child process of its own (bench/site-server.ts, compiled by
// bench/site-build.ts with TypeScript's emitter, as dist/ ships it, and run by plain `node`, not
// under tsx, whose esbuild transform adds a __name() call to every closure the adapters make): the
// load generator here and the server never share an event loop, and a bare app never runs in a
// process that loaded the adapter. Per adapter there are five: two wrapped, two bare, and a no-op
// integration of the adapter's shape (the floor: what any middleware of that kind costs, shown
// beside the ratio; the baseline of the Hono middleware's json and stream cells, context for the
// rest). Two of each side, because two processes of the same code differ here by up to a few
// percent, as much as the 3% the targets allow.
//
// Cases, every request sent with an agent's Accept (application/json, text/markdown, text/html, */*), so the wrapped
// app takes its agent path on every request (a browser's request is let through with one Accept check):
//   json     GET /json, 200 with a 1 KB JSON body.                   Target: wrapped / bare >= 0.97
//   stream   GET /stream, 200 with 1 MiB streamed in 64 KiB chunks,  Target: wrapped / bare >= 0.97
//            one per event-loop turn (res.write, a Readable, a ReadableStream as each framework does it).
//   404      GET /missing, the app's own 404: the wrapped app converts it to the envelope (Fastify's,
//            which is JSON, keeps its members with the retry word added), the bare app sends its own.                                 Target: wrapped / bare >= 0.50
//   error    GET /locked, the app's own JSON error (423 {"message", "code"}): the wrapped app keeps it
//            and adds the retry word for an agent, the bare app sends it. Target: wrapped / bare >= 0.50,
//            as for the converted 404: both read the body and answer in the contract.
// The Hono middleware's json and stream cells are judged against the no-op Hono middleware of the
// same run instead (wrapped / no-op >= 0.97): any middleware takes Hono off its fast path for a
// route with one handler, and the no-op alone measures 0.88-0.94 of bare there, so no middleware
// could reach 0.97 of bare. agentFriendlyFetch(app.fetch), the same app with no middleware, keeps
// wrapped / bare. See baselineOf.
//
// Load: autocannon (programmatic, in this process) on 127.0.0.1, CONNECTIONS keep-alive connections,
// no pipelining, MEASURE_S seconds per measurement; rate = completed responses / elapsed time.
// Before measuring, each server is checked once: /json is the 1 KB object, /stream is exactly 1 MiB,
// the wrapped /missing is a valid not_found envelope for the agent (and the app's own page for a
// browser), the bare /missing is the app's own page. Every measurement is checked too: no errors or
// timeouts, every response of the expected status class, and for /stream at least 1 MiB per response.
//
// Each round starts every adapter's five servers afresh (checks them, warms each up on each case),
// measures its cells, in each cell the five servers one after the other after SETTLE_S of that
// cell's own traffic on each (a server's speed right after another kind of traffic is not its
// speed on this one: V8 re-optimizes for a change of mix), the order rotating
// through the permutations, and stops them: a process's own speed is drawn anew each round. The
// ratio is the median, over the rounds, of the ratios of each wrapped process to each bare one;
// the A/A control is the median of the per-round ratios of one bare process to the other: the same
// code in another process, so its distance from 1.00 is the noise of the row, and a ratio below
// its target by no more than that is "equal within noise" (yes*), as in bench/agent.ts. A cell
// judged against the no-op (one process a round) takes the ratios of each wrapped process to it,
// and the same A/A: it measures how far two processes of the same code differ, whatever the code.
//
// Context, no target: the server's CPU time per request (process.cpuUsage in the child, asked before
// and after each measurement), and the median per-round ratio bare / wrapped of it. On this shared
// 2-CPU machine it moves far less than req/s, since time other processes take is not in it; it
// does include V8's concurrent GC threads, i.e. what a response's allocations cost.
//
// Missing a target never fails the run: the exit code is 0. Only a run that cannot measure (a server
// does not start, gives a wrong answer, or the load sees errors) exits 1.
//
//   --rounds N, --seconds S   override ROUNDS and MEASURE_S (the defaults keep a run near 6 minutes)
//   --only a,b                measure only these adapters (node, express, fastify, hono, fetch)
//
// Where the time goes: npx tsx bench/explore/site-profile.ts <adapter> <case> (CPU profiles of one bare and
// one wrapped server).

import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { validateEnvelope } from '../src/index.js';
import { buildServers, type Built } from './site-build.js';
import { ADAPTERS, AGENT_ACCEPT, AUGMENTED_BODY, CASES, ERROR_BODY, ERROR_STATUS, JSON_BODY, JSON_BYTES, NODE_404, PATHS, STREAM_BYTES, CHUNK_BYTES, type Adapter, type Case, type Variant } from './site-apps.js';
import { iqr, median, permutations, round2, verdictMark, verdictOf, type Judged } from './stats.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

const CONNECTIONS = 10;
const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  const value = at < 0 ? NaN : Number(process.argv[at + 1]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const MEASURE_S = flag('--seconds', 1); // per measurement: 1 s, not 1.5-2, so that 20 cells x 5 servers x ROUNDS fit in ~8 minutes
const WARMUP_S = 0.4; // per server and case, after each start
const SETTLE_S = 0.3; // per server, on a cell's case just before the cell is measured
/** --only node,express: some adapters (npm run bench measures all four). */
const MEASURED: readonly Adapter[] = process.argv.includes('--only')
  ? ADAPTERS.filter((a) => process.argv[process.argv.indexOf('--only') + 1]!.split(',').includes(a))
  : ADAPTERS;
const ROUNDS = Math.round(flag('--rounds', 4)); // each round: every adapter's five servers started, warmed up, one measurement each per case (about 95 s)
const SETTLE_MS = 30; // after each measurement, for the server to finish the requests cut off at its end
const SAMPLE_MS = 50; // autocannon's sampling interval, which is also how precisely a measurement stops

const TARGETS: Record<Case, number> = { json: 0.97, stream: 0.97, '404': 0.5, error: 0.5 };

/** What a cell's wrapped processes are judged against. */
type Baseline = 'bare' | 'no-op';

/**
 * The bare app, but for the Hono middleware's json and stream cells: any Hono middleware, even one
 * that only awaits next(), takes Hono off its fast path for a route with one handler (the no-op
 * measures 0.88-0.94 of bare), so that cell's target is 0.97 of the no-op measured in the same run.
 * Its 404 cell, where the adapter does its work, and every other adapter keep the bare app.
 */
export const baselineOf = (adapter: Adapter, kase: Case): Baseline => (adapter === 'hono' && (kase === 'json' || kase === 'stream') ? 'no-op' : 'bare');
const ADAPTER_NAMES: Record<Adapter, string> = { node: 'node:http', express: 'Express 5', fastify: 'Fastify 5', hono: 'Hono (node-server)', fetch: 'agentFriendlyFetch (Hono app.fetch)' };
const CASE_NAMES: Record<Case, string> = { json: '1 KB JSON 200', stream: '1 MiB streamed 200', '404': "app's own 404 (agent)", error: "app's own JSON 423, augmented (agent)" };

/** The servers of an adapter: two processes of the app with the adapter, two of the bare app, and one of the no-op integration. */
const SIDES = ['wrapped', 'wrapped again', 'bare', 'bare again', 'no-op'] as const;
export type Side = (typeof SIDES)[number];
const variantOf = (side: Side): Variant => (side.startsWith('wrapped') ? 'wrapped' : side === 'no-op' ? 'noop' : 'bare');
/** A side's processes in a round: two, or the one no-op. */
const processes = (r: Record<Side, number>, side: 'wrapped' | 'bare' | 'no-op'): number[] => (side === 'no-op' ? [r['no-op']] : [r[side], r[`${side} again`]]);
/**
 * The ratios of a round: each of `top`'s processes over each of `bottom`'s (four, or two where one
 * side is the no-op). The statistic is their median over the rounds, which one slow process cannot
 * carry (two processes of the same code have differed by 15% here).
 */
const pairings = (r: Record<Side, number>, top: 'wrapped' | 'bare' | 'no-op', bottom: 'wrapped' | 'bare' | 'no-op'): number[] =>
  processes(r, top).flatMap((t) => processes(r, bottom).map((b) => t / b));

export class CannotMeasure extends Error {}

interface Row {
  adapter: Adapter;
  case: Case;
  /** medians over the rounds, requests per second */
  bare: number;
  wrapped: number;
  bareAgain: number;
  /** medians over the rounds: the same app with a do-nothing integration of the adapter's shape */
  noop: number;
  /** median of the per-round ratios no-op / bare: what any integration of that shape costs, the floor under `overBare` */
  floor: number;
  /** what `ratio` divides by (baselineOf) */
  baseline: Baseline;
  /** median of the per-round ratios wrapped / baseline: the ratio the verdict judges */
  ratio: number;
  /** medians of the per-round ratios wrapped / bare and wrapped / no-op (one of them is `ratio`) */
  overBare: number;
  overNoop: number;
  target: number;
  verdict: Judged;
  met: boolean;
  /** median of the per-round ratios bare again / bare (same code, another process) */
  control: number;
  noise: number;
  spread: { ratio: [number, number]; control: [number, number] };
  rounds: { wrapped: number; wrappedAgain: number; bare: number; bareAgain: number; noop: number }[];
  /**
   * Context: the server's CPU time (user + system) per request, medians in microseconds, and the
   * median per-round ratio bare / wrapped (the share of bare's throughput a saturated CPU would
   * keep), with its A/A (bare again / bare, inverted likewise). Steadier than req/s on a shared
   * machine, since CPU time taken by other processes is not in it; no target.
   */
  cpu: { bare: number; wrapped: number; ratio: number; control: number };
}

/**
 * A cell's row from its rounds: requests per second (and CPU microseconds per request) of each
 * side's process, one record a round. The ratio is wrapped over the cell's baseline, judged
 * against its target with the bare A/A as the noise.
 */
export function summarize(adapter: Adapter, kase: Case, s: readonly Record<Side, number>[], k: readonly Record<Side, number>[]): Row {
  const baseline = baselineOf(adapter, kase);
  const overBare = s.flatMap((r) => pairings(r, 'wrapped', 'bare'));
  const overNoop = s.flatMap((r) => pairings(r, 'wrapped', 'no-op'));
  const ratios = baseline === 'no-op' ? overNoop : overBare;
  const controls = s.map((r) => r['bare again'] / r.bare);
  const ratio = median(ratios);
  const control = median(controls);
  // The A/A compares one process with one, as each pairing of the headline does.
  const noise = Math.abs(1 - control);
  const target = TARGETS[kase];
  const verdict = verdictOf(ratio, { op: '>=', value: target }, noise);
  return {
    adapter,
    case: kase,
    bare: median(s.flatMap((r) => processes(r, 'bare'))),
    wrapped: median(s.flatMap((r) => processes(r, 'wrapped'))),
    bareAgain: median(s.map((r) => r['bare again'])),
    noop: median(s.map((r) => r['no-op'])),
    floor: median(s.flatMap((r) => pairings(r, 'no-op', 'bare'))),
    baseline,
    ratio,
    overBare: median(overBare),
    overNoop: median(overNoop),
    target,
    verdict,
    met: verdict !== 'not met',
    control,
    noise,
    spread: { ratio: iqr(ratios), control: iqr(controls) },
    rounds: s.map((r) => ({ wrapped: r.wrapped, wrappedAgain: r['wrapped again'], bare: r.bare, bareAgain: r['bare again'], noop: r['no-op'] })),
    cpu: {
      bare: median(k.flatMap((r) => processes(r, 'bare'))),
      wrapped: median(k.flatMap((r) => processes(r, 'wrapped'))),
      ratio: median(k.flatMap((r) => pairings(r, 'bare', 'wrapped'))),
      control: median(k.map((r) => r.bare / r['bare again'])),
    },
  };
}

// ---------------------------------------------------------------- servers

export interface ServerHandle {
  child: ChildProcess;
  origin: string;
  lines: ReturnType<typeof createInterface>;
}

interface Server extends ServerHandle {
  adapter: Adapter;
  side: Side;
}

/** Starts one app in a child process: plain node on the compiled entry (bench/site-build.ts), no NODE_OPTIONS from this process. */
export async function startServer(
  entry: string,
  adapter: Adapter,
  variant: Variant,
  label: string,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<ServerHandle> {
  const child = spawn(process.execPath, [...nodeArgs, entry, adapter, variant], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, NODE_OPTIONS: '', ...env },
  });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new CannotMeasure(`the ${adapter} ${label} server did not start within 30 s`)), 30_000);
    child.once('error', (error) => reject(new CannotMeasure(`cannot start the ${adapter} ${label} server: ${error.message}`)));
    child.once('exit', (code, signal) => reject(new CannotMeasure(`the ${adapter} ${label} server exited (${code ?? signal})`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      try {
        resolve((JSON.parse(line) as { port: number }).port);
      } catch {
        reject(new CannotMeasure(`the ${adapter} ${label} server printed ${JSON.stringify(line)}`));
      }
    });
  });
  child.removeAllListeners('exit');
  child.removeAllListeners('error');
  return { child, origin: `http://127.0.0.1:${port}`, lines };
}

/** The server's own user + system CPU time so far, in microseconds (site-server.ts answers "cpu"). */
export function serverCpu(server: ServerHandle): Promise<number> {
  return new Promise((resolve, reject) => {
    server.lines.once('line', (line) => {
      try {
        resolve((JSON.parse(line) as { cpu: number }).cpu);
      } catch {
        reject(new CannotMeasure(`the server answered ${JSON.stringify(line)} to "cpu"`));
      }
    });
    server.child.stdin!.write('cpu\n');
  });
}

/** Stops a server and waits for its process to end. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill(), 5000);
  await exited;
  clearTimeout(timer);
}

// ---------------------------------------------------------------- correctness, once per server

async function get(origin: string, path: string, accept: string): Promise<{ status: number; type: string; body: Buffer }> {
  const response = await fetch(`${origin}${path}`, { headers: { accept } });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
}

/** The bare app's own 404, as each framework makes it. */
function isOwn404(adapter: Adapter, r: { status: number; type: string; body: Buffer }): boolean {
  const text = r.body.toString('utf8');
  if (r.status !== 404) return false;
  switch (adapter) {
    case 'node':
      return text === NODE_404;
    case 'express':
      return r.type.startsWith('text/html') && text.includes('<pre>Cannot GET /missing</pre>');
    case 'fastify':
      return r.type.startsWith('application/json') && JSON.stringify(JSON.parse(text)) === JSON.stringify({ message: 'Route GET:/missing not found', error: 'Not Found', statusCode: 404 });
    case 'hono':
    case 'fetch':
      return r.type.startsWith('text/plain') && text === '404 Not Found';
  }
}

/** Checks one server's four routes; `converts`: its /missing is an envelope for an agent (else the app's own page). */
export async function check(server: { adapter: Adapter; origin: string }, what: string, converts: boolean): Promise<{ own404: string; agent404: string }> {
  const json = await get(server.origin, PATHS.json, AGENT_ACCEPT);
  if (json.status !== 200 || !json.type.startsWith('application/json') || json.body.length !== JSON_BYTES || json.body.toString() !== JSON.stringify(JSON_BODY))
    throw new CannotMeasure(`${what}: GET /json gave ${json.status} ${json.type}, ${json.body.length} bytes, not the ${JSON_BYTES}-byte object`);
  const stream = await get(server.origin, PATHS.stream, AGENT_ACCEPT);
  if (stream.status !== 200 || stream.body.length !== STREAM_BYTES || stream.body.some((b) => b !== 0x61))
    throw new CannotMeasure(`${what}: GET /stream gave ${stream.status}, ${stream.body.length} bytes, not ${STREAM_BYTES} bytes of "a"`);
  const agent = await get(server.origin, PATHS['404'], AGENT_ACCEPT);
  const browser = await get(server.origin, PATHS['404'], BROWSER_ACCEPT);
  if (!isOwn404(server.adapter, browser)) throw new CannotMeasure(`${what}: a browser's GET /missing gave ${browser.status} ${browser.type} ${JSON.stringify(browser.body.toString().slice(0, 200))}, not the app's own 404`);
  if (!converts) {
    if (!isOwn404(server.adapter, agent)) throw new CannotMeasure(`${what}: an agent's GET /missing gave ${agent.status} ${JSON.stringify(agent.body.toString().slice(0, 200))}, not the app's own 404`);
  } else {
    let envelope: unknown = null;
    try {
      envelope = JSON.parse(agent.body.toString());
    } catch {
      // not JSON: reported below
    }
    // A page becomes the envelope; Fastify's own JSON 404 stays, with the retry word it lacks added.
    const own = server.adapter === 'fastify' ? JSON.parse(browser.body.toString()) : null;
    const valid = envelope !== null && (own !== null ? JSON.stringify(envelope) === JSON.stringify({ ...own, retry: 'no' }) : validateEnvelope(envelope).valid && (envelope as { error: { code: string } }).error.code === 'not_found');
    if (agent.status !== 404 || !agent.type.startsWith('application/json') || !valid)
      throw new CannotMeasure(`${what}: an agent's GET /missing gave ${agent.status} ${agent.type} ${JSON.stringify(agent.body.toString().slice(0, 200))}, not ${own !== null ? "Fastify's own 404 with the retry word added" : 'a valid not_found envelope'}`);
  }
  // The app's own JSON error: as it is for a bare app, with the retry word added for a wrapped one; never another status.
  const locked = await get(server.origin, PATHS.error, AGENT_ACCEPT);
  let lockedBody: unknown = null;
  try {
    lockedBody = JSON.parse(locked.body.toString());
  } catch {
    // not JSON: reported below
  }
  if (locked.status !== ERROR_STATUS || !locked.type.startsWith('application/json') || JSON.stringify(lockedBody) !== JSON.stringify(converts ? AUGMENTED_BODY : ERROR_BODY))
    throw new CannotMeasure(`${what}: an agent's GET /locked gave ${locked.status} ${locked.type} ${JSON.stringify(locked.body.toString().slice(0, 200))}, not the app's ${ERROR_STATUS}${converts ? ' with the retry word added' : ''}`);
  return { own404: `${browser.status} ${browser.type.split(';')[0]} ${browser.body.length} B`, agent404: `${agent.status} ${agent.type.split(';')[0]} ${agent.body.length} B` };
}

// ---------------------------------------------------------------- load

/** Requests per second for `seconds` of load on one path, checking every response. */
export async function load(origin: string, path: string, seconds: number, what: string): Promise<number> {
  const result = await autocannon({
    url: `${origin}${path}`,
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
    sampleInt: SAMPLE_MS,
    headers: { accept: AGENT_ACCEPT },
    timeout: 10,
  });
  const total = result.requests.total;
  const expected = path === PATHS['404'] || path === PATHS.error ? result['4xx'] : result['2xx'];
  if (result.errors > 0 || result.timeouts > 0 || total === 0 || expected !== total)
    throw new CannotMeasure(`${what}: ${total} responses, ${expected} of the expected status class, ${result.errors} errors, ${result.timeouts} timeouts`);
  if (path === PATHS.stream && result.throughput.total / total < STREAM_BYTES)
    throw new CannotMeasure(`${what}: ${Math.round(result.throughput.total / total)} bytes per response, less than ${STREAM_BYTES}`);
  const elapsed = (result.finish.getTime() - result.start.getTime()) / 1000;
  await sleep(SETTLE_MS);
  return total / elapsed;
}

/** One measurement: requests per second, and the server's CPU time (user + system) per request in microseconds. */
export async function measure(server: ServerHandle, path: string, seconds: number, what: string): Promise<{ rps: number; cpu: number }> {
  const before = await serverCpu(server);
  const t0 = performance.now();
  const rps = await load(server.origin, path, seconds, what);
  const cpu = (await serverCpu(server)) - before;
  // Requests over the whole span, settling included, at the measured rate: what the CPU time was spent on.
  return { rps, cpu: cpu / (rps * ((performance.now() - t0) / 1000 - SETTLE_MS / 1000)) };
}

// ---------------------------------------------------------------- output

const rate = (x: number): string => (x >= 100 ? Math.round(x).toLocaleString('en-US') : x.toFixed(1));
const mark = (r: Row): string => verdictMark(r.verdict);

function table(rows: Row[], header: string[], notes: string[]): string {
  const cells = [
    ['adapter', 'case', 'bare req/s', 'wrapped req/s', 'wrapped/bare', 'A/A', 'no-op/bare', 'wrapped/no-op', 'target', 'met', 'CPU us/req bare', 'wrapped', 'CPU ratio', 'A/A'],
    ...rows.map((r) => [
      ADAPTER_NAMES[r.adapter],
      CASE_NAMES[r.case],
      rate(r.bare),
      rate(r.wrapped),
      r.overBare.toFixed(2),
      r.control.toFixed(2),
      r.floor.toFixed(2),
      r.overNoop.toFixed(2),
      `${r.baseline} >= ${r.target.toFixed(2)}`,
      mark(r),
      r.cpu.bare.toFixed(1),
      r.cpu.wrapped.toFixed(1),
      r.cpu.ratio.toFixed(2),
      r.cpu.control.toFixed(2),
    ]),
  ];
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((line) => line[c]!.length)));
  const lines = cells.map((line) => line.map((cell, c) => (c < 2 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return [...header, '', ...lines, '', ...notes].join('\n');
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = performance.now();
  const log = (line: string): void => void (json ? undefined : process.stderr.write(`${line}\n`));

  let servers: Server[] = [];
  let built: Built | null = null;
  try {
    try {
      built = buildServers();
    } catch (error) {
      throw new CannotMeasure(`cannot compile the servers: ${error instanceof Error ? error.message : String(error)}`);
    }
    const entry = built.entry;
    const server = (adapter: Adapter, side: Side): Server => servers.find((s) => s.adapter === adapter && s.side === side)!;
    const checks: Record<string, { own404: string; agent404: string }> = {};
    const cells = MEASURED.flatMap((adapter) => CASES.map((kase) => ({ adapter, case: kase })));
    const orders = permutations(SIDES.length);
    const samples = cells.map(() => [] as Record<Side, number>[]);
    const cpuSamples = cells.map(() => [] as Record<Side, number>[]);
    // Every round starts each adapter's servers afresh: how fast one process of the same code runs
    // is drawn anew with each process, so the rounds sample it rather than keep one draw all run.
    for (let round = 0; round < ROUNDS; round++) {
      for (const adapter of MEASURED) {
        const boots = await Promise.allSettled(SIDES.map(async (side) => {
          const s: Server = { adapter, side, ...(await startServer(entry, adapter, variantOf(side), side)) };
          servers.push(s);
          return s;
        }));
        try {
          const failed = boots.find((b) => b.status === 'rejected');
          if (failed) throw failed.reason;
          for (const side of SIDES) checks[`${adapter} ${side}`] = await check(server(adapter, side), `${adapter} ${side}`, side.startsWith('wrapped'));
          for (const kase of CASES) for (const side of SIDES) await load(server(adapter, side).origin, PATHS[kase], WARMUP_S, `warm-up ${adapter} ${side} ${kase}`);
          for (const [c, cell] of cells.entries()) {
            if (cell.adapter !== adapter) continue;
            // Each server settles on the cell's own traffic first: what it last served was another
            // case (the JSON cell follows the warm-up's burst of 404s), and V8 takes a moment to
            // re-optimize for a new mix (a Fastify app's JSON replies run slower for about half a
            // second after a burst of converted 404s, then as fast as before).
            for (const side of SIDES) await load(server(adapter, side).origin, PATHS[cell.case], SETTLE_S, `settle ${adapter} ${side} ${cell.case}`);
            const got = {} as Record<Side, number>;
            const cpu = {} as Record<Side, number>;
            // Rotating by cell as well as by round, so one round does not put one side first everywhere.
            for (const i of orders[(round * cells.length + c) % orders.length]!) {
              const side = SIDES[i]!;
              ({ rps: got[side], cpu: cpu[side] } = await measure(server(adapter, side), PATHS[cell.case], MEASURE_S, `${adapter} ${side} ${cell.case}`));
            }
            samples[c]!.push(got);
            cpuSamples[c]!.push(cpu);
          }
        } finally {
          await Promise.all(servers.map((s) => stopServer(s.child)));
          servers = [];
        }
      }
      log(`round ${round + 1}/${ROUNDS} done at ${((performance.now() - started) / 1000).toFixed(0)} s`);
    }

    const rows = cells.map((cell, c) => summarize(cell.adapter, cell.case, samples[c]!, cpuSamples[c]!));

    const allControls = rows.flatMap((r) => r.rounds.map((x) => x.bareAgain / x.bare));
    const worst = rows.reduce((a, b) => (b.noise > a.noise ? b : a));
    const context = {
      node: process.version,
      cpus: availableParallelism(),
      load: { tool: 'autocannon', connections: CONNECTIONS, pipelining: 1, measureSeconds: MEASURE_S, warmupSeconds: WARMUP_S, rounds: ROUNDS, accept: AGENT_ACCEPT },
      payloads: { jsonBytes: JSON_BYTES, streamBytes: STREAM_BYTES, chunkBytes: CHUNK_BYTES },
      checks,
      noise: {
        worstCell: `${worst.adapter} ${worst.case}`,
        worstMedianControl: round2(worst.control),
        medianAbsControlDeviation: round2(median(rows.map((r) => r.noise))),
        perRoundControlRange: [round2(Math.min(...allControls)), round2(Math.max(...allControls))] as [number, number],
        perRoundControlIqr: iqr(allControls).map(round2) as [number, number],
      },
      statistic: 'median over the rounds of each wrapped process / each bare process (processes started afresh every round); the A/A control is the median of one bare process / the other',
      seconds: round2((performance.now() - started) / 1000),
    };

    if (json) {
      const r3 = (x: number): number => Math.round(x * 1000) / 1000;
      const out = rows.map((r) => ({
        ...r,
        bare: Math.round(r.bare),
        wrapped: Math.round(r.wrapped),
        bareAgain: Math.round(r.bareAgain),
        noop: Math.round(r.noop),
        floor: round2(r.floor),
        ratio: round2(r.ratio),
        overBare: round2(r.overBare),
        overNoop: round2(r.overNoop),
        control: round2(r.control),
        noise: round2(r.noise),
        spread: { ratio: r.spread.ratio.map(r3), control: r.spread.control.map(r3) },
        rounds: r.rounds.map((x) => ({ wrapped: Math.round(x.wrapped), wrappedAgain: Math.round(x.wrappedAgain), bare: Math.round(x.bare), bareAgain: Math.round(x.bareAgain), noop: Math.round(x.noop) })),
        cpu: { bare: Math.round(r.cpu.bare * 10) / 10, wrapped: Math.round(r.cpu.wrapped * 10) / 10, ratio: round2(r.cpu.ratio), control: round2(r.cpu.control) },
      }));
      console.log(JSON.stringify({ ...context, rows: out }, null, 2));
      return;
    }
    const n = context.noise;
    console.log(
      table(
        rows,
        [
          'site side: requests per second with and without AgentFriendly, per adapter (servers in child processes, autocannon here)',
          `node ${context.node}, ${context.cpus} CPUs; ${CONNECTIONS} connections, ${MEASURE_S} s per measurement, ${ROUNDS} rounds, each starting two wrapped, two bare and one no-op process per adapter afresh, measured in rotating order after ${WARMUP_S} s of warm-up each`,
          `every request with Accept: ${AGENT_ACCEPT}; /json ${JSON_BYTES} B, /stream ${STREAM_BYTES} B in ${STREAM_BYTES / CHUNK_BYTES} chunks`,
        ],
        [
          'wrapped/bare = median over the rounds of the ratios of each wrapped process to each bare one, both measured in this run, every round with processes started afresh (two processes of the same code have differed by up to 15% here); req/s columns are medians, context only.',
          'A/A = the median of the per-round ratios of one bare process to the other (same code): how far it strays from 1.00 is the noise of the row.',
          'no-op/bare = the same statistic for the app with an integration of the adapter\'s shape that does nothing (a pass-through listener, an Express middleware calling next() with an error handler passing its error on mounted last, a Fastify onSend callback hook, a Hono middleware awaiting next()): the floor any adapter of that shape starts from.',
          'wrapped/no-op = the same statistic, each wrapped process over the no-op one. target = the ratio the verdict judges and its floor: wrapped/bare, or wrapped/no-op for the Hono middleware\'s 1 KB JSON and stream (no Hono middleware reaches 0.97 of bare on a route with one handler, a no-op one included).',
          "CPU columns (context, no target): the server process's user + system CPU time per request (process.cpuUsage in the child), medians; CPU ratio = median per-round bare / wrapped, the share of bare's throughput a saturated core would keep, with its own A/A. Time other processes take is not in it, so it is steadier than req/s here.",
          `noise: median |1 - A/A| over the rows ${n.medianAbsControlDeviation.toFixed(2)}, worst ${worst.adapter} ${worst.case} at ${worst.control.toFixed(2)}; single-round A/A ratios ranged ${n.perRoundControlRange[0].toFixed(2)}-${n.perRoundControlRange[1].toFixed(2)} (IQR ${n.perRoundControlIqr[0].toFixed(2)}-${n.perRoundControlIqr[1].toFixed(2)})`,
          `per-round ratio IQR: ${rows.map((r) => `${r.adapter}/${r.case} ${r.spread.ratio[0].toFixed(2)}-${r.spread.ratio[1].toFixed(2)}`).join(', ')}`,
          `404 as sent: ${MEASURED.map((a) => `${a} bare ${checks[`${a} bare`]!.agent404}, wrapped ${checks[`${a} wrapped`]!.agent404}`).join('; ')}`,
          ...(rows.some((r) => r.verdict === 'equal within noise') ? ['yes* = below target by no more than the A/A control strayed from 1.00: equal within noise'] : []),
          `took ${context.seconds} s`,
        ],
      ),
    );
  } finally {
    await Promise.all(servers.map((s) => stopServer(s.child)));
    built?.cleanup();
  }
}

if (process.argv[1] !== undefined && resolvePath(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(error instanceof CannotMeasure ? `bench: cannot measure: ${error.message}` : error);
    process.exitCode = 1;
  });
}
