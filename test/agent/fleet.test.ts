// Fleet mode end to end: worker processes (test/helpers/fleet-worker.ts, started by the harness in
// test/helpers/fleet.ts) share one real Redis through createRedisStore, against real loopback sites.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READERS } from '../../generated/catalog.js';
import { hostNow, perWindow as windowsOf, startWorker, until, type HammerReport, type Status, type StoreKind, type Worker } from '../helpers/fleet.js';
import { cleanUp, privateRedis, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';
import { serve, type TestServer } from '../helpers/server.js';

const WORKERS = 4;
const WINDOW_MS = 5000; // the site's Retry-After: 5
const WINDOWS = 2;
// The worker processes' clocks and this one's are one host clock, read a little apart.
const CLOCK_SLACK_MS = 2;

/** A site that rate-limits every request with Retry-After: 5, and records when each arrived. */
async function rateLimitedSite(): Promise<TestServer & { arrivals: number[] }> {
  const arrivals: number[] = [];
  const server = await serve((_req, res) => {
    arrivals.push(hostNow());
    res.writeHead(429, { 'retry-after': String(WINDOW_MS / 1000), 'content-type': 'text/plain' }).end('Too many requests');
  });
  return Object.assign(server, { arrivals });
}

/** Calls per window: a window opens with the first call after the last one closed, and lasts WINDOW_MS. */
const perWindow = (arrivals: readonly number[]) => windowsOf(arrivals, WINDOW_MS);

describe('a fleet of worker processes on one Redis', () => {
  let redis: TestRedis;
  let workers: Worker[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
    const prefix = uniquePrefix('fleet');
    workers = await Promise.all(Array.from({ length: WORKERS }, () => startWorker(redis.url, prefix)));
  }, 20_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    if (redis) await cleanUp(redis.url);
    await redis?.stop();
  });

  it('calls a rate-limited site about once per Retry-After window from the whole fleet, and never after the wait is shared; memory stores call once per worker', async () => {
    const shared = await rateLimitedSite();
    const separate = await rateLimitedSite();
    const targets: { url: string; store: StoreKind }[] = [
      { url: `${shared.url}/search`, store: 'redis' },
      { url: `${separate.url}/search`, store: 'memory' },
    ];
    // Warm each worker first (its first fetch loads undici, its first script call loads the script
    // into Redis), so the windows measure a running fleet rather than four cold starts at once.
    const warm = await serve((req, res) => res.writeHead(req.url === '/busy' ? 429 : 200, { 'retry-after': '1' }).end());
    for (const w of workers) for (const path of ['/', '/busy']) await w.send({ op: 'client', url: `${warm.url}${path}`, store: 'redis' });
    await warm.close();
    await Promise.all(workers.map((w) => w.send({ op: 'hammer', targets, intervalMs: 100 })));
    // Until both sites have seen WINDOWS whole windows.
    const closed = (site: { arrivals: number[] }) => perWindow(site.arrivals).filter((w) => w.opened + WINDOW_MS <= hostNow()).length;
    await until('both sites saw two whole windows', () => closed(shared) >= WINDOWS && closed(separate) >= WINDOWS, 3 * WINDOWS * WINDOW_MS);
    const reports = (await Promise.all(workers.map((w) => w.send({ op: 'stop' })))).flat() as HammerReport[];
    await Promise.all([shared.close(), separate.close()]);

    const of = (kind: StoreKind) => reports.filter((r) => r.store === kind);
    const sharedWindows = perWindow(shared.arrivals).slice(0, WINDOWS);
    const separateCounts = perWindow(separate.arrivals).slice(0, WINDOWS).map((w) => w.calls);
    // A call raced the fleet's first when it looked at the store before that 429 was written there.
    const learnt = of('redis').flatMap((r) => r.learnt).sort((a, b) => a - b);
    const misses = of('redis').flatMap((r) => r.misses);
    const raced = sharedWindows.map((w) => {
      const first = learnt.find((t) => t >= w.opened);
      if (first === undefined) throw new Error(`no worker wrote the wait of the window opened at ${w.opened}`);
      return { ...w, first, late: misses.filter((t) => t > first + CLOCK_SLACK_MS && t < w.opened + WINDOW_MS - CLOCK_SLACK_MS).length };
    });
    const asked = (kind: StoreKind) => of(kind).reduce((n, r) => n + r.sent + r.remembered, 0);
    console.log(
      `fleet of ${WORKERS} workers, site calls per ${WINDOW_MS / 1000} s window: ` +
        `Redis store ${raced.map((w) => w.calls).join(', ')} of ${asked('redis')} requests; ` +
        `memory stores ${separateCounts.join(', ')} of ${asked('memory')} requests`,
    );
    // The workers' own counts agree with the sites'.
    expect(of('redis').reduce((n, r) => n + r.sent, 0)).toBe(shared.arrivals.length);
    expect(of('memory').reduce((n, r) => n + r.sent, 0)).toBe(separate.arrivals.length);
    // Each worker's own store lets exactly its first request of a window through.
    expect(separateCounts).toEqual(Array(WINDOWS).fill(WORKERS));
    // On the shared store, once one worker has written the site's wait, no worker calls the site
    // again in that window: the only extra calls are those that looked before the write, and a
    // worker's own retry after sleeping out the previous window's wait (a race
    // that grows with load, which is why this counts it rather than bounding it).
    expect(raced.map((w) => w.late)).toEqual(Array(WINDOWS).fill(0));
    // And the fleet as a whole called less than workers on stores of their own did.
    expect(raced.reduce((n, w) => n + w.calls, 0)).toBeLessThan(separateCounts.reduce((n, c) => n + c, 0));
    // Every worker hammered, and on the shared store most of it was answered from Redis.
    for (const r of of('redis')) expect(r.remembered).toBeGreaterThan(r.sent);
  }, 40_000);

  it('serves a copy one worker saved to another worker when the site goes down, with stale_because', async () => {
    const site = await serve((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Item 42</title>'));
    const url = `${site.url}/item/42`;
    const [saver, reader] = workers as [Worker, Worker];
    expect(await saver.send({ op: 'fetch', url, store: 'redis' })).toMatchObject({ ok: true, stale: false });
    await site.close();

    const page = await reader.send({ op: 'fetch', url, store: 'redis' });
    expect(page).toMatchObject({ ok: true, stale: true, status: 200, body: '<title>Item 42</title>', stale_because: { code: READERS.signals.network_failure } });
    expect(page.age_seconds).toBeGreaterThanOrEqual(0);
    // The same worker without the shared store has no copy to give.
    expect(await reader.send({ op: 'fetch', url, store: 'memory' })).toMatchObject({ ok: false, error: { code: READERS.signals.network_failure } });
  });
});

describe('a fleet whose Redis stops mid-run', () => {
  let redis: TestRedis;
  let workers: Worker[] = [];
  const sites: TestServer[] = [];
  beforeAll(async () => {
    redis = await privateRedis();
    const prefix = uniquePrefix('outage');
    workers = await Promise.all([startWorker(redis.url, prefix), startWorker(redis.url, prefix)]);
  }, 20_000);
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all(sites.map((s) => s.close()));
    await redis?.stop();
  });

  it('keeps working on local state, says so once per worker, and shares again when Redis is back', async () => {
    const site = async (status: number, headers: Record<string, string>, body: string) => {
      const s = await serve((_req, res) => res.writeHead(status, headers).end(body));
      sites.push(s);
      return s;
    };
    const limited = await site(429, { 'retry-after': '30' }, 'slow down');
    const page = await site(200, { 'content-type': 'text/plain' }, 'v1');
    const [a, b] = workers as [Worker, Worker];

    // Before: what A learns, B knows.
    expect(await a.send({ op: 'fetch', url: page.url, store: 'redis' })).toMatchObject({ ok: true, stale: false, body: 'v1' });
    expect(await a.send({ op: 'client', url: limited.url, store: 'redis' })).toMatchObject({ ok: false, remembered: false, retry_after: 30 });
    expect(await b.send({ op: 'client', url: limited.url, store: 'redis' })).toMatchObject({ ok: false, remembered: true });
    expect(limited.calls()).toBe(1);

    await redis.kill();
    await page.close();
    const later = await site(429, { 'retry-after': '30' }, 'slow down');

    // During: every request gets an answer, from what each worker holds.
    for (const w of [a, b]) expect(await w.send({ op: 'client', url: limited.url, store: 'redis' })).toMatchObject({ ok: false, remembered: true });
    expect(limited.calls()).toBe(1);
    expect(await a.send({ op: 'fetch', url: page.url, store: 'redis' })).toMatchObject({ ok: true, stale: true, body: 'v1' });
    // B never held the copy, and Redis cannot lend it: a plain failure, not a crash.
    expect(await b.send({ op: 'fetch', url: page.url, store: 'redis' })).toMatchObject({ ok: false, error: { code: READERS.signals.network_failure } });
    // New knowledge stays local: A remembers the new site's wait, B has to learn it itself.
    expect(await a.send({ op: 'client', url: later.url, store: 'redis' })).toMatchObject({ ok: false, remembered: false });
    expect(await a.send({ op: 'client', url: later.url, store: 'redis' })).toMatchObject({ ok: false, remembered: true });
    expect(await b.send({ op: 'client', url: later.url, store: 'redis' })).toMatchObject({ ok: false, remembered: false });
    expect(later.calls()).toBe(2);
    for (const w of [a, b]) {
      const status: Status = await w.send({ op: 'status' });
      expect(status).toMatchObject({ degraded: true, recoveries: 0, problems: [] });
      expect(status.fallbacks).toHaveLength(1);
    }

    // After: the clients reconnect, each worker says so once, and the fleet shares again.
    await redis.restart();
    await until('both workers reconnected', async () => (await Promise.all(workers.map((w) => w.send({ op: 'status' })))).every((s: Status) => s.ready));
    const again = await site(429, { 'retry-after': '30' }, 'slow down');
    expect(await a.send({ op: 'client', url: again.url, store: 'redis' })).toMatchObject({ ok: false, remembered: false });
    expect(await b.send({ op: 'client', url: again.url, store: 'redis' })).toMatchObject({ ok: false, remembered: true });
    expect(again.calls()).toBe(1);
    for (const w of [a, b]) {
      const status: Status = await w.send({ op: 'status' });
      expect(status).toMatchObject({ degraded: false, recoveries: 1, problems: [] });
      expect(status.fallbacks).toHaveLength(1);
    }
  }, 30_000);
});
