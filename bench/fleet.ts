// npm run bench:fleet: a fleet of 8 agent worker processes (test/helpers/fleet-worker.ts) against
// real loopback rate limiters, on the store kinds side by side in one run, each part on a
// redis-server of its own (privateRedis). Two parts:
//
// probe: how many calls a site sees in each window that opens when a shared wait ends. One
//   limitedSite({ windowMs: 3000, windows: 4 }) per row (a window opens with a call when none is
//   open; calls in it get 429 and Retry-After = its whole seconds left, rounded up; after the 4th it
//   answers 200). Worker 0 makes the fleet's first contact alone (one call: it opens window 0 and
//   writes the wait to its store); then the 8 workers loop (client.fetch under the default rules,
//   20-80 ms apart) until the site has closed its 4th window and answered a 200. Windows 1, 2 and 3
//   are the ones opened when a shared wait ends; the physical minimum is one call each. Each store
//   kind runs twice: against a site that answers at once (loopback), and one that answers in 150 ms.
// quota: how a fleet spends an announced quota. One quotaSite({ limit: 10, windowMs: 5000 }) per
//   row (express-rate-limit, fixed window, RateLimit/RateLimit-Policy and X-RateLimit-*, Retry-After
//   on its 429); the 8 workers send 60 requests in all (8,8,8,8,7,7,7,7), one after another each,
//   under the default rules. The floor, measured in this run: 60 requests need 6 windows, so 5 full
//   windows plus what the last window's 10 requests take, measured as the wall time of 10 requests
//   (2,2,1,1,1,1,1,1 over the 8 workers, unpaced store) to a fresh quotaSite, from the batch commands
//   to the last answer, exactly as the rows' wall times are measured (median of 3).
//
// The rows of a part run at the same time on the same 8 processes (each row on a site, and so a
// store key, of its own), so they share the machine's conditions. Prints both tables as Markdown
// and writes them to bench/results/fleet.md. `--json` prints the measurements as JSON instead (and
// writes nothing). Exit code 1 when Redis cannot start or a part cannot measure.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import {
  hostNow,
  limitedSite,
  quotaSite,
  startFleet,
  until,
  type BatchReport,
  type LimitedSite,
  type LoopReport,
  type QuotaSite,
  type StoreKind,
  type Worker,
} from '../test/helpers/fleet.js';
import { privateRedis, type TestRedis } from '../test/helpers/redis.js';
import { serve } from '../test/helpers/server.js';
import { median } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKERS = 8;
const PROBE = { windowMs: 3000, windows: 4 } as const;
const QUOTA = { limit: 10, windowMs: 5000, requests: 60 } as const;
const CALIBRATIONS = 3;

const PROBE_KINDS: readonly { label: string; kind: StoreKind }[] = [
  { label: 'Redis store, probe lease (`redis`)', kind: 'redis' },
  { label: 'Redis store, no probe (`redis-noprobe`, probeLeaseMs: 0)', kind: 'redis-noprobe' },
  { label: 'memory stores, one per process (`memory`)', kind: 'memory' },
];
// The rows on loopback; and again with a site that takes LATENT_MS to answer, as one
// across a network does. On loopback the first caller's 429 is back within a few ms, before most
// waiting workers wake (they sleep whole seconds, so they wake spread over up to one), and a store
// that looks again before each call stops them without a probe; the probe matters while an answer
// is on its way.
const LATENT_MS = 150;
const PROBE_ROWS: readonly { label: string; kind: StoreKind; latencyMs: number }[] = [0, LATENT_MS].flatMap((latencyMs) =>
  PROBE_KINDS.map((k) => ({ ...k, latencyMs })),
);
const QUOTA_ROWS: readonly { label: string; kind: StoreKind }[] = [
  { label: 'paced on Redis (`redis`)', kind: 'redis' },
  { label: 'unpaced on Redis (`redis-unpaced`, paceQuota: false)', kind: 'redis-unpaced' },
  { label: 'memory stores, each process paces alone (`memory`)', kind: 'memory' },
];

/** `total` requests over `n` workers, the first ones taking one more: 60 over 8 is 8,8,8,8,7,7,7,7. */
const shares = (total: number, n: number): number[] => Array.from({ length: n }, (_, i) => Math.floor(total / n) + (i < total % n ? 1 : 0));
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const prefix = (part: string): string => `agent-errors-bench-fleet:${process.pid}:${part}:`;

/** A promise that rejects after `ms`, naming `what`. */
function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took more than ${ms / 1000} s`)), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A redis-server of this run, or exit 1 saying why there is none. */
async function ownRedis(): Promise<TestRedis> {
  try {
    return await privateRedis();
  } catch (error) {
    console.error(`bench:fleet: cannot start a redis-server of its own, so there is nothing to measure: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}

async function redisVersion(url: string): Promise<string> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    return /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? 'unknown';
  } finally {
    client.destroy();
  }
}

/**
 * Loads what the measured requests use in every worker and store kind before measuring (undici, the
 * store's scripts in Redis, both clients), so the rows see a running fleet rather than cold starts.
 */
async function warm(fleet: readonly Worker[], kinds: readonly StoreKind[]): Promise<void> {
  const site = await serve((req, res) => res.writeHead(req.url === '/busy' ? 429 : 200, { 'retry-after': '1', 'content-type': 'text/plain' }).end('warm'));
  try {
    await Promise.all(
      fleet.map(async (w) => {
        for (const store of kinds) {
          // The 429 last: the wait it leaves on the warm site would hold the others a second.
          await w.send({ op: 'batch', url: `${site.url}/ok`, store, count: 1 });
          await w.send({ op: 'client', url: `${site.url}/`, store });
          await w.send({ op: 'client', url: `${site.url}/busy`, store });
        }
      }),
    );
  } finally {
    await site.close();
  }
}

/** Problems the workers noted (unhandled rejections, uncaught exceptions). */
async function problemsOf(fleet: readonly Worker[]): Promise<string[]> {
  const statuses = await Promise.all(fleet.map((w) => w.send({ op: 'status' })));
  return statuses.flatMap((s: { problems: string[] }, i) => s.problems.map((p) => `worker ${i}: ${p}`));
}

// ---------------------------------------------------------------------------------------------

interface ProbeRow {
  readonly label: string;
  readonly kind: StoreKind;
  /** How long the site took to answer each call, ms (0: at once, on loopback). */
  readonly latencyMs: number;
  /** Calls the site saw in windows 1, 2, 3. */
  readonly windows: number[];
  readonly mean: number;
  /** Calls in window 0, the fleet's first contact's (context). */
  readonly window0: number;
  /** ms from each of windows 0-2 closing to the call that opened the next. */
  readonly gaps: number[];
  /** ms from the last window closing to the first 200. */
  readonly toFirstOk: number;
  /** Requests the fleet made during the row (the ones endLoop aborted aside), how many ended not ok, and how many of those were answered from the store. */
  readonly requests: number;
  readonly failed: number;
  readonly remembered: number;
}

async function probePart(fleet: readonly Worker[]): Promise<ProbeRow[]> {
  const sites: LimitedSite[] = await Promise.all(PROBE_ROWS.map((row) => limitedSite({ ...PROBE, latencyMs: row.latencyMs })));
  try {
    const urls = sites.map((s) => `${s.url}/search`);
    // The fleet's first contact: worker 0 alone, one call (a wait is handed back, not slept).
    const firsts = await Promise.all(PROBE_ROWS.map((row, i) => fleet[0]!.send({ op: 'client', url: urls[i]!, store: row.kind })));
    firsts.forEach((first, i) => {
      if (first.ok || first.remembered || first.retry_after !== PROBE.windowMs / 1000)
        throw new Error(`the first contact on ${PROBE_ROWS[i]!.kind} (latency ${PROBE_ROWS[i]!.latencyMs} ms) should have opened window 0 and been told to wait ${PROBE.windowMs / 1000} s; it got ${JSON.stringify(first)}`);
    });
    await Promise.all(PROBE_ROWS.flatMap((row, i) => fleet.map((w) => w.send({ op: 'loop', url: urls[i]!, store: row.kind }))));
    const reports = await Promise.all(
      PROBE_ROWS.map(async (row, i) => {
        const site = sites[i]!;
        await until(`${row.kind}, latency ${row.latencyMs} ms: the site closed its ${PROBE.windows}th window and answered a 200`, () => site.finished(), 3 * PROBE.windows * PROBE.windowMs);
        return (await Promise.all(fleet.map((w) => w.send({ op: 'endLoop', url: urls[i]! })))) as LoopReport[];
      }),
    );
    return PROBE_ROWS.map((row, i) => {
      const site = sites[i]!;
      const calls = site.callsPerWindow();
      const windows = calls.slice(1, PROBE.windows);
      const gaps = site.opened.slice(1).map((w, k) => w.opened - site.opened[k]!.closes);
      const firstOk = site.arrivals.find((a) => a.status === 200)!;
      const requests = reports[i]!.flatMap((r) => r.requests);
      return {
        label: row.label,
        kind: row.kind,
        latencyMs: row.latencyMs,
        windows,
        mean: mean(windows),
        window0: calls[0]!,
        gaps,
        toFirstOk: firstOk.at - site.opened.at(-1)!.closes,
        requests: requests.length,
        failed: requests.filter((r) => !r.ok).length,
        remembered: requests.filter((r) => r.remembered).length,
      };
    });
  } finally {
    await Promise.all(sites.map((s) => s.close()));
  }
}

// ---------------------------------------------------------------------------------------------

interface QuotaRow {
  readonly label: string;
  readonly kind: StoreKind;
  /** 429s the site sent, and 200s. */
  readonly limited: number;
  readonly ok: number;
  /** Requests (of 60) that ended not ok. */
  readonly failed: number;
  /** From the batch commands to the last request's end, ms. */
  readonly wallMs: number;
  readonly ratio: number;
}

interface Floor {
  /** 5 full windows plus lastWindowMs. */
  readonly ms: number;
  /** The wall time of one window's 10 requests, median of the calibrations, and each of them. */
  readonly lastWindowMs: number;
  readonly calibrations: number[];
  /** The site's own time per request (arrival to the end of its answer), median, ms. */
  readonly siteMs: number;
  /** A request's round trip at the workers, median, ms. */
  readonly requestMs: number;
}

/** Sends `total` requests to a fresh quotaSite from the fleet, one batch per worker, all started at once. */
async function fleetBatch(fleet: readonly Worker[], site: QuotaSite, kind: StoreKind, total: number): Promise<{ reports: BatchReport[]; wallMs: number }> {
  const counts = shares(total, fleet.length);
  const started = hostNow();
  const reports = (await Promise.all(fleet.map((w, i) => w.send({ op: 'batch', url: `${site.url}/items`, store: kind, count: counts[i]! })))) as BatchReport[];
  return { reports, wallMs: Math.max(...reports.map((r) => r.ended)) - started };
}

async function measureFloor(fleet: readonly Worker[]): Promise<Floor> {
  const walls: number[] = [];
  const siteMs: number[] = [];
  const requestMs: number[] = [];
  for (let round = 0; round < CALIBRATIONS; round++) {
    const site = await quotaSite({ limit: QUOTA.limit, windowMs: QUOTA.windowMs });
    try {
      const { reports, wallMs } = await fleetBatch(fleet, site, 'redis-unpaced', QUOTA.limit);
      const requests = reports.flatMap((r) => r.requests);
      if (site.limited() > 0 || requests.some((r) => !r.ok) || site.ok() !== QUOTA.limit)
        throw new Error(`calibration: ${QUOTA.limit} requests within the limit should all be answered 200; the site sent ${site.ok()} 200s and ${site.limited()} 429s`);
      walls.push(wallMs);
      siteMs.push(...site.arrivals.map((a) => a.ms));
      requestMs.push(...requests.map((r) => r.ended - r.started));
    } finally {
      await site.close();
    }
  }
  const windowsNeeded = Math.ceil(QUOTA.requests / QUOTA.limit);
  const lastWindowMs = median(walls);
  return { ms: (windowsNeeded - 1) * QUOTA.windowMs + lastWindowMs, lastWindowMs, calibrations: walls, siteMs: median(siteMs), requestMs: median(requestMs) };
}

async function quotaPart(fleet: readonly Worker[], floor: Floor): Promise<QuotaRow[]> {
  const sites = await Promise.all(QUOTA_ROWS.map(() => quotaSite({ limit: QUOTA.limit, windowMs: QUOTA.windowMs })));
  try {
    const runs = await within(
      'the quota rows',
      90_000,
      Promise.all(QUOTA_ROWS.map((row, i) => fleetBatch(fleet, sites[i]!, row.kind, QUOTA.requests))),
    );
    return QUOTA_ROWS.map((row, i) => {
      const { reports, wallMs } = runs[i]!;
      const requests = reports.flatMap((r) => r.requests);
      return {
        label: row.label,
        kind: row.kind,
        limited: sites[i]!.limited(),
        ok: sites[i]!.ok(),
        failed: requests.filter((r) => !r.ok).length,
        wallMs,
        ratio: wallMs / floor.ms,
      };
    });
  } finally {
    await Promise.all(sites.map((s) => s.close()));
  }
}

// ---------------------------------------------------------------------------------------------

/** Starts a fleet on a redis-server of its own, runs `part` on it, and stops both. */
async function onOwnRedis<T>(name: string, kinds: readonly StoreKind[], part: (fleet: Worker[]) => Promise<T>): Promise<{ result: T; redis: string; problems: string[] }> {
  const redis = await ownRedis();
  let fleet: Worker[] = [];
  try {
    const version = await redisVersion(redis.url);
    fleet = await startFleet(WORKERS, redis.url, prefix(name));
    await warm(fleet, kinds);
    const result = await part(fleet);
    return { result, redis: version, problems: await problemsOf(fleet) };
  } finally {
    await Promise.all(fleet.map((w) => w.close()));
    await redis.stop();
  }
}

const fixed = (x: number, digits = 2): string => x.toFixed(digits);
const ms = (x: number): string => String(Math.round(x));

function probeTable(rows: readonly ProbeRow[]): string {
  const lines = [
    '| store | site answers in | window 1 | window 2 | window 3 | mean (× the minimum) | ms from a window closing to the next call, mean | ms from the last window closing to the first 200 | window 0 | requests | failed | from the store |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    '| physical minimum |  | 1 | 1 | 1 | 1.00 |  |  |  |  |  |  |',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${r.latencyMs ? `${r.latencyMs} ms` : 'at once'} | ${r.windows.join(' | ')} | ${fixed(r.mean)} | ${ms(mean(r.gaps))} | ${ms(r.toFirstOk)} | ${r.window0} | ${r.requests} | ${r.failed} | ${r.remembered} |`,
    ),
  ];
  return lines.join('\n');
}

function quotaTable(rows: readonly QuotaRow[], floor: Floor): string {
  const seconds = (x: number): string => `${(x / 1000).toFixed(2)} s`;
  const lines = [
    '| store | 429s the site sent | requests that failed | 200s | wall time | wall / floor |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    `| floor: ${Math.ceil(QUOTA.requests / QUOTA.limit)} windows, no 429 | 0 | 0 | ${QUOTA.requests} | ${seconds(floor.ms)} | 1.00 |`,
    ...rows.map((r) => `| ${r.label} | ${r.limited} | ${r.failed} | ${r.ok} | ${seconds(r.wallMs)} | ${fixed(r.ratio)} |`),
  ];
  return lines.join('\n');
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = hostNow();
  const probe = await onOwnRedis('probe', PROBE_KINDS.map((r) => r.kind), (fleet) => within('the probe rows', 60_000, probePart(fleet)));
  const quota = await onOwnRedis('quota', [...new Set(['redis-unpaced' as StoreKind, ...QUOTA_ROWS.map((r) => r.kind)])], async (fleet) => {
    const floor = await measureFloor(fleet);
    return { floor, rows: await quotaPart(fleet, floor) };
  });
  const seconds = Math.round((hostNow() - started) / 1000);
  const problems = [...probe.problems, ...quota.problems];
  const context = {
    date: new Date().toISOString().slice(0, 10),
    node: process.version,
    redis: probe.redis,
    cpus: availableParallelism(),
    workers: WORKERS,
    seconds,
    command: 'npm run bench:fleet',
  };
  if (json) {
    console.log(JSON.stringify({ ...context, probe: { site: PROBE, rows: probe.result }, quota: { site: QUOTA, floor: quota.result.floor, rows: quota.result.rows }, problems }, null, 2));
    return;
  }
  const { floor } = quota.result;
  const report = [
    `## Probe: site calls per window that opens when a shared wait ends`,
    '',
    `${WORKERS} worker processes; one \`limitedSite({ windowMs: ${PROBE.windowMs}, windows: ${PROBE.windows} })\` per row, answering at once (loopback) or after ${LATENT_MS} ms (\`latencyMs\`, a site across a network). Worker 0 makes the fleet's first contact alone (it opens window 0 and writes the wait to its store), then all ${WORKERS} loop (client.fetch, default rules: a told or remembered wait is slept out; 20-80 ms between requests) until the site has closed window ${PROBE.windows - 1} and answered a 200. Windows 1-3 open when a shared wait ends; the physical minimum is one call each, and the mean is that ratio. Context: when the calls after each window came, the calls in window 0 (the first contact's; with memory stores every worker learns the wait itself), and the fleet's requests until then, those that ended not ok (told to wait again after sleeping one out) and those answered from the store without a call (a wait longer than maxWaitSeconds).`,
    '',
    probeTable(probe.result),
    '',
    `## Quota: ${QUOTA.requests} requests to a limit of ${QUOTA.limit} per ${QUOTA.windowMs / 1000} s`,
    '',
    `${WORKERS} worker processes send ${QUOTA.requests} requests in all (${shares(QUOTA.requests, WORKERS).join(',')}), one after another each, default rules, to a fresh \`quotaSite({ limit: ${QUOTA.limit}, windowMs: ${QUOTA.windowMs} })\` per row (express-rate-limit, fixed window, RateLimit + RateLimit-Policy draft-7 and X-RateLimit-*, Retry-After on its 429). Wall time: from the batch commands to the last request's end. Floor, measured in this run: ${QUOTA.requests} requests need ${Math.ceil(QUOTA.requests / QUOTA.limit)} windows, so ${Math.ceil(QUOTA.requests / QUOTA.limit) - 1} full windows (${((Math.ceil(QUOTA.requests / QUOTA.limit) - 1) * QUOTA.windowMs) / 1000} s) plus what the last window's ${QUOTA.limit} requests take: ${ms(floor.lastWindowMs)} ms, the median wall time of ${CALIBRATIONS} runs of ${QUOTA.limit} requests (${shares(QUOTA.limit, WORKERS).join(',')} over the workers, unpaced store) to a fresh quotaSite, measured as the rows are (runs: ${floor.calibrations.map(ms).join(', ')} ms; the site's own time per request ${fixed(floor.siteMs)} ms, a request's round trip at the workers ${fixed(floor.requestMs)} ms, medians). A row with failed requests got there by giving up on some: its ratio is not comparable with the floor.`,
    '',
    quotaTable(quota.result.rows, floor),
    '',
    `Rows of a part run at the same time on the same ${WORKERS} processes, each row on a site of its own; each part on a redis-server of its own.`,
    ...(problems.length ? ['', `Worker problems: ${problems.join('; ')}`] : []),
    `Run ${context.date} on Node ${context.node}, redis-server ${context.redis}, ${context.cpus} CPUs, ${seconds} s, with \`${context.command}\`.`,
  ].join('\n');
  console.log(report);
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench', 'results', 'fleet.md'), `# npm run bench:fleet\n\n${report}\n`);
}

main().catch((error: unknown) => {
  console.error(`bench:fleet: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
