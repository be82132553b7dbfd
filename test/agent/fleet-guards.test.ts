// The fleet's guards end to end (issue 38): worker processes (test/helpers/fleet-worker.ts) on one
// real Redis, each with createRedisStore's defaults, against real loopback sites that fail. The
// circuit stops the fleet calling a site that is down but for one probe per window, and lets it
// call again as soon as a probe succeeds; the retry budget bounds the retries of the whole fleet;
// a healthy site costs Redis next to nothing (each worker mirrors what the fleet knows, kept
// current by pub/sub); a wait answers only the requests its signal covers, naming where it was
// learnt; and a Redis that dies mid-outage leaves each worker on its own memory, said once.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READERS } from '../../generated/catalog.js';
import { hostNow, pause, startWorker, until, type LoopReport, type RequestRecord, type Status, type StoreKind, type Worker } from '../helpers/fleet.js';
import { outageSite, type OutageSite } from '../helpers/outage-site.js';
import { cleanUp, privateRedis, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';
import { serve, type TestServer } from '../helpers/server.js';

const WORKERS = 3;
/** Request loops per worker, each on its own query string of the same origin (one scope). */
const LOOPS = 3;
/** The circuit's shortest window (createRedisStore's default openMs). */
const OPEN_MS = 250;

/** Starts LOOPS loops per worker on `url` (one scope: the query differs), under store `kind`. */
async function startLoops(workers: readonly Worker[], url: string, kind: StoreKind, loops = LOOPS): Promise<string[]> {
  const urls = Array.from({ length: loops }, (_, i) => `${url}?loop=${i}`);
  await Promise.all(workers.flatMap((w) => urls.map((u) => w.send({ op: 'loop', url: u, store: kind }))));
  return urls;
}

/** Ends the loops startLoops began; every request of every loop. */
async function endLoops(workers: readonly Worker[], urls: readonly string[]): Promise<RequestRecord[][]> {
  const reports = (await Promise.all(workers.map((w) => Promise.all(urls.map((u) => w.send({ op: 'endLoop', url: u }) as Promise<LoopReport>))))) as LoopReport[][];
  return reports.map((perWorker) => perWorker.flatMap((r) => r.requests));
}

describe('the fleet guards a site that fails', () => {
  let redis: TestRedis;
  let workers: Worker[] = [];
  const sites: TestServer[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
    const prefix = uniquePrefix('guards');
    workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(redis.url, prefix)));
  }, 20_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(sites.map((s) => s.close()));
    if (redis) await cleanUp(redis.url);
    await redis?.stop();
  });

  it('stops calling a site that is down but for one probe per window, then every worker succeeds within 2 s of its recovery', async () => {
    const site = await outageSite();
    sites.push(site);
    const urls = await startLoops(workers, `${site.url}/items`, 'redis');
    await pause(1000);
    const down = site.setMode('down');
    await pause(4000);
    const up = site.setMode('healthy');
    await pause(2500);
    const perWorker = await endLoops(workers, urls);
    const all = perWorker.flat();
    // Requests while down: most answered without a call, by the open circuit, from memory.
    const during = all.filter((r) => r.started >= down && r.started < up);
    const held = during.filter((r) => r.throttled === 'circuit');
    // Most held without a call at all, answered from memory; the rest called once, and their retry was held back.
    const uncalled = held.filter((r) => r.calls.length === 0);
    expect(uncalled.every((r) => r.remembered && r.code === READERS.signals.circuit_open)).toBe(true);
    expect(uncalled.length).toBeGreaterThan(during.length / 2);
    expect(held.every((r) => r.calls.length <= 1)).toBe(true);
    // Open (within the circuit's window of 1 to 2 s of calls, a little more for the calls then on
    // their way), the site sees one probe per window: no two calls closer than the shortest window.
    const opened = Math.min(...uncalled.map((r) => r.started));
    expect(opened - down).toBeLessThan(2500);
    const late = site.arrivals.map((a) => a.at).filter((t) => t >= opened + 100 && t < up);
    expect(late.length).toBeGreaterThan(0);
    for (let i = 1; i < late.length; i++) expect(late[i]! - late[i - 1]!).toBeGreaterThanOrEqual(OPEN_MS - 5);
    // Recovery: each worker's first success after the switch comes within 2 s of it.
    for (const requests of perWorker) {
      const first = requests.find((r) => r.ok && r.ended > up);
      expect(first, 'a worker succeeded after the recovery').toBeDefined();
      expect(first!.ended - up).toBeLessThan(2000);
    }
  }, 30_000);

  it('keeps calling the endpoints that work while another endpoint of the origin fails', async () => {
    const site = await serve((req, res) => res.writeHead(req.url?.startsWith('/bad') ? 500 : 200, { 'content-type': 'application/json' }).end('{}'));
    sites.push(site);
    const bad = await startLoops(workers, `${site.url}/bad`, 'redis', 1);
    const good = await startLoops(workers, `${site.url}/good`, 'redis', 1);
    await pause(3000);
    const goodRequests = (await endLoops(workers, good)).flat();
    await endLoops(workers, bad);
    expect(goodRequests.length).toBeGreaterThan(20);
    expect(goodRequests.filter((r) => !r.ok)).toEqual([]);
  }, 20_000);

  it('bounds the retries of the whole fleet to the retry budget: a floor of 3 and a tenth of the requests', async () => {
    const site = await outageSite({ mode: 'down' });
    sites.push(site);
    const urls = await startLoops(workers, `${site.url}/items`, 'redis-nocircuit');
    await pause(3000);
    const all = (await endLoops(workers, urls)).flat();
    const retried = all.filter((r) => r.calls.length === 2).length;
    const refused = all.filter((r) => r.throttled === 'retry_budget').length;
    expect(all.length).toBeGreaterThan(30);
    expect(retried).toBeGreaterThanOrEqual(3);
    expect(retried).toBeLessThanOrEqual(3 + 0.1 * all.length);
    // Every other failure says why it was not retried.
    expect(retried + refused).toBe(all.length);
  }, 20_000);

  it("answers a wait only where its signal covers: one endpoint's 503 holds that endpoint, a 429 the origin, naming where it was learnt", async () => {
    const site = await serve((req, res) => {
      if (req.url === '/a') return res.writeHead(503, { 'retry-after': '60', 'content-type': 'text/plain' }).end('Search is unavailable');
      if (req.url === '/c') return res.writeHead(429, { 'retry-after': '60', 'content-type': 'text/plain' }).end('Too many requests');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    sites.push(site);
    const [w0, w1, w2] = workers as [Worker, Worker, Worker];
    expect(await w0.send({ op: 'client', url: `${site.url}/a`, store: 'redis' })).toMatchObject({ ok: false, remembered: false });
    await until('worker 1 hears of the wait on /a', async () => (await w1.send({ op: 'client', url: `${site.url}/a`, store: 'redis' })).remembered === true, 3000);
    expect(await w1.send({ op: 'client', url: `${site.url}/a`, store: 'redis' })).toMatchObject({ ok: false, remembered: true, learnt: { url: `${site.url}/a` } });
    expect(await w1.send({ op: 'client', url: `${site.url}/b`, store: 'redis' })).toMatchObject({ ok: true });
    expect(await w0.send({ op: 'client', url: `${site.url}/c`, store: 'redis' })).toMatchObject({ ok: false, remembered: false });
    await until('worker 2 hears of the rate limit', async () => (await w2.send({ op: 'client', url: `${site.url}/d`, store: 'redis' })).remembered === true, 3000);
    expect(await w2.send({ op: 'client', url: `${site.url}/b`, store: 'redis' })).toMatchObject({ ok: false, remembered: true, code: 'rate_limited', learnt: { url: `${site.url}/c` } });
  }, 20_000);

  it('serves the copy a worker kept, with why, while the circuit is open', async () => {
    const site = await outageSite();
    sites.push(site);
    const [w0, w1] = workers as [Worker, Worker];
    expect(await w1.send({ op: 'fetch', url: `${site.url}/page`, store: 'redis' })).toMatchObject({ ok: true, stale: false });
    site.setMode('down');
    const urls = await startLoops([w0], `${site.url}/items`, 'redis');
    try {
      await until('the circuit opens', async () => (await w1.send({ op: 'client', url: `${site.url}/other`, store: 'redis' })).code === READERS.signals.circuit_open, 8000);
      const calls = site.arrivals.length;
      const page = await w1.send({ op: 'fetch', url: `${site.url}/page`, store: 'redis' });
      expect(page).toMatchObject({ ok: true, stale: true, stale_because: { code: READERS.signals.circuit_open } });
      expect(site.arrivals.length - calls).toBeLessThanOrEqual(1);
    } finally {
      await endLoops([w0], urls);
    }
  }, 20_000);
});

describe('a healthy site', () => {
  let redis: TestRedis;
  let workers: Worker[] = [];
  beforeAll(async () => {
    redis = await privateRedis();
    workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(redis.url, uniquePrefix('guards-healthy'))));
  }, 20_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await redis?.stop();
  });

  it('costs Redis at most 0.05 commands per call (INFO commandstats, the scripts\' own commands included) once each worker has had an answer', async () => {
    const site = await outageSite();
    const raw = createClient({ url: redis.url });
    raw.on('error', () => {});
    await raw.connect();
    try {
      const urls = await startLoops(workers, `${site.url}/items`, 'redis');
      await pause(700);
      const before = commands(await raw.info('commandstats'));
      const from = hostNow();
      await pause(2500);
      const after = commands(await raw.info('commandstats'));
      const to = hostNow();
      await endLoops(workers, urls);
      const calls = site.callsBetween(from, to);
      expect(calls).toBeGreaterThan(100);
      // Every command but this test's own (info) and the connections' setup.
      const own = new Set(['info', 'config', 'subscribe', 'ping', 'hello', 'client', 'select', 'auth']);
      const used = [...after].filter(([name]) => !own.has(name)).reduce((n, [name, c]) => n + c - (before.get(name) ?? 0), 0);
      expect(used / calls).toBeLessThanOrEqual(0.05);
    } finally {
      raw.destroy();
      await site.close();
    }
  }, 20_000);
});

describe('a Redis that dies in the middle of an outage', () => {
  let redis: TestRedis;
  let workers: Worker[] = [];
  let site: OutageSite;
  beforeAll(async () => {
    redis = await privateRedis();
    const prefix = uniquePrefix('guards-down');
    workers = await Promise.all(Array.from({ length: 2 }, () => startWorker(redis.url, prefix)));
    site = await outageSite({ mode: 'down' });
  }, 20_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await site?.close();
    await redis?.stop();
  });

  it('leaves each worker on its own memory, its own circuit still guarding the site, said once; and back on Redis when it returns', async () => {
    const urls = await startLoops(workers, `${site.url}/items`, 'redis', 3);
    await pause(2500);
    await redis.kill();
    const killed = hostNow();
    await pause(4000);
    const statuses = (await Promise.all(workers.map((w) => w.send({ op: 'status' })))) as Status[];
    await redis.restart();
    await until('every worker answers from Redis again', async () => ((await Promise.all(workers.map((w) => w.send({ op: 'status' })))) as Status[]).every((s) => s.recoveries >= 1), 10_000);
    const all = (await endLoops(workers, urls)).flat();
    for (const status of statuses) {
      expect(status.degraded).toBe(true);
      expect(status.fallbacks).toHaveLength(1);
      expect(status.problems).toEqual([]);
    }
    // Without Redis, every request still ends, and each worker's own circuit opens once it has
    // seen enough failures of its own (its memory store's, with the same options).
    const afterKill = all.filter((r) => r.started >= killed && r.started < killed + 4000);
    expect(afterKill.length).toBeGreaterThan(10);
    expect(Math.max(...afterKill.map((r) => r.ended - r.started))).toBeLessThan(2000);
    expect(afterKill.some((r) => r.throttled === 'circuit')).toBe(true);
  }, 40_000);
});

/** INFO commandstats as { command: calls }. */
function commands(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const m of info.matchAll(/^cmdstat_([^:|]+)[^:]*:calls=(\d+)/gm)) calls.set(m[1]!, (calls.get(m[1]!) ?? 0) + Number(m[2]));
  return calls;
}
