// agentFetch against real loopback servers: fetch's own type, the site's own Response with its
// body unread, the client's rules behind it, answers from memory, and a remembered wait waited out.
import fc from 'fast-check';
import ky from 'ky';
import { afterAll, describe, expect, it } from 'vitest';
import { CODES, validateEnvelope } from '../../src/index.js';
import { createAgentClient } from '../../src/agent/client.js';
import { fromResponse } from '../../src/core/from-response.js';
import { failureOf, agentFetch } from '../../src/agent/drop-in.js';
import { SOURCE_HEADER } from '../../src/agent/policy.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';
import { closedAfterEach, googleRetryBody, requestArbitrary, type Answer } from '../helpers/sites.js';

const servers = closedAfterEach();

/** A server that answers the n-th request (1-based) with responses[n-1], repeating the last, and records each method. */
async function scripted(responses: readonly Answer[]) {
  let n = 0;
  const methods: string[] = [];
  const server = await serve((req, res) => {
    methods.push(req.method!);
    const r = responses[Math.min(n++, responses.length - 1)]!;
    res.writeHead(r.status, { 'content-type': 'text/html', ...r.headers });
    res.end(r.body ?? `<title>${r.status}</title>`);
  });
  servers.push(server);
  return Object.assign(server, { methods });
}

const setup = (extra: Parameters<typeof agentFetch>[0] = {}) => {
  const clock = virtualClock();
  const store = createMemoryStore({ now: clock.now });
  return { clock, store, fetch: agentFetch({ now: clock.now, sleep: clock.sleep, store, ...extra }) };
};

const GOOGLE_RETRY = googleRetryBody(3);

describe('agentFetch', () => {
  it("is fetch's own type, and passes a success through as the site sent it, body unread", async () => {
    const body = JSON.stringify({ items: [1, 2, 3] });
    const server = await scripted([{ status: 200, headers: { 'content-type': 'application/json', etag: '"v1"' }, body }]);
    const { fetch: agentFetchFn } = setup();
    const typed: typeof fetch = agentFetchFn;
    const response = await typed(`${server.url}/items`);
    expect(response.bodyUsed).toBe(false);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe('"v1"');
    expect(await response.text()).toBe(body);
    expect(failureOf(response)).toBeUndefined();
  });

  it('waits a Retry-After of 30 s once and returns the success of the second call', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '30' } }, { status: 200, body: 'ok' }]);
    const { fetch: f, clock } = setup();
    const response = await f(server.url);
    expect(await response.text()).toBe('ok');
    expect(server.calls()).toBe(2);
    expect(clock.sleeps).toEqual([30_000]);
  });

  it('waits a delay given only in the body (Google RetryInfo), which a header-reading client never sees', async () => {
    const server = await scripted([{ status: 429, headers: { 'content-type': 'application/json' }, body: GOOGLE_RETRY }, { status: 200, body: 'ok' }]);
    const { fetch: f, clock } = setup();
    expect((await f(server.url)).status).toBe(200);
    expect(clock.sleeps).toEqual([3_000]);
  });

  it("hands a longer wait back as the site's own Response, body unread, and says what it means", async () => {
    const page = '<html><title>Slow down</title></html>';
    const server = await scripted([{ status: 429, headers: { 'retry-after': '120' }, body: page }]);
    const { fetch: f, clock } = setup();
    const response = await f(server.url);
    expect(response.status).toBe(429);
    expect(response.bodyUsed).toBe(false);
    expect(response.headers.get(SOURCE_HEADER)).toBeNull();
    expect(failureOf(response)).toEqual({ ok: false, error: { code: 'rate_limited', message: 'Slow down', field: null, retry: 'after_delay', retry_after: 120 }, advice: CODES.rate_limited.advice });
    expect(await response.text()).toBe(page);
    expect(clock.sleeps).toEqual([]);
  });

  it("answers from memory while a long wait runs in the site's own words: its status, headers and body, Retry-After left, and the memory header", async () => {
    const page = '<title>Down for maintenance</title>';
    const server = await scripted([{ status: 503, headers: { 'retry-after': '120', 'content-type': 'text/html', 'x-site': 'yes', 'set-cookie': 'a=1' }, body: page }, { status: 200 }]);
    const { fetch: f, clock } = setup();
    await f(`${server.url}/a`);
    clock.advance(45_000);
    const response = await f(`${server.url}/b`);
    expect(server.calls()).toBe(1);
    expect(response.status).toBe(503);
    expect([response.headers.get('retry-after'), response.headers.get(SOURCE_HEADER), response.headers.get('content-type'), response.headers.get('x-site')]).toEqual(['75', 'memory', 'text/html', 'yes']);
    // A cookie the site set is not set again, nor the length or encoding of bytes sent once.
    expect([response.headers.get('set-cookie'), response.headers.get('content-length')]).toEqual([null, null]);
    expect(await response.text()).toBe(page);
    expect(failureOf(response)).toMatchObject({ remembered: true, error: { code: 'temporarily_unavailable', retry_after: 75 } });
  });

  it('answers from memory with the envelope when the store kept no words of the site: the code\'s status, Retry-After left', async () => {
    const server = await scripted([{ status: 200 }]);
    const { fetch: f, clock, store } = setup();
    // What another writer (a store of an older version, a worker in another language) keeps: the wait alone.
    const error = { code: 'temporarily_unavailable', message: 'Down', field: null, retry: 'after_delay', retry_after: 120 } as const;
    store.setBackoff(new URL(server.url).origin, { until: clock.now() + 120_000, error });
    clock.advance(45_000);
    const response = await f(`${server.url}/b`);
    expect(server.calls()).toBe(0);
    expect(response.status).toBe(CODES.temporarily_unavailable.status);
    expect(response.headers.get('retry-after')).toBe('75');
    expect(response.headers.get(SOURCE_HEADER)).toBe('memory');
    const body = await response.json();
    expect(validateEnvelope(body).valid).toBe(true);
    expect(body.error).toMatchObject({ code: 'temporarily_unavailable', retry_after: 75 });
  });

  it("answers a site's own code from memory as the site said it: its status and its envelope", async () => {
    const own = JSON.stringify({ error: { code: 'quota_spent', message: 'Monthly quota spent', field: null, retry: 'after_delay', retry_after: 120 } });
    const server = await scripted([{ status: 402, headers: { 'content-type': 'application/json' }, body: own }]);
    const { fetch: f } = setup();
    expect((await f(server.url)).status).toBe(402);
    const remembered = await f(server.url);
    expect(server.calls()).toBe(1);
    expect(remembered.headers.get(SOURCE_HEADER)).toBe('memory');
    expect(remembered.status).toBe(402);
    expect(await remembered.text()).toBe(own);
    expect(failureOf(remembered)?.error).toMatchObject({ code: 'quota_spent', retry: 'after_delay', retry_after: 120 });
  });

  it('rejects as fetch does when no response arrives', async () => {
    const server = await scripted([{ status: 200 }]);
    const url = server.url;
    await server.close();
    servers.splice(servers.indexOf(server), 1);
    const { fetch: f } = setup();
    await expect(f(url)).rejects.toBeInstanceOf(TypeError);
  });

  it('is the fetch of a real client: ky with its own retries off gets the rules and the response', async () => {
    const server = await scripted([{ status: 503, headers: { 'retry-after': '2' } }, { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }]);
    const { fetch: f, clock } = setup();
    const api = ky.create({ fetch: f, retry: 0 });
    expect(await api.get(server.url).json()).toEqual({ ok: true });
    expect(clock.sleeps).toEqual([2_000]);
    const failing = await scripted([{ status: 404 }]);
    const error = await api.get(failing.url).catch((e: { response: Response }) => e);
    expect(failureOf((error as { response: Response }).response)?.error.code).toBe('not_found');
  });
});

describe('a remembered wait is waited out like a told one', () => {
  /** A store that knows the site asked for `seconds` more. */
  const remembering = (clock: ReturnType<typeof virtualClock>, origin: string, seconds: number) => {
    const store = createMemoryStore({ now: clock.now });
    store.setBackoff(origin, { until: clock.now() + seconds * 1000, error: { code: 'rate_limited', message: 'Slow down', field: null, retry: 'after_delay', retry_after: seconds } });
    return store;
  };

  it('createAgentClient, agentFetch and fetchPage sleep a remembered 4 s, then call the site once', async () => {
    for (const kind of ['client', 'fetch', 'fetcher'] as const) {
      const server = await scripted([{ status: 200, body: 'ok' }]);
      const clock = virtualClock();
      const store = remembering(clock, server.url, 4);
      const options = { now: clock.now, sleep: clock.sleep, store };
      const ok =
        kind === 'client'
          ? (await createAgentClient(options).fetch(server.url)).ok
          : kind === 'fetch'
            ? (await agentFetch(options)(server.url)).status === 200
            : (await fetchPage(server.url, options)).ok;
      expect({ kind, ok, sleeps: clock.sleeps, calls: server.calls() }).toEqual({ kind, ok: true, sleeps: [4_000], calls: 1 });
    }
  });

  it('counts against the same cap: a remembered 20 s leaves no room for a told 30 s under maxWaitSeconds 30', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '30' } }, { status: 200 }]);
    const clock = virtualClock();
    const store = remembering(clock, server.url, 20);
    const result = await createAgentClient({ now: clock.now, sleep: clock.sleep, store }).fetch(server.url);
    expect(result).toMatchObject({ ok: false, error: { code: 'rate_limited', retry_after: 30 } });
    expect(clock.sleeps).toEqual([20_000]);
    expect(server.calls()).toBe(1);
  });

  it('hands a remembered wait longer than maxWaitSeconds back without calling', async () => {
    const server = await scripted([{ status: 200 }]);
    const clock = virtualClock();
    const result = await createAgentClient({ now: clock.now, sleep: clock.sleep, store: remembering(clock, server.url, 31) }).fetch(server.url);
    expect(result).toMatchObject({ ok: false, remembered: true, error: { retry_after: 31 } });
    expect(server.calls()).toBe(0);
  });
});

describe("unknownDelay: 'backoff'", () => {
  it('guesses 1, 2, 4 s for a wait with no delay, within the budget and within maxWaitSeconds in all', async () => {
    const server = await scripted([{ status: 429 }, { status: 429 }, { status: 429 }, { status: 200, body: 'ok' }]);
    const { fetch: f, clock } = setup({ unknownDelay: 'backoff', maxCalls: 8, maxWaitSeconds: 10 });
    expect(await (await f(server.url)).text()).toBe('ok');
    expect(clock.sleeps).toEqual([1_000, 2_000, 4_000]);
  });

  it('stops guessing before the sleeps would pass maxWaitSeconds, and hands the error back', async () => {
    const server = await scripted([{ status: 429 }]);
    const { fetch: f, clock } = setup({ unknownDelay: 'backoff', maxCalls: 8, maxWaitSeconds: 5 });
    const response = await f(server.url);
    expect(failureOf(response)?.error).toMatchObject({ code: 'rate_limited', retry_after: null });
    expect(clock.sleeps).toEqual([1_000, 2_000]);
    expect(server.calls()).toBe(3);
  });

  it("hands a wait with no delay back at once by default, as seed 000 says", async () => {
    const server = await scripted([{ status: 429 }, { status: 200 }]);
    const { fetch: f, clock } = setup();
    expect((await f(server.url)).status).toBe(429);
    expect(clock.sleeps).toEqual([]);
    expect(server.calls()).toBe(1);
  });
});

describe('agentFetch, whatever the server answers (fast-check)', () => {
  const STATUSES = [200, 201, 204, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504];
  const reply = fc.record({
    status: fc.constantFrom(...STATUSES),
    retryAfter: fc.option(fc.oneof(fc.integer({ min: 0, max: 120 }).map(String), fc.constantFrom('soon', '-1', '1.5', 'Wed, 21 Oct 2015 07:28:00 GMT')), { nil: undefined }),
    body: fc.oneof(fc.string({ maxLength: 200 }), fc.constant(GOOGLE_RETRY), fc.constant('{"error":{"code":"rate_limited","message":"x","field":null,"retry":"after_delay","retry_after":7}}')),
  });
  const scenario = fc.tuple(fc.array(reply, { minLength: 1, maxLength: 5 }), requestArbitrary(5)).map(([replies, request]) => ({ replies, ...request }));
  let server: TestServer & { methods: string[] };
  let replies: readonly { status: number; retryAfter: string | undefined; body: string }[] = [];
  let n = 0;
  afterAll(async () => server?.close());

  it('returns a body the server sent, calls at most the budget, sleeps at most maxWaitSeconds, and retries a POST without a key only when told to wait', async () => {
    const methods: string[] = [];
    const base = await serve((req, res) => {
      methods.push(req.method!);
      const r = replies[Math.min(n++, replies.length - 1)]!;
      const headers: Record<string, string> = { 'content-type': r.body.startsWith('{') ? 'application/json' : 'text/plain; charset=utf-8' };
      if (r.retryAfter !== undefined) headers['retry-after'] = r.retryAfter;
      res.writeHead(r.status, headers);
      res.end(r.status === 204 ? undefined : r.body);
    });
    server = Object.assign(base, { methods });
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        replies = s.replies;
        n = 0;
        methods.length = 0;
        const clock = virtualClock();
        const f = agentFetch({ now: clock.now, sleep: clock.sleep, store: createMemoryStore({ now: clock.now }), maxCalls: s.budget, maxWaitSeconds: s.maxWaitSeconds, unknownDelay: s.unknownDelay });
        const headers: Record<string, string> = s.key ? { 'idempotency-key': 'k' } : {};
        const response = await f(server.url, { method: s.method, headers, ...(s.method === 'GET' ? {} : { body: 'x' }) });
        const calls = methods.length;
        expect(calls).toBeGreaterThanOrEqual(1);
        expect(calls).toBeLessThanOrEqual(s.budget);
        const last = s.replies[Math.min(calls - 1, s.replies.length - 1)]!;
        expect(response.status).toBe(last.status);
        expect(await response.text()).toBe(last.status === 204 ? '' : last.body);
        expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(s.maxWaitSeconds * 1000);
        if (s.method === 'POST' && !s.key) {
          // Only after an error that says wait for a delay (the site did not act on the request) is it sent again.
          for (let i = 0; i < calls - 1; i++) {
            const r = s.replies[Math.min(i, s.replies.length - 1)]!;
            const headers = r.retryAfter === undefined ? {} : { 'retry-after': r.retryAfter };
            expect(fromResponse(r.status, headers, r.body).error.retry, `call ${i + 1}: ${r.status} ${r.body}`).toBe('after_delay');
          }
        }
      }),
      { numRuns: 600, seed: 20261201 },
    );
  }, 60_000);
});
