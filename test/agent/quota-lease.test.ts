// Leases of calls against an announced quota: a Redis store that hears the fleet takes several
// calls of a large quota at once and makes them without asking Redis again, and the site still
// refuses none; a small quota is never leased (an unspent lease is lost to its window).
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentClient } from '../../src/agent/client.js';
import { createRedisStore, type RedisClientLike, type RedisStore } from '../../src/agent/redis-store.js';
import { cleanUp, connect, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';
import { serve, type TestServer } from '../helpers/server.js';

type Client = Awaited<ReturnType<typeof connect>>;

/** A client whose commands are counted, passed to the store by shape (its subscriber is a duplicate of the real one). */
function counted(client: Client): { client: RedisClientLike; commands: () => number } {
  let n = 0;
  const shape = {
    sendCommand: (args: string[]) => {
      n += 1;
      return client.sendCommand(args);
    },
    get isReady() {
      return client.isReady;
    },
    on: (event: string, listener: (...args: unknown[]) => void) => client.on(event, listener),
    off: (event: string, listener: (...args: unknown[]) => void) => client.off(event, listener),
    duplicate: () => client.duplicate(),
  };
  return { client: shape as RedisClientLike, commands: () => n };
}

async function quotaSite(limit: number): Promise<TestServer & { limited: () => number }> {
  let limited = 0;
  const app = express();
  app.use(rateLimit({ windowMs: 10_000, limit, standardHeaders: 'draft-7', legacyHeaders: false, handler: (_req, res) => void (limited += 1, res.status(429).set('retry-after', '10').send('Too many requests')) }));
  app.get('/', (_req, res) => void res.send('ok'));
  return Object.assign(await serve(app), { limited: () => limited });
}

describe('leases of calls against an announced quota', () => {
  let redis: TestRedis;
  const raws: Client[] = [];
  const stores: RedisStore[] = [];
  const sites: TestServer[] = [];
  beforeAll(async () => {
    redis = await sharedRedis();
  });
  afterAll(async () => {
    for (const s of stores) s.detach();
    for (const r of raws) r.destroy();
    await Promise.all(sites.map((s) => s.close()));
    if (redis) await cleanUp(redis.url);
    await redis?.stop();
  });

  async function fleet(n: number) {
    const prefix = uniquePrefix('lease');
    return Promise.all(
      Array.from({ length: n }, async () => {
        const raw = await connect(redis.url);
        raw.on('error', () => {});
        raws.push(raw);
        const c = counted(raw);
        const store = createRedisStore(c.client, { prefix });
        stores.push(store);
        await vi_until(() => store.mirroring);
        return { store, commands: c.commands, client: createAgentClient({ store }) };
      }),
    );
  }

  it('spends a large quota with fewer Redis calls than two per call, and the site refuses none', async () => {
    const site = await quotaSite(200);
    sites.push(site);
    const workers = await fleet(2);
    for (let i = 0; i < 60; i++) expect((await workers[i % 2]!.client.fetch(site.url)).ok).toBe(true);
    expect(site.calls()).toBe(60);
    expect(site.limited()).toBe(0);
    const commands = workers.reduce((n, w) => n + w.commands(), 0);
    // Without leases each call is two scripts (admit, settle): 120, and more for the scripts' first load.
    expect(commands).toBeLessThan(1.5 * 60);
  });

  it('leases nothing of a small quota: every call is admitted by Redis, and none is refused', async () => {
    const site = await quotaSite(10);
    sites.push(site);
    const workers = await fleet(2);
    for (let i = 0; i < 10; i++) expect((await workers[i % 2]!.client.fetch(site.url)).ok).toBe(true);
    expect(site.limited()).toBe(0);
    const commands = workers.reduce((n, w) => n + w.commands(), 0);
    expect(commands).toBeGreaterThanOrEqual(2 * 10);
  });
});

async function vi_until(check: () => boolean, ms = 3000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('the store never heard the fleet');
    await new Promise((r) => setTimeout(r, 10));
  }
}
