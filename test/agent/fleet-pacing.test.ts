// A fleet of worker processes paced through one real Redis, and through a real local 3-master Redis
// Cluster: one probe per window when a shared wait ends (the window's end included), no 429 from a
// site that announces its quota (a real express-rate-limit), and a lease holder killed mid-call
// that stalls nobody past its lease. Each case runs a control beside it (no probe, no pacing) on
// the same fleet, which shows what the pacing prevents, so the case could fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limitedSite, pause, quotaSite, startFleet, until, type CallsReport, type LoopReport, type Status, type StoreKind, type Worker } from '../helpers/fleet.js';
import { startCluster } from '../helpers/redis-cluster.js';
import { cleanUp, sharedRedis, uniquePrefix } from '../helpers/redis.js';

const WORKERS = 8;
const LEASE_MS = 1000;

/** Where the fleet keeps what it shares: the run's Redis, or a cluster of the file's own. */
const BACKENDS = [
  {
    name: 'one Redis',
    async start() {
      const redis = await sharedRedis();
      return { url: redis.url, env: {}, stop: async () => (await cleanUp(redis.url), await redis.stop()) };
    },
  },
  {
    name: 'a Redis Cluster of 3 masters',
    async start() {
      const cluster = await startCluster(3);
      return { url: cluster.urls[0]!, env: { REDIS_CLUSTER_URLS: cluster.urls.join(' ') }, stop: cluster.stop };
    },
  },
];

describe.each(BACKENDS)('a fleet of 8 worker processes paced through $name', (backend) => {
  let stop: (() => Promise<unknown>) | undefined;
  let fleet: Worker[] = [];
  beforeAll(async () => {
    const { url, env, stop: stopBackend } = await backend.start();
    stop = stopBackend;
    fleet = await startFleet(WORKERS, url, uniquePrefix('fleet-pacing'), { probeLeaseMs: LEASE_MS, env });
  }, 90_000);
  afterAll(async () => {
    await Promise.all(fleet.map((w) => w.close()));
    await stop?.();
  });

  /** Every worker loops on `url` until `done`, then ends its loop. */
  async function loopUntil(url: string, store: StoreKind, done: () => boolean, ms: number): Promise<LoopReport[]> {
    await Promise.all(fleet.map((w) => w.send({ op: 'loop', url, store })));
    try {
      await until(`the site at ${url} was done`, done, ms);
    } finally {
      // eslint-disable-next-line no-unsafe-finally
      return (await Promise.all(fleet.map((w) => w.send({ op: 'endLoop', url })))) as LoopReport[];
    }
  }

  it('makes one call per window when shared waits end, the last one included; without the probe every waiting worker calls', async () => {
    // A site across a network (150 ms): the moment in which waiting workers could call before the
    // first answer is known is that long.
    const [probed, herd] = await Promise.all([0, 1].map(() => limitedSite({ windowMs: 2000, windows: 3, latencyMs: 150 })));
    // The fleet's first contact: one worker, one call, which writes the wait to Redis.
    for (const [site, store] of [[probed, 'redis'], [herd, 'redis-noprobe']] as const) {
      expect(await fleet[0]!.send({ op: 'client', url: site!.url, store })).toMatchObject({ ok: false, code: 'rate_limited' });
    }
    await Promise.all([
      loopUntil(probed!.url, 'redis', () => probed!.finished(), 20_000),
      loopUntil(herd!.url, 'redis-noprobe', () => herd!.finished(), 20_000),
    ]);
    console.log(`site calls per 2 s window, 8 workers: probe lease ${probed!.callsPerWindow().join(', ')}; no probe ${herd!.callsPerWindow().join(', ')}`);
    expect(probed!.callsPerWindow()).toEqual([1, 1, 1]);
    // The window's end: the first call after the last window is alone until it has been answered.
    const after = probed!.arrivals.filter((a) => a.window === null);
    expect(after[0]!.status).toBe(200);
    expect(after.slice(1).every((a) => a.at >= after[0]!.answered!)).toBe(true);
    // The control: without the lease, the workers that slept out the wait all call when it ends.
    expect(herd!.callsPerWindow().slice(1).some((calls) => calls > 1)).toBe(true);
    await Promise.all([probed!.close(), herd!.close()]);
  }, 60_000);

  it('sends no request a real rate limiter refuses once it has announced its quota; without pacing it refuses many', async () => {
    const [paced, unpaced] = await Promise.all([0, 1].map(() => quotaSite({ limit: 5, windowMs: 2000 })));
    // The quota is announced to the fleet by its first call; 8 workers calling at once before any
    // answer had said it would overrun a limit of 5 whatever they shared.
    for (const [site, store] of [[paced, 'redis'], [unpaced, 'redis-unpaced']] as const) {
      expect(await fleet[0]!.send({ op: 'client', url: `${site!.url}/items`, store })).toMatchObject({ ok: true });
    }
    const shares = [3, 3, 3, 3, 2, 2, 2, 2]; // 20 more requests: four more windows of 5
    await Promise.all(
      [
        [paced, 'redis'],
        [unpaced, 'redis-unpaced'],
      ].flatMap(([site, store]) => fleet.map((w, i) => w.send({ op: 'batch', url: `${(site as typeof paced)!.url}/items`, store: store as StoreKind, count: shares[i]! }))),
    );
    console.log(`20 requests to a limit of 5 per 2 s, 8 workers: paced ${paced!.limited()} refused; unpaced ${unpaced!.limited()} refused`);
    expect(paced!.limited()).toBe(0);
    expect(paced!.ok()).toBe(21);
    expect(unpaced!.limited()).toBeGreaterThan(0);
    await Promise.all([paced!.close(), unpaced!.close()]);
  }, 60_000);

  it('passes the probe on when its holder is killed mid-call: no other call while the lease holds, and one soon after it runs out', async () => {
    const site = await limitedSite({ windowMs: 1000, windows: 1 });
    expect(await fleet[0]!.send({ op: 'client', url: site.url, store: 'redis' })).toMatchObject({ ok: false, code: 'rate_limited' });
    // The probe, the first call after the wait, never gets its answer: its worker dies waiting.
    site.hangNext();
    const loops = fleet.map((w) => w.send({ op: 'loop', url: site.url, store: 'redis' }));
    await Promise.all(loops);
    await until('the probe arrived and hangs', () => site.held() === 1, 10_000);
    const holding = await Promise.all(fleet.map(async (w) => ((await w.send({ op: 'calls' })) as CallsReport).inFlight.length > 0));
    expect(holding.filter(Boolean)).toHaveLength(1);
    const holder = fleet[holding.indexOf(true)]!;
    const hung = site.arrivals.find((a) => a.hung)!;
    await holder.kill();
    fleet.splice(fleet.indexOf(holder), 1);

    await until('another worker called', () => site.arrivals.some((a) => a.at > hung.at && a.status === 200), 10_000);
    const takeover = site.arrivals.find((a) => a.at > hung.at)!;
    await pause(200);
    await Promise.all(fleet.map((w) => w.send({ op: 'endLoop', url: site.url })));
    console.log(`probe holder killed; the next call came ${Math.round(takeover.at - hung.at)} ms after the hung one (lease ${LEASE_MS} ms)`);
    // Nobody called while the dead worker's lease held...
    expect(takeover.at - hung.at).toBeGreaterThanOrEqual(LEASE_MS - 50);
    // ...and one worker did soon after it ran out (a follower looks every 100 ms; the slack is for a loaded machine).
    expect(takeover.at - hung.at).toBeLessThan(LEASE_MS + 2000);
    // It alone, until its answer came.
    expect(site.arrivals.filter((a) => a.at > hung.at && a.at < takeover.answered!)).toHaveLength(1);
    await site.close();
  }, 60_000);

  it('answered every store call from Redis: no worker fell back to its own memory', async () => {
    const statuses = (await Promise.all(fleet.map((w) => w.send({ op: 'status' })))) as Status[];
    for (const status of statuses) expect(status).toMatchObject({ ready: true, degraded: false, fallbacks: [], otherFallbacks: 0, problems: [] });
  });
});
