import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { CODES, READERS, RETRY_WORDS, validateEnvelope } from '../../src/index.js';
import { createAgentClient } from '../../src/agent/client.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server that answers the n-th request (1-based) with responses[n-1], repeating the last. */
async function scripted(responses: { status: number; headers?: Record<string, string>; body?: string }[]): Promise<TestServer> {
  let n = 0;
  const server = await serve((_req, res) => {
    const r = responses[Math.min(n++, responses.length - 1)]!;
    res.writeHead(r.status, { 'content-type': 'text/html', ...r.headers });
    res.end(r.body ?? `<title>${r.status}</title>`);
  });
  servers.push(server);
  return server;
}

const client = (clock = virtualClock(), extra: Parameters<typeof createAgentClient>[0] = {}) =>
  createAgentClient({ now: clock.now, sleep: clock.sleep, store: createMemoryStore({ now: clock.now }), ...extra });

describe('the agent client', () => {
  it('waits 30 s once on a 429 with Retry-After: 30 and succeeds in 2 calls', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '30' } }, { status: 200, body: 'ok' }]);
    const clock = virtualClock();
    const result = await client(clock).fetch(server.url);
    expect(result.ok).toBe(true);
    expect(server.calls()).toBe(2);
    expect(clock.sleeps).toEqual([30_000]);
    if (result.ok) expect(await result.response.text()).toBe('ok');
  });

  it('hands a Retry-After: 120 back at once with retry_after and the advice', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '120' } }, { status: 200 }]);
    const clock = virtualClock();
    const result = await client(clock).fetch(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'rate_limited', retry: CODES.rate_limited.retry, retry_after: 120 }, advice: CODES.rate_limited.advice });
    expect(server.calls()).toBe(1);
    expect(clock.sleeps).toEqual([]);
    if (!result.ok) expect(validateEnvelope({ error: result.error }).valid).toBe(true);
  });

  it("waits out once a delay a site's own JSON keeps only in seed 002's field, and hands back its own code with the field and word it gave", async () => {
    const json = { 'content-type': 'application/json' };
    const server = await scripted([
      { status: 429, headers: json, body: JSON.stringify({ message: 'Slow down', code: 'SLOW_DOWN', next_step: 'wait', retry_after_seconds: 20, request_id: 'r1' }) },
      { status: 200, body: 'ok' },
    ]);
    const clock = virtualClock();
    expect((await client(clock).fetch(server.url)).ok).toBe(true);
    expect(clock.sleeps).toEqual([20_000]);
    const invalid = await scripted([{ status: 422, headers: json, body: JSON.stringify({ message: 'Bad sku', code: 'BAD_SKU', next_step: 'fix_request', param: 'sku' }) }]);
    const result = await client(virtualClock()).fetch(invalid.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'bad_sku', field: 'sku', retry: 'fix_input' }, advice: RETRY_WORDS.fix_input.advice });
    expect(invalid.calls()).toBe(1);
  });

  it('advises a wait of unknown length, not "retry_after seconds", for a 429 that does not say how long', async () => {
    const server = await scripted([{ status: 429, body: 'Too many requests' }]);
    const result = await client(virtualClock()).fetch(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'rate_limited', retry_after: null }, advice: RETRY_WORDS.after_delay.advice_without_delay });
    if (!result.ok) expect(result.advice).not.toMatch(/retry_after/);
  });

  it('answers from memory, retry_after counting down, until the delay has passed, naming where and when the wait was learnt', async () => {
    const server = await scripted([{ status: 503, headers: { 'retry-after': '120' } }, { status: 200 }, { status: 200 }]);
    const clock = virtualClock();
    const c = client(clock);
    const learntAt = new Date(clock.now()).toISOString();
    await c.fetch(`${server.url}/a`);
    clock.advance(45_000);
    const again = await c.fetch(`${server.url}/a?page=2`);
    expect(again).toMatchObject({ ok: false, remembered: true, error: { code: 'temporarily_unavailable', retry_after: 75 }, learnt: { url: `${server.url}/a`, at: learntAt } });
    if (!again.ok) expect(again.advice).toContain(`${server.url}/a asked for this wait at ${learntAt}`);
    expect(server.calls()).toBe(1);
    // One endpoint's 503 says nothing of another path of the origin: it is called.
    expect((await c.fetch(`${server.url}/b`)).ok).toBe(true);
    expect(server.calls()).toBe(2);
    clock.advance(75_000);
    expect((await c.fetch(`${server.url}/a`)).ok).toBe(true);
    expect(server.calls()).toBe(3);
  });

  it('shares what one client learnt with another that uses the same store', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '60' } }, { status: 200 }]);
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    await createAgentClient({ now: clock.now, sleep: clock.sleep, store }).fetch(server.url);
    const other = await createAgentClient({ now: clock.now, sleep: clock.sleep, store }).fetch(server.url);
    expect(other).toMatchObject({ ok: false, remembered: true, error: { retry_after: 60 } });
    expect(server.calls()).toBe(1);
  });

  it('retries a 500 once for a GET, and never for a POST without an Idempotency-Key', async () => {
    const get = await scripted([{ status: 500 }, { status: 200 }]);
    const clock = virtualClock();
    expect((await client(clock).fetch(get.url)).ok).toBe(true);
    expect(get.calls()).toBe(2);
    expect(clock.sleeps).toEqual([(RETRY_WORDS[CODES.internal.retry] as { default_retry_after?: number }).default_retry_after! * 1000]);

    const post = await scripted([{ status: 500 }, { status: 200 }]);
    const result = await client().fetch(post.url, { method: 'POST', body: '{}' });
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' } });
    expect(post.calls()).toBe(1);

    const keyed = await scripted([{ status: 500 }, { status: 200 }]);
    expect((await client().fetch(keyed.url, { method: 'POST', body: '{}', headers: { 'idempotency-key': 'k1' } })).ok).toBe(true);
    expect(keyed.calls()).toBe(2);
  });

  it('retries nothing else: a 404, a 400 and a 429 without a delay cost one call each', async () => {
    for (const status of [404, 400, 429, 403]) {
      const server = await scripted([{ status }, { status: 200 }]);
      const result = await client().fetch(server.url);
      expect(result.ok).toBe(false);
      expect(server.calls()).toBe(1);
    }
  });

  it('never spends more calls than its budget', async () => {
    const server = await scripted([{ status: 503, headers: { 'retry-after': '1' } }]);
    const result = await client(virtualClock(), { maxCalls: 1 }).fetch(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'temporarily_unavailable', retry_after: 1 } });
    expect(server.calls()).toBe(1);
  });

  it('waits only once even when the site asks again', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '2' } }]);
    const clock = virtualClock();
    const result = await client(clock, { maxCalls: 5 }).fetch(server.url);
    expect(result.ok).toBe(false);
    expect(server.calls()).toBe(2);
    expect(clock.sleeps).toEqual([2000]);
  });

  it('reports a refused connection as an error that names the host, not a stack', async () => {
    const server = await scripted([{ status: 200 }]);
    const url = server.url;
    await server.close();
    servers.length = 0;
    const result = await client().fetch(`${url}/x`);
    expect(result).toMatchObject({ ok: false, error: { code: READERS.signals.network_failure, message: `${new URL(url).host}: the connection was refused` } });
    expect(result.ok || result.response).toBeUndefined();
  });

  it('reports a connection the server resets as such', async () => {
    const server = await serve((req) => req.socket.destroy());
    servers.push(server);
    const result = await client().fetch(`${server.url}/x`);
    expect(result).toMatchObject({ ok: false, error: { code: READERS.signals.network_failure, message: `${new URL(server.url).host}: the connection was reset` } });
  });

  it('lets an AbortSignal cancel a wait', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '30' } }, { status: 200 }]);
    const real = createAgentClient({ store: createMemoryStore() });
    const controller = new AbortController();
    const pending = real.fetch(server.url, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('caller gave up')), 50);
    await expect(pending).rejects.toThrow('caller gave up');
    expect(server.calls()).toBe(1);
  });

  it('paces itself to the quota a real express-rate-limit server announces: no call refused', async () => {
    const app = express();
    app.use(rateLimit({ windowMs: 1000, limit: 2, standardHeaders: 'draft-8', legacyHeaders: false }));
    app.get('/', (_req, res) => void res.send('ok'));
    const server = await serve(app);
    servers.push(server);
    const c = createAgentClient({ store: createMemoryStore() });
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await c.fetch(server.url));
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    // Two within the limit, then the third held until the announced reset, instead of sent and
    // refused: three calls. Without the announced quota it would take four (a 429 and a retry).
    expect(server.calls()).toBe(3);
    const unpaced = createAgentClient({ store: createMemoryStore({ paceQuota: false }) });
    for (let i = 0; i < 3; i++) expect((await unpaced.fetch(server.url)).ok).toBe(true);
    expect(server.calls()).toBe(3 + 4);
  });
});

describe('what the client and the fetcher say they accept', () => {
  it('send an Accept that marks them as agents, so an AgentFriendly site answers in this contract', async () => {
    const { isAgentRequest } = await import('../../src/site/friendly.js');
    const { agentFriendlyExpress } = await import('../../src/site/express.js');
    const { AGENT_ACCEPT } = await import('../../src/agent/policy.js');
    const { fetchPage, PAGE_ACCEPT } = await import('../../src/agent/fetcher.js');
    for (const accept of [AGENT_ACCEPT, PAGE_ACCEPT]) expect(isAgentRequest({ headers: { accept } }), accept).toBe(true);

    const seen: (string | undefined)[] = [];
    const app = express();
    app.use((req, _res, next) => void (seen.push(req.headers.accept), next()));
    app.use(agentFriendlyExpress());
    const server = await serve(app);
    servers.push(server);
    const result = await client().fetch(`${server.url}/nowhere`);
    expect(result.ok).toBe(false);
    // Express's own 404 page, read by the site itself: the raw body the agent got is the envelope.
    if (!result.ok) expect(validateEnvelope(await result.response!.json()).errors).toEqual([]);
    const page = await fetchPage(`${server.url}/nowhere`, { store: createMemoryStore() });
    expect(page.ok).toBe(false);
    expect(seen).toEqual([AGENT_ACCEPT, PAGE_ACCEPT]);
  });

  it("keep a caller's own Accept, on every kind of request, and send none of their own with accept: false", async () => {
    const seen: (string | undefined)[] = [];
    const server = await serve((req, res) => void (seen.push(req.headers.accept), res.end('ok')));
    servers.push(server);
    await client().fetch(server.url, { headers: { accept: 'text/csv' } });
    await client().fetch(server.url, { headers: [['Accept', 'text/plain']] });
    await client().fetch(new Request(server.url, { method: 'POST', body: 'x', headers: { accept: 'image/png' } }));
    await client(virtualClock(), { accept: false }).fetch(server.url);
    await client(virtualClock(), { accept: 'application/xml' }).fetch(new Request(server.url, { method: 'PUT', body: 'x' }));
    expect(seen).toEqual(['text/csv', 'text/plain', 'image/png', '*/*', 'application/xml']);
  });
});
