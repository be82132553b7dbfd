// The Redis store against a real redis-server on loopback: each "worker" here is its own client
// and store, as separate processes would be (test/agent/fleet.test.ts runs real processes).
import * as fc from 'fast-check';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentClient } from '../../src/agent/client.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { createRedisStore, redisKey, type RedisStoreOptions } from '../../src/agent/redis-store.js';
import { createMemoryStore, type Backoff, type CachedCopy, type Store } from '../../src/agent/store.js';
import { cleanUp, connect, privateRedis, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';
import { serve, virtualClock } from '../helpers/server.js';

const error = { code: 'rate_limited', message: 'Too many requests', field: null, retry: 'after_delay' as const, retry_after: 30 };
const copy = (body: string, storedAt = Date.now()): CachedCopy => ({ url: 'https://a.example/', status: 200, headers: [['content-type', 'text/plain']], body, storedAt });
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fallback that remembers nothing, so a store built on it answers only from Redis. */
const forgetful = (): Store => ({ getBackoff: () => undefined, setBackoff: () => {}, getCopy: () => undefined, setCopy: () => {}, deleteCopy: () => {} });

/** Every char code 0 to 0xFFFF, lone surrogates included. */
const anyString = (maxLength = 40) => fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength });

type Client = Awaited<ReturnType<typeof connect>>;

describe('the Redis store', () => {
  let redis: TestRedis;
  let raw: Client;
  const clients: Client[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
    raw = await connect(redis.url);
    raw.on('error', () => {});
  });
  afterAll(async () => {
    for (const c of [raw, ...clients]) c?.destroy();
    if (redis) await cleanUp(redis.url);
    await redis?.stop();
  });

  /** A worker: a client of its own and a store on it. */
  async function worker(prefix: string, options: RedisStoreOptions = {}) {
    const client = await connect(redis.url);
    clients.push(client);
    return createRedisStore(client, { prefix, ...options });
  }

  it('answers a wait one worker learnt to another, counting down from what Redis has left', async () => {
    const prefix = uniquePrefix('backoff');
    const [a, b] = [await worker(prefix), await worker(prefix)];
    await a.setBackoff('https://a.example', { until: Date.now() + 30_000, error });
    const seen = await b.getBackoff('https://a.example');
    expect(seen?.error).toEqual(error);
    expect(seen!.until - Date.now()).toBeGreaterThan(29_000);
    expect(seen!.until - Date.now()).toBeLessThanOrEqual(30_000);
  });

  it('lets Redis expire a wait by itself (PX), after which no worker sees it', async () => {
    const prefix = uniquePrefix('expiry');
    const [a, b] = [await worker(prefix), await worker(prefix, { fallback: forgetful() })];
    await a.setBackoff('o', { until: Date.now() + 150, error });
    const ttl = await raw.pTTL(redisKey(prefix, 'b', 'o'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(150);
    await pause(250);
    expect(await raw.exists(redisKey(prefix, 'b', 'o'))).toBe(0);
    expect(await b.getBackoff('o')).toBeUndefined();
  });

  it.each([
    ['the longer first', 60, 10],
    ['the shorter first', 10, 60],
  ])('keeps the longer of two waits from two workers (%s)', async (_name, first, second) => {
    const prefix = uniquePrefix('longer');
    const [a, b, c] = [await worker(prefix), await worker(prefix), await worker(prefix, { fallback: forgetful() })];
    await a.setBackoff('o', { until: Date.now() + first * 1000, error: { ...error, retry_after: first } });
    await b.setBackoff('o', { until: Date.now() + second * 1000, error: { ...error, retry_after: second } });
    const seen = await c.getBackoff('o');
    expect(seen?.error.retry_after).toBe(60);
    expect(Math.ceil((seen!.until - Date.now()) / 1000)).toBe(60);
  });

  it('never lets clock skew between workers lengthen or shorten a wait', async () => {
    const prefix = uniquePrefix('skew');
    const reader = await worker(prefix, { fallback: forgetful() });
    const client = await connect(redis.url);
    clients.push(client);
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -86_400_000, max: 86_400_000 }), fc.integer({ min: 1, max: 600 }), async (skew, seconds) => {
        const writerNow = () => Date.now() + skew;
        const writer = createRedisStore(client, { prefix, now: writerNow });
        const key = `o${n++}`;
        await writer.setBackoff(key, { until: writerNow() + seconds * 1000, error: { ...error, retry_after: seconds } });
        writer.detach();
        const seen = await reader.getBackoff(key);
        // The whole seconds a client hands back are the ones the site asked for, whatever the skew.
        expect(Math.ceil((seen!.until - Date.now()) / 1000)).toBe(seconds);
      }),
      { numRuns: 30 },
    );
  });

  it('serves a copy one worker saved to another, as it was stored', async () => {
    const prefix = uniquePrefix('copy');
    const [a, b] = [await worker(prefix), await worker(prefix)];
    await a.setCopy('GET https://a.example/', copy('v1', 1_700_000_000_000));
    expect(await b.getCopy('GET https://a.example/')).toEqual(copy('v1', 1_700_000_000_000));
  });

  it('gives distinct store keys distinct Redis keys, byte for byte, lone surrogates included', () => {
    // UTF-8 turns both lone surrogates into U+FFFD: written as they are, these would be one key.
    expect(Buffer.from('\uD800').equals(Buffer.from('\uDC00'))).toBe(true);
    expect(Buffer.from(redisKey('p:', 'c', '\uD800')).equals(Buffer.from(redisKey('p:', 'c', '\uDC00')))).toBe(false);
    fc.assert(
      fc.property(anyString(), anyString(), fc.constantFrom('b' as const, 'c' as const), (a, b, kind) => {
        if (a === b) return;
        expect(Buffer.from(redisKey('p:', kind, a)).equals(Buffer.from(redisKey('p:', kind, b)))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips any key and any copy through Redis, and never lets two keys share a copy', async () => {
    const prefix = uniquePrefix('roundtrip');
    const [a, b] = [await worker(prefix), await worker(prefix, { fallback: forgetful() })];
    const anyCopy = fc.record({
      url: fc.webUrl(),
      status: fc.integer({ min: 200, max: 299 }),
      headers: fc.array(fc.tuple(fc.stringMatching(/^[a-z-]{1,12}$/), anyString(20)), { maxLength: 4 }),
      body: anyString(200),
      storedAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    });
    await fc.assert(
      fc.asyncProperty(anyString(), anyString(), anyCopy, anyCopy, async (k1, k2, c1, c2) => {
        if (k1 === k2) return;
        await a.setCopy(k1, c1);
        await a.setCopy(k2, c2);
        expect(await b.getCopy(k1)).toEqual(c1);
        expect(await b.getCopy(k2)).toEqual(c2);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps a copy over maxCopyBytes with the worker that saved it only', async () => {
    const prefix = uniquePrefix('big');
    const [a, b] = [await worker(prefix, { maxCopyBytes: 500 }), await worker(prefix, { fallback: forgetful() })];
    await a.setCopy('big', copy('x'.repeat(1000)));
    await a.setCopy('small', copy('x'.repeat(100)));
    expect((await a.getCopy('big'))?.body).toHaveLength(1000);
    expect(await b.getCopy('big')).toBeUndefined();
    expect(await raw.exists(redisKey(prefix, 'c', 'big'))).toBe(0);
    expect((await b.getCopy('small'))?.body).toHaveLength(100);
  });

  it('lets copies expire after copyTtlSeconds, forgets their bytes, and lets the index keys expire too', async () => {
    const prefix = uniquePrefix('ttl');
    const [a, b] = [await worker(prefix, { copyTtlSeconds: 0.4 }), await worker(prefix, { fallback: forgetful() })];
    const member = (key: string) => redisKey(prefix, 'c', key);
    await a.setCopy('old', copy('v1'));
    await a.setCopy('unread', copy('v1'));
    expect(await b.getCopy('old')).toBeDefined();
    await pause(250);
    await a.setCopy('fresh', copy('v2')); // keeps the index keys alive past the first two copies
    await pause(250);
    expect(await b.getCopy('old')).toBeUndefined(); // a read of an expired copy drops its bytes,
    expect([await raw.zScore(redisKey(prefix, 'i', 'lru'), member('old')), await raw.hGet(redisKey(prefix, 'i', 'size'), member('old'))]).toEqual([null, null]);
    expect(await raw.zScore(redisKey(prefix, 'i', 'lru'), member('unread'))).not.toBeNull();
    await a.setCopy('new', copy('v2')); // and a save drops those of copies last used a TTL ago
    expect((await raw.zRange(redisKey(prefix, 'i', 'lru'), 0, -1)).sort()).toEqual([member('fresh'), member('new')].sort());
    const sizes = await raw.hGetAll(redisKey(prefix, 'i', 'size'));
    expect(Object.keys(sizes).sort()).toEqual([member('fresh'), member('new')].sort());
    expect(Number(await raw.get(redisKey(prefix, 'i', 'bytes')))).toBe(Object.values(sizes).reduce((n, v) => n + Number(v), 0));
    // A TTL after the last save every copy has expired, and so have the keys that counted them.
    await pause(450);
    expect(await raw.exists([redisKey(prefix, 'i', 'bytes'), redisKey(prefix, 'i', 'size'), redisKey(prefix, 'i', 'lru')])).toBe(0);
  });

  it('keeps the fleet within maxBytes of copies, dropping the least recently used', async () => {
    const prefix = uniquePrefix('lru');
    const one = copy('x'.repeat(1000), 0);
    const size = JSON.stringify(one).length + redisKey(prefix, 'c', 'a').length + 64;
    const options = { maxBytes: Math.floor(size * 2.5), fallback: forgetful() };
    const [a, b] = [await worker(prefix, options), await worker(prefix, options)];
    await a.setCopy('a', one);
    await pause(5);
    await b.setCopy('b', one);
    await pause(5);
    expect(await b.getCopy('a')).toBeDefined(); // a is now more recent than b
    await pause(5);
    await a.setCopy('c', one);
    expect(await b.getCopy('a')).toBeDefined();
    expect(await b.getCopy('b')).toBeUndefined();
    expect(await b.getCopy('c')).toBeDefined();
    const sizes = Object.values(await raw.hGetAll(redisKey(prefix, 'i', 'size'))).map(Number);
    expect(sizes).toEqual([size, size]);
    expect(Number(await raw.get(redisKey(prefix, 'i', 'bytes')))).toBe(2 * size);
  });

  it('deletes a copy for every worker, with its bytes', async () => {
    const prefix = uniquePrefix('delete');
    const [a, b, c] = [await worker(prefix), await worker(prefix), await worker(prefix, { fallback: forgetful() })];
    await a.setCopy('k', copy('v1'));
    await b.deleteCopy('k');
    expect(await c.getCopy('k')).toBeUndefined();
    expect(await raw.get(redisKey(prefix, 'i', 'bytes'))).toBe('0');
    expect(await raw.hLen(redisKey(prefix, 'i', 'size'))).toBe(0);
  });

  it('shares nothing between stores with different prefixes', async () => {
    const [one, two] = [uniquePrefix('one'), uniquePrefix('two')];
    const a = await worker(one);
    await a.setBackoff('o', { until: Date.now() + 30_000, error });
    await a.setCopy('k', copy('v1'));
    const [other, same] = [await worker(two, { fallback: forgetful() }), await worker(one, { fallback: forgetful() })];
    expect([await other.getBackoff('o'), await other.getCopy('k')]).toEqual([undefined, undefined]);
    expect([(await same.getBackoff('o'))?.error, (await same.getCopy('k'))?.body]).toEqual([error, 'v1']);
  });

  it.each([
    ['not JSON', '{'],
    ['an error with no retry word', JSON.stringify({ code: 'rate_limited', message: 'x', field: null, retry_after: 30 })],
    ['a number', '42'],
  ])('passes over a wait in Redis that is %s', async (_name, value) => {
    const prefix = uniquePrefix('junk');
    const reported: unknown[] = [];
    const store = await worker(prefix, { fallback: forgetful(), onFallback: (e) => reported.push(e) });
    await raw.set(redisKey(prefix, 'b', 'o'), value, { expiration: { type: 'PX', value: 10_000 } });
    expect(await store.getBackoff('o')).toBeUndefined();
    expect(reported).toEqual([]);
  });

  it.each([
    ['not JSON', '{'],
    ['a copy with no body', JSON.stringify({ url: 'https://a.example/', status: 200, headers: [], storedAt: 0 })],
    ['headers that are not pairs', JSON.stringify({ ...copy('v1'), headers: [['a']] })],
  ])('passes over a copy in Redis that is %s', async (_name, value) => {
    const prefix = uniquePrefix('junk');
    const store = await worker(prefix, { fallback: forgetful() });
    await raw.set(redisKey(prefix, 'c', 'k'), value);
    expect(await store.getCopy('k')).toBeUndefined();
  });

  it('prefers whichever copy is newer, this worker\'s own or the shared one', async () => {
    const prefix = uniquePrefix('newer');
    const local = createMemoryStore();
    const [a, b] = [await worker(prefix, { fallback: local }), await worker(prefix)];
    await b.setCopy('k', copy('shared', 2000));
    await local.setCopy('k', copy('own, older', 1000));
    expect((await a.getCopy('k'))?.body).toBe('shared');
    await local.setCopy('k', copy('own, newer', 3000));
    expect((await a.getCopy('k'))?.body).toBe('own, newer');
  });

  it('lets a client answer from a wait another worker\'s client learnt, without calling the site', async () => {
    const prefix = uniquePrefix('client');
    const site = await serve((_req, res) => res.writeHead(429, { 'retry-after': '120' }).end());
    const [a, b] = [createAgentClient({ store: await worker(prefix) }), createAgentClient({ store: await worker(prefix) })];
    expect(await a.fetch(site.url)).toMatchObject({ ok: false, error: { retry_after: 120 } });
    const answer = await b.fetch(site.url);
    expect(answer).toMatchObject({ ok: false, remembered: true, error: { code: 'rate_limited' } });
    expect(answer.ok || answer.error.retry_after).toBeGreaterThanOrEqual(119);
    expect(site.calls()).toBe(1);
    await site.close();
  });
});

describe('the Redis store when Redis fails', () => {
  let redis: TestRedis;
  const clients: Client[] = [];
  beforeAll(async () => {
    redis = await privateRedis();
  });
  afterAll(async () => {
    for (const c of clients) c.destroy();
    await redis?.stop();
  });

  async function watchedStore(options: RedisStoreOptions = {}) {
    const client = await connect(redis.url);
    clients.push(client);
    const said = { fallback: [] as unknown[], recovered: 0 };
    const prefix = uniquePrefix('failing');
    const store = createRedisStore(client, {
      prefix,
      onFallback: (e) => said.fallback.push(e),
      onRecover: () => void (said.recovered += 1),
      ...options,
    });
    return { client, store, said, prefix };
  }

  it('answers every call from the fallback once Redis is gone, says so once, and says when it is back', async () => {
    // No call may wait for a Redis the client knows is down: a wait here would outlast the test.
    const { client, store, said, prefix } = await watchedStore({ commandTimeoutMs: 600_000, recheckMs: 0 });
    const backoff: Backoff = { until: Date.now() + 60_000, error };
    await store.setBackoff('o', backoff);
    await store.setCopy('k', copy('v1', 1000));
    await redis.kill();
    for (let i = 0; i < 10; i++) {
      expect(await store.getBackoff('o')).toEqual(backoff);
      expect((await store.getCopy('k'))?.body).toBe('v1');
      await store.setBackoff(`o${i}`, backoff);
      await store.setCopy(`k${i}`, copy('v2'));
      await store.deleteCopy(`k${i}`);
    }
    expect(store.degraded).toBe(true);
    expect(said.fallback).toHaveLength(1);

    await redis.restart();
    for (let i = 0; !client.isReady; i++) {
      if (i > 100) throw new Error('the client did not reconnect');
      await pause(50);
    }
    await store.setBackoff('after', backoff);
    expect(store.degraded).toBe(false);
    expect(said).toMatchObject({ recovered: 1 });
    expect(said.fallback).toHaveLength(1);
    // It writes to Redis again (the restarted Redis has forgotten the scripts; they are sent again).
    expect(await client.exists(redisKey(prefix, 'b', 'after'))).toBe(1);
  });

  it('answers from the fallback when Redis holds the connection but does not answer in time', async () => {
    const { store, said } = await watchedStore({ commandTimeoutMs: 100, recheckMs: 200 });
    const backoff: Backoff = { until: Date.now() + 60_000, error };
    await store.setBackoff('o', backoff);
    redis.pause();
    try {
      expect(await store.getBackoff('o')).toEqual(backoff);
      expect(await store.getCopy('missing')).toBeUndefined();
      expect(said.fallback.map(String)).toEqual(['Error: Redis did not answer within 100 ms']);
    } finally {
      redis.resume();
    }
    // The answer that comes late, to a call made before the failure, is no sign of recovery.
    await pause(50);
    expect([store.degraded, said.recovered]).toEqual([true, 0]);
    await pause(200);
    // From Redis again: its deadline is read as now plus what Redis has left, off by no more than
    // the reply's way back, which is under commandTimeoutMs (100) or the reply is not used.
    const seen = await store.getBackoff('o');
    expect(seen?.error).toEqual(error);
    expect(Math.abs(seen!.until - backoff.until)).toBeLessThanOrEqual(100);
    expect(said.recovered).toBe(1);
    expect(store.degraded).toBe(false);
  });

  it('answers from the fallback when the client never connected, and a hook that throws changes nothing', async () => {
    const client = createClient({ url: redis.url });
    let calls = 0;
    const store = createRedisStore(client, {
      onFallback: () => {
        calls += 1;
        throw new Error('a broken hook');
      },
    });
    await store.setBackoff('o', { until: Date.now() + 60_000, error });
    expect((await store.getBackoff('o'))?.error).toEqual(error);
    expect(calls).toBe(1);
    store.detach();
  });
});

describe('a request whose store fails', () => {
  const failing: [string, () => Store][] = [
    ['rejects', () => ({ getBackoff: () => Promise.reject(new Error('down')), setBackoff: () => Promise.reject(new Error('down')), getCopy: () => Promise.reject(new Error('down')), setCopy: () => Promise.reject(new Error('down')), deleteCopy: () => Promise.reject(new Error('down')) })],
    ['throws', () => ({ getBackoff: () => { throw new Error('down'); }, setBackoff: () => { throw new Error('down'); }, getCopy: () => { throw new Error('down'); }, setCopy: () => { throw new Error('down'); }, deleteCopy: () => { throw new Error('down'); } })],
  ];

  it.each(failing)('still gets its answer when the store %s', async (_how, make) => {
    let status = 200;
    const site = await serve((_req, res) => res.writeHead(status, status === 429 ? { 'retry-after': '1' } : {}).end('<title>Item</title>'));
    const clock = virtualClock();
    const options = { store: make(), now: clock.now, sleep: clock.sleep };
    expect(await createAgentClient(options).fetch(site.url)).toMatchObject({ ok: true });
    expect(await fetchPage(site.url, options)).toMatchObject({ ok: true, stale: false, body: '<title>Item</title>' });
    status = 429;
    expect(await createAgentClient(options).fetch(site.url)).toMatchObject({ ok: false, error: { code: 'rate_limited', retry_after: 1 } });
    status = 503;
    expect(await fetchPage(site.url, options)).toMatchObject({ ok: false, status: 503 });
    await site.close();
  });
});
