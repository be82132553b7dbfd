// The Redis store paces a fleet: the cases every pacing store must pass (test/helpers/pacing.ts),
// run by two workers' stores on two connections, on a standalone Redis and on a real local 3-master
// Redis Cluster, where each site's keys share one hash slot and the copies theirs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisStore, redisKey, type RedisStore, type RedisStoreOptions } from '../../src/agent/redis-store.js';
import type { CachedCopy } from '../../src/agent/store.js';
import { pacingContract } from '../helpers/pacing.js';
import { connectCluster, startCluster, type TestCluster } from '../helpers/redis-cluster.js';
import { cleanUp, connect, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';

const quiet: RedisStoreOptions = { onFallback: () => {}, onRecover: () => {} };

describe('the Redis store paces a fleet on a standalone Redis', () => {
  let redis: TestRedis;
  const clients: Awaited<ReturnType<typeof connect>>[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
    clients.push(await connect(redis.url), await connect(redis.url));
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    if (redis) await cleanUp(redis.url);
    await redis?.stop();
  });

  pacingContract(async (options) => {
    const prefix = uniquePrefix('pacing');
    const stores = clients.map((c) => createRedisStore(c, { ...quiet, ...options, prefix }));
    return [stores[0]!, stores[1]!] as const;
  }, (what) => `https://${what}.example`);
});

describe('the Redis store on a Redis Cluster', () => {
  let cluster: TestCluster;
  const clients: Awaited<ReturnType<typeof connectCluster>>[] = [];
  const stores: RedisStore[] = [];
  let failures: unknown[] = [];
  beforeAll(async () => {
    cluster = await startCluster(3);
    clients.push(await connectCluster(cluster), await connectCluster(cluster));
  }, 60_000);
  afterAll(async () => {
    for (const s of stores) s.detach();
    for (const c of clients) await c.close().catch(() => {});
    await cluster?.stop();
  });

  const make = (options: RedisStoreOptions, prefix = uniquePrefix('cluster')): [RedisStore, RedisStore] => {
    const pair = clients.map((c) => createRedisStore(c, { ...options, prefix, onFallback: (e) => failures.push(e), onRecover: () => {} }));
    stores.push(...pair);
    return [pair[0]!, pair[1]!];
  };

  pacingContract(async (options) => make(options), (what) => `https://${what}-${Math.random().toString(36).slice(2)}.example`);

  it('never fell back: every script ran in the cluster, its keys in one slot', () => {
    expect(failures).toEqual([]);
  });

  it("spreads sites over the masters, one site's keys in one slot", async () => {
    const [a] = make({});
    const sites = Array.from({ length: 24 }, (_, i) => `https://site-${i}.example`);
    for (const site of sites) await a.setBackoff(site, { until: Date.now() + 10_000, error: { code: 'rate_limited', message: 'wait', field: null, retry: 'after_delay', retry_after: 10 } });
    const slotOf = async (key: string) => Number(await clients[0]!.sendCommand(key, true, ['CLUSTER', 'KEYSLOT', key]));
    const masters = new Set<unknown>();
    for (const site of sites) {
      const kinds = await Promise.all((['b', 'p', 'l', 'q'] as const).map((k) => slotOf(redisKey('x:', k, site))));
      expect(new Set(kinds).size).toBe(1);
      masters.add(clients[0]!.getSlotMaster(kinds[0]!).port);
    }
    expect(masters.size).toBe(3);
    expect(failures).toEqual([]);
  });

  it('shares waits and copies between two workers, copies and their index in one slot', async () => {
    const prefix = uniquePrefix('copies');
    const [a, b] = make({ maxBytes: 3000 }, prefix);
    const copy = (body: string): CachedCopy => ({ url: 'https://shop.example/item', status: 200, headers: [['content-type', 'text/plain']], body, storedAt: Date.now() });
    // The LRU index scores copies by the millisecond: each is set in a millisecond of its own, or
    // a tie is broken by name, and https://other.example/3 sorts first.
    const tick = () => new Promise((resolve) => setTimeout(resolve, 3));
    await a.setCopy('https://shop.example/1', copy('x'.repeat(1000)));
    await tick();
    await a.setCopy('https://shop.example/2', copy('y'.repeat(1000)));
    await tick();
    // The third goes over maxBytes: the least recently used is dropped in the same script.
    await b.setCopy('https://other.example/3', copy('z'.repeat(1000)));
    expect(await b.getCopy('https://shop.example/1')).toBeUndefined();
    expect((await b.getCopy('https://shop.example/2'))?.body).toBe('y'.repeat(1000));
    expect((await a.getCopy('https://other.example/3'))?.body).toBe('z'.repeat(1000));
    await b.deleteCopy('https://shop.example/2');
    // (a keeps its own in its fallback; a worker that never held it finds none.)
    const [c] = make({ maxBytes: 3000 }, prefix);
    expect(await c.getCopy('https://shop.example/2')).toBeUndefined();
    expect((await c.getCopy('https://other.example/3'))?.body).toBe('z'.repeat(1000));
    await a.setBackoff('https://shop.example', { until: Date.now() + 5000, error: { code: 'rate_limited', message: 'wait', field: null, retry: 'after_delay', retry_after: 5 } });
    expect((await b.getBackoff('https://shop.example'))?.error.message).toBe('wait');
    expect(failures).toEqual([]);
  });
});
