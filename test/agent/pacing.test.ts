// Pacing in one process: the memory store's probe lease and shared quota (the cases every pacing
// store must pass, test/helpers/pacing.ts), and the client's rules around them against real
// loopback sites and a real rate limiter.
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import got from 'got';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgentClient } from '../../src/agent/client.js';
import { scoper } from '../../src/agent/policy.js';
import { agentGot } from '../../src/agent/got.js';
import { agentUndici } from '../../src/agent/undici.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { pacingContract, pause } from '../helpers/pacing.js';
import { serve, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('the memory store paces the callers of one process', () => {
  pacingContract(async (options) => {
    const store = createMemoryStore(options);
    return [store, store] as const;
  }, (what) => `https://${what}.example`);
});

/** A site that answers from a script of handlers by arrival, recording when each call arrived and when its answer left. */
async function site(script: ((n: number) => { status: number; headers?: Record<string, string>; delayMs?: number })[]) {
  const arrivals: number[] = [];
  const answered: number[] = [];
  const server = await serve(async (_req, res) => {
    const n = arrivals.push(performance.now()) - 1;
    const step = script[Math.min(n, script.length - 1)]!(n);
    if (step.delayMs) await pause(step.delayMs);
    answered.push(performance.now());
    res.writeHead(step.status, { 'content-type': 'text/plain', ...step.headers }).end(String(step.status));
  });
  servers.push(server);
  return Object.assign(server, { arrivals, answered });
}

describe('the client around a pacing store', () => {
  it('sends one probe when a shared wait ends; the others call only once it has answered', async () => {
    const s = await site([() => ({ status: 429, headers: { 'retry-after': '1' } }), () => ({ status: 200, delayMs: 250 })]);
    const store = createMemoryStore();
    const first = createAgentClient({ store, maxWaitSeconds: 0 });
    expect(await first.fetch(s.url)).toMatchObject({ ok: false, error: { retry_after: 1 } });
    const clients = Array.from({ length: 5 }, () => createAgentClient({ store }));
    const results = await Promise.all(clients.map((c) => c.fetch(s.url)));
    expect(results.map((r) => r.ok)).toEqual(Array(5).fill(true));
    // The wait's first call arrived alone and answered before any other arrived.
    expect(s.arrivals).toHaveLength(1 + 5);
    const [, probe, ...rest] = s.arrivals;
    expect(rest.every((t) => t >= s.answered[1]!)).toBe(true);
    expect(probe).toBeLessThan(s.answered[1]!);
  });

  it("hands the probe's new wait to the followers that already waited once, without calling", async () => {
    const s = await site([() => ({ status: 429, headers: { 'retry-after': '1' } }), () => ({ status: 429, headers: { 'retry-after': '30' }, delayMs: 150 })]);
    const store = createMemoryStore();
    await createAgentClient({ store, maxWaitSeconds: 0 }).fetch(s.url);
    const results = await Promise.all(Array.from({ length: 4 }, () => createAgentClient({ store }).fetch(s.url)));
    expect(s.arrivals).toHaveLength(2);
    expect(results.filter((r) => !r.ok && r.remembered)).toHaveLength(3);
    for (const r of results) expect(r).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
    expect(results.every((r) => !r.ok && r.error.retry_after! > 1)).toBe(true);
  });

  it('hands a follower back the ended wait at once when it may not wait, as before', async () => {
    const s = await site([() => ({ status: 429, headers: { 'retry-after': '1' } }), () => ({ status: 200, delayMs: 300 })]);
    const store = createMemoryStore();
    await createAgentClient({ store, maxWaitSeconds: 0 }).fetch(s.url);
    await pause(1050);
    const probe = createAgentClient({ store }).fetch(s.url);
    await pause(50);
    const impatient = await createAgentClient({ store, maxWaitSeconds: 0 }).fetch(s.url);
    // Told to look again in a second: the probe is on its way.
    expect(impatient).toMatchObject({ ok: false, remembered: true, error: { code: 'rate_limited', retry_after: 1 } });
    expect((await probe).ok).toBe(true);
    expect(s.arrivals).toHaveLength(2);
  });

  it('keeps concurrent requests within a real rate limiter’s announced quota: no 429', async () => {
    const app = express();
    app.use(rateLimit({ windowMs: 1500, limit: 4, standardHeaders: 'draft-7', legacyHeaders: true }));
    let refused = 0;
    app.use((_req, res, next) => (res.statusCode === 429 ? void (refused += 1) : next()));
    app.get('/', (_req, res) => void res.send('ok'));
    const server = await serve(app);
    servers.push(server);
    const store = createMemoryStore();
    // One call learns the quota, then 10 go at once, 3 at a time per client.
    expect((await createAgentClient({ store }).fetch(server.url)).ok).toBe(true);
    const results = await Promise.all(Array.from({ length: 10 }, () => createAgentClient({ store, maxWaitSeconds: 10 }).fetch(server.url)));
    expect(results.map((r) => r.ok)).toEqual(Array(10).fill(true));
    expect(server.calls()).toBe(11);
  });

  it('paces a scoped path apart from the rest of its origin', async () => {
    let searches = 0;
    const server = await serve((req, res) => {
      if (/^\/search(\/|\?|$)/.test(req.url!)) {
        searches += 1;
        return void res.writeHead(200, { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '30' }).end('found');
      }
      res.writeHead(200).end('item');
    });
    servers.push(server);
    const store = createMemoryStore();
    const client = createAgentClient({ store, maxWaitSeconds: 0, scope: [`${server.url}/search`] });
    expect((await client.fetch(`${server.url}/search?q=a`)).ok).toBe(true);
    expect(await client.fetch(`${server.url}/search/more`)).toMatchObject({ ok: false, remembered: true, error: { code: 'rate_limited', retry_after: 30 } });
    expect((await client.fetch(`${server.url}/items/1`)).ok).toBe(true);
    expect((await client.fetch(`${server.url}/searching`)).ok).toBe(true);
    expect(searches).toBe(1);
  });
});

describe('the plug-ins pace as the client does', () => {
  /** A real express-rate-limit site allowing `limit` per `windowMs`, announced in RateLimit and X-RateLimit-*, counting what it refused. */
  async function limited(limit: number, windowMs: number) {
    const app = express();
    const refused = { count: 0 };
    app.use(rateLimit({ windowMs, limit, standardHeaders: 'draft-7', legacyHeaders: true, handler: (_req, res) => void (refused.count += 1, res.status(429).set('retry-after', '1').send('slow down')) }));
    app.get('/', (_req, res) => void res.send('ok'));
    const server = await serve(app);
    servers.push(server);
    return Object.assign(server, { refused });
  }

  it('undici: concurrent requests through the interceptor stay within the announced quota', async () => {
    const site = await limited(3, 1000);
    const dispatcher = new Agent().compose(agentUndici({ store: createMemoryStore(), maxWaitSeconds: 10 }));
    await (await undiciFetch(site.url, { dispatcher })).text();
    const statuses = await Promise.all(Array.from({ length: 5 }, async () => (await undiciFetch(site.url, { dispatcher })).status));
    expect(statuses).toEqual(Array(5).fill(200));
    expect(site.refused.count).toBe(0);
    await dispatcher.close();
  });

  it('got: concurrent requests through agentGot stay within the announced quota', async () => {
    const site = await limited(3, 1000);
    const client = got.extend(agentGot({ store: createMemoryStore(), maxWaitSeconds: 10 }));
    await client(site.url);
    const statuses = await Promise.all(Array.from({ length: 5 }, async () => (await client(site.url)).statusCode));
    expect(statuses).toEqual(Array(5).fill(200));
    expect(site.refused.count).toBe(0);
  });
});

describe('scoper', () => {
  const url = (u: string) => new URL(u);
  it('keys by origin by default, and by the longest URL prefix a request falls under, whole segments only', () => {
    const of = scoper(['https://api.example/v1', 'https://api.example/v1/search/', 'https://other.example/v1']);
    expect(scoper(undefined)(url('https://api.example/v1/x?q=1'))).toBe('https://api.example');
    expect(of(url('https://api.example/v1/search/items?q=1'))).toBe('https://api.example/v1/search');
    expect(of(url('https://api.example/v1/search'))).toBe('https://api.example/v1/search');
    expect(of(url('https://api.example/v1/orders'))).toBe('https://api.example/v1');
    expect(of(url('https://api.example/v10'))).toBe('https://api.example');
    expect(of(url('http://api.example/v1/x'))).toBe('http://api.example');
  });
  it('refuses a prefix that is not an http(s) URL, naming it', () => {
    for (const bad of ['/v1/search', 'ftp://files.example/x', 'https://api.example/v1?x=1', 'not a url']) expect(() => scoper([bad])).toThrow(JSON.stringify(bad));
  });
  it('falls back to the origin when a scope function throws or returns no key', () => {
    expect(scoper(() => { throw new Error('no'); })(url('https://a.example/x'))).toBe('https://a.example');
    expect(scoper(() => '')(url('https://a.example/x'))).toBe('https://a.example');
    expect(scoper((u) => `${u.origin}#${u.pathname.split('/')[1]}`)(url('https://a.example/b/c'))).toBe('https://a.example#b');
  });
});

