// The guards of a scope (src/agent/guard.ts): the retry budget and the circuit. In the memory store
// on a virtual clock; through createAgentClient, fetchPage and agentFetch on real loopback servers;
// the waits learnt on one path; the options checked by name; and in the Redis store on a real
// redis-server (every key expires, garbage on its channel is harmless).
import * as fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { READERS } from '../../src/index.js';
import { LEARNT_HEADER } from '../../src/agent/answers.js';
import { createAgentClient, type AgentResult } from '../../src/agent/client.js';
import { agentFetch, failureOf } from '../../src/agent/drop-in.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { createRedisStore, redisKey } from '../../src/agent/redis-store.js';
import { createMemoryStore, type Admission, type Spent, type Store, type Tripped } from '../../src/agent/store.js';
import { cleanUp, connect, sharedRedis, uniquePrefix, type TestRedis } from '../helpers/redis.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

// The run's Redis: `raw` to look at keys and publish, `storeClient` for the stores under test.
let redis: TestRedis;
let raw: Awaited<ReturnType<typeof connect>>;
let storeClient: Awaited<ReturnType<typeof connect>>;
beforeAll(async () => {
  redis = await sharedRedis();
  raw = await connect(redis.url);
  raw.on('error', () => {});
  storeClient = await connect(redis.url);
});
afterAll(async () => {
  raw?.destroy();
  storeClient?.destroy();
  if (redis) await cleanUp(redis.url);
  await redis?.stop();
});

/** A loopback server, closed after the test. */
async function site(handler: Parameters<typeof serve>[0]): Promise<TestServer> {
  const server = await serve(handler);
  servers.push(server);
  return server;
}

/** A 500 with an HTML page, as a failing site answers. */
const fail500 = (res: import('node:http').ServerResponse): void => void res.writeHead(500, { 'content-type': 'text/html' }).end('<title>500</title>');

/** The answer of a memory store, which is synchronous. */
function sync<T>(value: T | Promise<T>): T {
  if (value instanceof Promise) throw new Error('the memory store answered with a promise');
  return value;
}

type Call = Extract<Admission, { kind: 'call' }>;
const K = 'https://site.test';
/** The start of a 5-s bucket (and so of a 1-s bucket): the virtual clock's default start. */
const START = Date.UTC(2026, 10, 30, 12);
const BUDGET_MS = 5000;
const CIRCUIT_MS = 1000;

describe('the retry budget of the memory store', () => {
  it('grants `floor` retries with no requests, then one more per 1/ratio requests; a spent draw says the counts; retries are not requests', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const draw = () => sync(store.drawRetry!(K));
    const admit = (n: number, retry = false) => {
      for (let i = 0; i < n; i++) expect(sync(store.admit!(K, { retry })).kind).toBe('call');
    };
    expect([draw(), draw(), draw()]).toEqual([undefined, undefined, undefined]);
    expect(draw()).toEqual({ kind: 'spent', retries: 3, requests: 0 });
    admit(10, true);
    expect(draw()).toEqual({ kind: 'spent', retries: 3, requests: 0 });
    admit(10);
    expect(draw()).toBeUndefined(); // 3 < 3 + 0.1 × 10
    expect(draw()).toEqual({ kind: 'spent', retries: 4, requests: 10 });
    admit(20);
    expect([draw(), draw()]).toEqual([undefined, undefined]); // 4 and 5 < 3 + 0.1 × 30
    expect(draw()).toEqual({ kind: 'spent', retries: 6, requests: 30 });
    // Another scope has a budget of its own.
    expect(sync(store.drawRetry!('https://other.test'))).toBeUndefined();
  });

  it('takes its ratio and floor from the options', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, retryBudget: { ratio: 0.5, floor: 0 } });
    expect(sync(store.drawRetry!(K))).toEqual({ kind: 'spent', retries: 0, requests: 0 });
    for (let i = 0; i < 4; i++) sync(store.admit!(K));
    expect([sync(store.drawRetry!(K)), sync(store.drawRetry!(K))]).toEqual([undefined, undefined]);
    expect(sync(store.drawRetry!(K))).toEqual({ kind: 'spent', retries: 2, requests: 4 });
  });

  it('counts the current and the previous 5-s bucket, and forgets older counts', () => {
    const clock = virtualClock(START);
    const store = createMemoryStore({ now: clock.now });
    const draw = () => sync(store.drawRetry!(K));
    expect([draw(), draw(), draw()]).toEqual([undefined, undefined, undefined]);
    clock.advance(BUDGET_MS - 1);
    expect(draw()).toEqual({ kind: 'spent', retries: 3, requests: 0 });
    clock.advance(1); // the next bucket: the first is the previous one, still counted
    expect(draw()).toEqual({ kind: 'spent', retries: 3, requests: 0 });
    for (let i = 0; i < 10; i++) sync(store.admit!(K));
    expect(draw()).toBeUndefined();
    expect(draw()).toEqual({ kind: 'spent', retries: 4, requests: 10 });
    clock.advance(BUDGET_MS); // the first bucket is forgotten: 1 retry for 10 requests is left
    expect([draw(), draw(), draw()]).toEqual([undefined, undefined, undefined]);
    expect(draw()).toEqual({ kind: 'spent', retries: 4, requests: 10 });
    clock.advance(2 * BUDGET_MS); // both forgotten
    expect([draw(), draw(), draw()]).toEqual([undefined, undefined, undefined]);
    expect(draw()).toEqual({ kind: 'spent', retries: 3, requests: 0 });
  });

  it('never refuses with retryBudget: false', () => {
    const store = createMemoryStore({ retryBudget: false });
    for (let i = 0; i < 1000; i++) expect(sync(store.drawRetry!(K))).toBeUndefined();
  });

  it('never grants more than floor + ratio × requests (1 request: at most 3.1 retries)', () => {
    const store = createMemoryStore({ now: () => START });
    sync(store.admit!(K));
    let granted = 0;
    while (granted < 10 && sync(store.drawRetry!(K)) === undefined) granted += 1;
    expect(granted).toBeLessThanOrEqual(3 + 0.1 * 1);
  });

  it('counts a request that slept out a remembered wait before it called', async () => {
    const server = await site((_req, res) => void res.writeHead(200).end('ok'));
    const clock = virtualClock(START);
    const store = createMemoryStore({ now: clock.now, retryBudget: { ratio: 1, floor: 0 } });
    const origin = new URL(server.url).origin;
    const error = { code: 'rate_limited', message: 'Too Many Requests', field: null, retry: 'after_delay' as const, retry_after: 1 };
    sync(store.setBackoff(origin, { until: clock.now() + 1000, error }));
    const client = createAgentClient({ store, now: clock.now, sleep: clock.sleep });
    expect((await client.fetch(server.url)).ok).toBe(true);
    expect(server.calls()).toBe(1);
    expect(clock.sleeps).toEqual([1000]);
    // One request reached the site: the budget should grant one retry for it.
    expect(sync(store.drawRetry!(origin))).toBeUndefined();
  });
});

describe('the circuit of the memory store', () => {
  /** One call of `store` to K: admitted, then settled as `outcome`; what admit said. */
  function call(store: Store, outcome: 'ok' | 'fail' | '4xx' | 'none'): Admission {
    const a = sync(store.admit!(K));
    if (a.kind === 'call') sync(store.settle!(K, { admitted: a, answered: outcome !== 'none', ...(outcome === 'fail' || outcome === 'none' ? { failed: true } : {}) }));
    return a;
  }
  const calls = (store: Store, outcome: 'ok' | 'fail' | '4xx' | 'none', n: number) => {
    for (let i = 0; i < n; i++) expect(call(store, outcome).kind).toBe('call');
  };

  it('opens on the 10th failure in a row, not the 9th, until openMs from then', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    calls(store, 'fail', 9);
    expect(sync(store.admit!(K))).toEqual({ kind: 'call' });
    expect(call(store, 'fail').kind).toBe('call'); // the 10th failure (the admit above, never settled, counts no call)
    expect(sync(store.admit!(K))).toEqual({ kind: 'open', until: clock.now() + 250, failures: 10, calls: 10 });
  });

  it('opens only when the failures are at least failureRatio of the calls', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    calls(store, 'ok', 3);
    calls(store, 'fail', 11); // 11 of 14 is below 0.8
    expect(call(store, 'fail').kind).toBe('call'); // 12 of 15 is 0.8
    expect(sync(store.admit!(K))).toEqual({ kind: 'open', until: clock.now() + 250, failures: 12, calls: 15 });
  });

  it('never opens on answers that did not fail (4xx), and counts no answer as a failure', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    calls(store, '4xx', 200);
    expect(sync(store.admit!(K)).kind).toBe('call');
    const other = createMemoryStore({ now: clock.now });
    for (let i = 0; i < 10; i++) sync(other.settle!(K, { admitted: sync(other.admit!(K)) as Call, answered: false, failed: true }));
    expect(sync(other.admit!(K)).kind).toBe('open');
  });

  it('counts the current and the previous 1-s bucket only', () => {
    const clock = virtualClock(START);
    const store = createMemoryStore({ now: clock.now });
    calls(store, 'fail', 9);
    clock.advance(2 * CIRCUIT_MS); // the 9 failures are forgotten
    calls(store, 'fail', 9);
    expect(sync(store.admit!(K)).kind).toBe('call');
    clock.advance(CIRCUIT_MS); // the previous bucket's 9 still count
    calls(store, 'fail', 1);
    expect(sync(store.admit!(K))).toMatchObject({ kind: 'open', failures: 10 });
  });

  it('while open: open until `until`, then one probe while the others are told open until its lease ends; a failed probe doubles the window up to maxOpenMs; a success closes it', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const admit = () => sync(store.admit!(K));
    calls(store, 'fail', 10);
    const opened = { kind: 'open', until: clock.now() + 250, failures: 10, calls: 10 };
    expect(admit()).toEqual(opened);
    clock.advance(249);
    expect(admit()).toEqual(opened);
    const windows: number[] = [];
    let probe: Admission | undefined;
    for (let i = 0; i < 3; i++) {
      clock.advance((admit() as { until: number }).until - clock.now());
      probe = admit();
      expect(probe).toEqual({ kind: 'call', probe: expect.any(String), circuit: true });
      // Everyone else waits out the probe's lease (probeLeaseMs, 5000 by default).
      expect(admit()).toEqual({ kind: 'open', until: clock.now() + 5000, failures: 10, calls: 10 });
      clock.advance(10);
      expect(admit()).toEqual({ kind: 'open', until: clock.now() + 4990, failures: 10, calls: 10 });
      // A call admitted before the circuit opened that fails now changes nothing.
      sync(store.settle!(K, { admitted: { kind: 'call' }, answered: true, failed: true }));
      expect(admit()).toEqual({ kind: 'open', until: clock.now() + 4990, failures: 10, calls: 10 });
      sync(store.settle!(K, { admitted: probe as Call, answered: true, failed: true }));
      const next = admit() as { kind: string; until: number };
      expect(next).toMatchObject({ kind: 'open', failures: 10, calls: 10 });
      windows.push(next.until - clock.now());
    }
    expect(windows).toEqual([500, 1000, 1000]);
    clock.advance(1000);
    probe = admit();
    expect(probe).toMatchObject({ kind: 'call', circuit: true });
    sync(store.settle!(K, { admitted: probe as Call, answered: true }));
    expect(admit()).toEqual({ kind: 'call' });
    // Closed, it counts afresh: 9 failures do not open it again.
    calls(store, 'fail', 9);
    expect(admit()).toEqual({ kind: 'call' });
  });

  it('lets another caller probe when a probe lease runs out, and only the current probe doubles the window', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, probeLeaseMs: 1000 });
    const admit = () => sync(store.admit!(K));
    calls(store, 'fail', 10);
    clock.advance(250);
    const first = admit() as Call;
    expect(first).toMatchObject({ kind: 'call', circuit: true });
    clock.advance(999);
    expect(admit()).toMatchObject({ kind: 'open', until: clock.now() + 1 });
    clock.advance(1);
    const second = admit() as Call;
    expect(second).toMatchObject({ kind: 'call', circuit: true });
    expect(second.probe).not.toBe(first.probe);
    // The first probe's late failure is not the current probe's: the lease holds.
    sync(store.settle!(K, { admitted: first, answered: false, failed: true }));
    expect(admit()).toMatchObject({ kind: 'open', until: clock.now() + 1000 });
    sync(store.settle!(K, { admitted: second, answered: true, failed: true }));
    expect(admit()).toMatchObject({ kind: 'open', until: clock.now() + 500 });
  });

  it('closes on any success, probe or not', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    calls(store, 'fail', 10);
    expect(sync(store.admit!(K)).kind).toBe('open');
    sync(store.settle!(K, { admitted: { kind: 'call' }, answered: true })); // a call on its way when it opened
    expect(sync(store.admit!(K))).toEqual({ kind: 'call' });
  });

  it('takes its options: 2 failures of 3 calls open it at 0.5, for 100 ms, then 150 at most', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, circuit: { failureRatio: 0.5, minFailures: 2, openMs: 100, maxOpenMs: 150 } });
    calls(store, 'fail', 1);
    calls(store, 'ok', 1);
    calls(store, 'fail', 1);
    expect(sync(store.admit!(K))).toEqual({ kind: 'open', until: clock.now() + 100, failures: 2, calls: 3 });
    clock.advance(100);
    const probe = sync(store.admit!(K)) as Call;
    sync(store.settle!(K, { admitted: probe, answered: false, failed: true }));
    expect(sync(store.admit!(K))).toMatchObject({ kind: 'open', until: clock.now() + 150 });
  });

  it('with no probe lease (probeLeaseMs 0), lets every caller through once its window ends, and opens again, for longer, when such a call fails', () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, probeLeaseMs: 0 });
    calls(store, 'fail', 10);
    expect(sync(store.admit!(K))).toMatchObject({ kind: 'open', until: clock.now() + 250 });
    clock.advance(250);
    const a = sync(store.admit!(K)) as Call;
    const b = sync(store.admit!(K)) as Call;
    expect([a.kind, b.kind, a.probe, b.probe]).toEqual(['call', 'call', undefined, undefined]);
    sync(store.settle!(K, { admitted: a, answered: true, failed: true }));
    expect(sync(store.admit!(K))).toMatchObject({ kind: 'open', until: clock.now() + 500 });
    clock.advance(500);
    sync(store.settle!(K, { admitted: sync(store.admit!(K)) as Call, answered: true }));
    expect(sync(store.admit!(K))).toEqual({ kind: 'call' });
  });

  it('never opens with circuit: false', () => {
    const store = createMemoryStore({ circuit: false, now: virtualClock().now });
    calls(store, 'fail', 500);
    calls(store, 'none', 500);
    expect(sync(store.admit!(K))).toEqual({ kind: 'call' });
  });
});

describe('the guards through createAgentClient', () => {
  it('retries 500s within floor + 10% of the requests, and hands a refused retry back as the site failed, throttled by the budget', async () => {
    const server = await site((_req, res) => fail500(res));
    const origin = new URL(server.url).origin;
    const now = () => START;
    const store = createMemoryStore({ circuit: false, now });
    const slept: number[] = [];
    const client = createAgentClient({ store, now, sleep: async (ms) => void slept.push(ms) });
    const N = 30;
    const results: AgentResult[] = [];
    for (let i = 1; i <= N; i++) {
      results.push(await client.fetch(`${server.url}/r${i}`));
      // Retries so far: at most floor + ratio × requests.
      expect(server.calls() - i).toBeLessThanOrEqual(3 + 0.1 * i);
    }
    expect(server.calls() - N).toBe(3 + 0.1 * N);
    expect(slept).toEqual(Array(6).fill(1000));
    const refused = results.filter((r) => !r.ok && r.throttled);
    expect(refused).toHaveLength(N - 6);
    for (const r of refused) {
      if (r.ok) continue;
      expect(r).toMatchObject({ error: { code: 'internal' }, throttled: { by: 'retry_budget', scope: origin, counts: { retries: expect.any(Number), requests: expect.any(Number) } } });
      expect(r.remembered).toBeUndefined();
      expect(r.response?.status).toBe(500);
      expect(r.advice).toMatch(/retry budget of .* is spent/);
    }
    // The 29th request: 5 retries for 29 requests leave no room for a sixth; the 30th has it.
    expect((results[N - 2] as { throttled: unknown }).throttled).toEqual({ by: 'retry_budget', scope: origin, counts: { retries: 5, requests: 29 } });
    expect(results[N - 1]).not.toHaveProperty('throttled');
    // The first was retried, not throttled.
    expect(results[0]).not.toHaveProperty('throttled');
  });

  it('keeps the budget for requests made all at once', async () => {
    const server = await site((_req, res) => fail500(res));
    const now = () => START;
    const client = createAgentClient({ store: createMemoryStore({ circuit: false, now }), now, sleep: async () => {} });
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => client.fetch(`${server.url}/p${i}`)));
    expect(server.calls() - 30).toBeLessThanOrEqual(3 + 0.1 * 30);
    expect(results.filter((r) => !r.ok && r.throttled?.by === 'retry_budget').length).toBe(30 - (server.calls() - 30));
  });

  it('never refuses a told wait (429 Retry-After: 1) when the budget is spent', async () => {
    let told = 0;
    const server = await site((req, res) => {
      if (req.url !== '/told') return fail500(res);
      if (told++ === 0) res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/html' }).end('<title>429</title>');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    const origin = new URL(server.url).origin;
    const clock = virtualClock(START);
    const store = createMemoryStore({ circuit: false, now: clock.now });
    const client = createAgentClient({ store, now: clock.now, sleep: clock.sleep, maxWaitSeconds: 5 });
    let spent: AgentResult | undefined;
    for (let i = 0; i < 10 && !spent; i++) {
      const r = await client.fetch(`${server.url}/fail`);
      if (!r.ok && r.throttled) spent = r;
    }
    expect(spent).toBeDefined();
    const before = sync(store.drawRetry!(origin));
    expect(before).toMatchObject({ kind: 'spent' });
    const result = await client.fetch(`${server.url}/told`);
    expect(result.ok).toBe(true);
    expect(told).toBe(2);
    expect(clock.sleeps.at(-1)).toBe(1000);
    // The told retry drew nothing: one more request, no more retries.
    expect(sync(store.drawRetry!(origin))).toEqual({ kind: 'spent', retries: (before as { retries: number }).retries, requests: (before as { requests: number }).requests + 1 });
  });

  it('fails fast while the circuit is open, lets one probe through per window, and calls again once the probe succeeds', async () => {
    let healthy = false;
    const server = await site((_req, res) => (healthy ? res.writeHead(200, { 'content-type': 'text/plain' }).end('ok') : fail500(res)));
    const origin = new URL(server.url).origin;
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, circuit: { minFailures: 3, openMs: 100, maxOpenMs: 200 } });
    const client = createAgentClient({ store, now: clock.now, sleep: clock.sleep, maxCalls: 1 });
    for (let i = 0; i < 3; i++) {
      const r = await client.fetch(server.url);
      expect(r).toMatchObject({ ok: false, error: { code: 'internal' } });
      expect(r).not.toHaveProperty('throttled');
      expect(r).not.toHaveProperty('remembered');
    }
    expect(server.calls()).toBe(3);
    const fast = await client.fetch(`${server.url}/elsewhere`);
    expect(fast).toMatchObject({
      ok: false,
      remembered: true,
      error: { code: READERS.signals.circuit_open, retry: 'after_delay', retry_after: 1 },
      throttled: { by: 'circuit', scope: origin, counts: { failures: 3, calls: 3 } },
    });
    expect(fast).not.toHaveProperty('response');
    if (!fast.ok) expect(fast.advice).toMatch(/Not called: most recent calls to .* failed \(3 of 3\)/);
    expect(server.calls()).toBe(3);

    // The window passes, the site still fails: one probe of many requests at once calls it, and the window doubles.
    clock.advance(100);
    const storm = await Promise.all(Array.from({ length: 20 }, () => client.fetch(server.url)));
    expect(server.calls()).toBe(4);
    expect(storm.filter((r) => !r.ok && r.throttled?.by === 'circuit')).toHaveLength(19);
    expect(storm.filter((r) => !r.ok && r.error.code === 'internal' && !r.remembered)).toHaveLength(1);
    expect(sync(store.admit!(origin))).toMatchObject({ kind: 'open', until: clock.now() + 200 });

    healthy = true;
    clock.advance(199);
    expect(await client.fetch(server.url)).toMatchObject({ ok: false, remembered: true, throttled: { by: 'circuit' } });
    expect(server.calls()).toBe(4);
    clock.advance(1);
    expect((await client.fetch(server.url)).ok).toBe(true); // the probe
    expect(server.calls()).toBe(5);
    const after = await Promise.all(Array.from({ length: 5 }, () => client.fetch(server.url)));
    expect(after.every((r) => r.ok)).toBe(true);
    expect(server.calls()).toBe(10);
  });
  it('hands back the site’s own failure when the circuit refuses its retry, not remembered', async () => {
    const server = await site((_req, res) => fail500(res));
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, circuit: { minFailures: 1, openMs: 5000, maxOpenMs: 5000 } });
    const result = await createAgentClient({ store, now: clock.now, sleep: clock.sleep }).fetch(server.url);
    expect(server.calls()).toBe(1);
    expect(result).toMatchObject({ ok: false, error: { code: 'internal' }, response: { status: 500 } });
    expect(result).not.toHaveProperty('remembered');
  });
});

describe('fetchPage while the circuit is open', () => {
  it('serves the copy kept while the site was healthy, stale because of the open circuit', async () => {
    let healthy = true;
    const server = await site((_req, res) => (healthy ? res.writeHead(200, { 'content-type': 'text/plain' }).end('v1') : fail500(res)));
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now, circuit: { minFailures: 3, openMs: 1000, maxOpenMs: 1000 } });
    const options = { store, now: clock.now, sleep: clock.sleep, maxCalls: 1 };
    expect(await fetchPage(`${server.url}/page`, options)).toMatchObject({ ok: true, stale: false, body: 'v1' });
    healthy = false;
    // 4 failures of the 5 calls (the healthy one counts) are 0.8 of them.
    for (let i = 0; i < 4; i++) expect(await fetchPage(`${server.url}/page`, options)).toMatchObject({ ok: true, stale: true, body: 'v1', stale_because: { code: 'internal' } });
    expect(server.calls()).toBe(5);
    const page = await fetchPage(`${server.url}/page`, options);
    expect(page).toMatchObject({ ok: true, stale: true, body: 'v1', stale_because: { code: READERS.signals.circuit_open, retry_after: 1, message: expect.stringMatching(/4 of its last 5 calls failed/) } });
    expect(READERS.signals.circuit_open).not.toBe('internal');
    expect(server.calls()).toBe(5);
    // A page with no copy is the circuit's failure, from memory.
    expect(await fetchPage(`${server.url}/new`, options)).toMatchObject({ ok: false, status: null, remembered: true, error: { code: READERS.signals.circuit_open }, throttled: { by: 'circuit' } });
    expect(server.calls()).toBe(5);
  });
});

describe('waits learnt on one path', () => {
  /** A site whose /a answers `status` with `headers` and `body`, and anything else 200. */
  const siteWithA = (status: number, headers: Record<string, string>, body: string) =>
    site((req, res) => {
      if (new URL(req.url!, 'http://x').pathname === '/a') res.writeHead(status, { 'content-type': 'text/html', ...headers }).end(body);
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });

  it('a 503 with Retry-After: 120 answers /a and /a?x=1 from memory, naming /a, and leaves /b to the site', async () => {
    const server = await siteWithA(503, { 'retry-after': '120' }, '<title>503</title>');
    const clock = virtualClock();
    const client = createAgentClient({ store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep });
    const at = new Date(clock.now()).toISOString();
    expect(await client.fetch(`${server.url}/a`)).toMatchObject({ ok: false, error: { code: 'temporarily_unavailable', retry_after: 120 } });
    expect(server.calls()).toBe(1);
    for (const url of [`${server.url}/a`, `${server.url}/a?x=1`]) {
      const r = await client.fetch(url);
      expect(r).toMatchObject({ ok: false, remembered: true, error: { code: 'temporarily_unavailable', retry_after: 120 }, learnt: { url: `${server.url}/a`, at } });
      if (!r.ok) expect(r.advice).toContain(`Remembered: ${server.url}/a asked for this wait at ${at}`);
    }
    expect(server.calls()).toBe(1);
    expect((await client.fetch(`${server.url}/b`)).ok).toBe(true);
    expect(server.calls()).toBe(2);
  });

  it.each([
    ['a 429 with Retry-After: 120', 429, '<title>429</title>', 'rate_limited'],
    ['a 503 down for maintenance, Retry-After: 120', 503, '<title>Down for maintenance</title>', 'temporarily_unavailable'],
  ])('%s on /a answers /b from memory too', async (_name, status, body, code) => {
    const server = await siteWithA(status, { 'retry-after': '120' }, body);
    const clock = virtualClock();
    const client = createAgentClient({ store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep });
    await client.fetch(`${server.url}/a`);
    expect(await client.fetch(`${server.url}/b`)).toMatchObject({ ok: false, remembered: true, error: { code }, learnt: { url: `${server.url}/a` } });
    expect(server.calls()).toBe(1);
  });

  it('agentFetch answers a remembered wait with the site’s own answer, marked agent-errors-learnt', async () => {
    const server = await siteWithA(503, { 'retry-after': '120' }, '<title>Busy</title>');
    const clock = virtualClock();
    const fetchA = agentFetch({ store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep });
    const at = new Date(clock.now()).toISOString();
    const first = await fetchA(`${server.url}/a`);
    expect(first.status).toBe(503);
    expect(first.headers.get(LEARNT_HEADER)).toBeNull();
    clock.advance(20_000);
    const again = await fetchA(`${server.url}/a?x=1`);
    expect(server.calls()).toBe(1);
    expect(again.status).toBe(503);
    expect(again.headers.get('agent-errors-source')).toBe('memory');
    expect(again.headers.get(LEARNT_HEADER)).toBe(`${JSON.stringify(`${server.url}/a`)}; at=${at}`);
    expect(again.headers.get('retry-after')).toBe('100');
    expect(await again.text()).toBe('<title>Busy</title>');
    expect(failureOf(again)).toMatchObject({ remembered: true, learnt: { url: `${server.url}/a`, at } });
    expect((await fetchA(`${server.url}/b`)).status).toBe(200);
  });

  it('the disk store keeps a wait learnt on /a to /a', async () => {
    const { createDiskStore } = await import('../../src/agent/disk-store.js');
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(`${tmpdir()}/agent-errors-guards-`);
    const store = await createDiskStore(`${dir}/store.db`);
    try {
      const server = await siteWithA(503, { 'retry-after': '120' }, '<title>503</title>');
      const client = createAgentClient({ store });
      await client.fetch(`${server.url}/a`);
      expect(await client.fetch(`${server.url}/a`)).toMatchObject({ ok: false, remembered: true, learnt: { url: `${server.url}/a` } });
      expect((await client.fetch(`${server.url}/b`)).ok).toBe(true);
    } finally {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('waits learnt on one path, shared through Redis', () => {
  it('one worker learns a 503 on /a: another answers /a?x=1 from Redis naming /a, and calls /b; a 429 on another path covers /b', async () => {
    const server = await site((req, res) => {
      const path = new URL(req.url!, 'http://x').pathname;
      if (path === '/a') res.writeHead(503, { 'retry-after': '120', 'content-type': 'text/html' }).end('<title>503</title>');
      else if (path === '/limited') res.writeHead(429, { 'retry-after': '120', 'content-type': 'text/html' }).end('<title>429</title>');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    const prefix = uniquePrefix('paths');
    const [a, b] = [createRedisStore(storeClient, { prefix }), createRedisStore(storeClient, { prefix })];
    try {
      const [first, second] = [createAgentClient({ store: a }), createAgentClient({ store: b })];
      expect(await first.fetch(`${server.url}/a`)).toMatchObject({ ok: false, error: { retry_after: 120 } });
      expect(await raw.pTTL(redisKey(prefix, 'b', new URL(server.url).origin, '/a'))).toBeGreaterThan(100_000);
      expect(await raw.exists(redisKey(prefix, 'b', new URL(server.url).origin))).toBe(0);
      expect(await second.fetch(`${server.url}/a?x=1`)).toMatchObject({ ok: false, remembered: true, error: { code: 'temporarily_unavailable' }, learnt: { url: `${server.url}/a` } });
      expect(server.calls()).toBe(1);
      expect((await second.fetch(`${server.url}/b`)).ok).toBe(true);
      expect(server.calls()).toBe(2);
      expect(await first.fetch(`${server.url}/limited`)).toMatchObject({ ok: false, error: { code: 'rate_limited' } });
      // The second worker's mirror hears of the wait on the channel, a moment after the first shared it.
      let heard = false;
      for (let i = 0; i < 200 && !heard; i++) heard = (await b.admit!(new URL(server.url).origin, { path: '/b', retry: true })).kind === 'wait' || (await new Promise((r) => setTimeout(r, 5)), false);
      expect(heard).toBe(true);
      expect(await second.fetch(`${server.url}/b`)).toMatchObject({ ok: false, remembered: true, error: { code: 'rate_limited' }, learnt: { url: `${server.url}/limited` } });
      expect(server.calls()).toBe(3);
    } finally {
      a.detach();
      b.detach();
    }
  });
});

describe('the guard options', () => {
  it('names an unknown member and the one it was meant to be', () => {
    expect(() => createMemoryStore({ retryBudget: { ration: 0.2 } as never })).toThrow(new TypeError('createMemoryStore: retryBudget: unknown option "ration" (did you mean "ratio"?)'));
    expect(() => createMemoryStore({ circuit: { openMS: 100 } as never })).toThrow(new TypeError('createMemoryStore: circuit: unknown option "openMS" (did you mean "openMs"?)'));
    expect(() => createRedisStore(storeClient, { circuit: { minFailure: 3 } as never })).toThrow(new TypeError('createRedisStore: circuit: unknown option "minFailure" (did you mean "minFailures"?)'));
    expect(() => createRedisStore(storeClient, { retryBudget: { flor: 3 } as never })).toThrow(new TypeError('createRedisStore: retryBudget: unknown option "flor" (did you mean "floor"?)'));
    expect(() => createMemoryStore({ retryBudgets: false } as never)).toThrow(/createMemoryStore: unknown option "retryBudgets" \(did you mean "retryBudget"\?\)/);
  });

  it.each([
    [{ retryBudget: { ratio: 2 } }, 'retryBudget: ratio must be a share of requests, from 0 to 1 (got 2)'],
    [{ retryBudget: { ratio: -0.1 } }, 'retryBudget: ratio must be a share of requests, from 0 to 1 (got -0.1)'],
    [{ retryBudget: { floor: 1.5 } }, 'retryBudget: floor must be a whole number of retries, 0 or more (got 1.5)'],
    [{ retryBudget: 'yes' }, 'retryBudget must be false or { ratio, floor } (got "yes")'],
    [{ retryBudget: true }, 'retryBudget must be false or { ratio, floor } (got true)'],
    [{ circuit: { openMs: 0 } }, 'circuit: openMs must be a whole number of milliseconds, 1 or more (got 0)'],
    [{ circuit: { openMs: 500, maxOpenMs: 100 } }, 'circuit: maxOpenMs must be at least openMs (500) (got 100)'],
    [{ circuit: { maxOpenMs: 100 } }, 'circuit: maxOpenMs must be at least openMs (250) (got 100)'],
    [{ circuit: { failureRatio: 0 } }, 'circuit: failureRatio must be a share of calls, above 0 and at most 1 (got 0)'],
    [{ circuit: { minFailures: 0 } }, 'circuit: minFailures must be a whole number of calls, 1 or more (got 0)'],
    [{ circuit: null }, 'circuit must be false or { failureRatio, minFailures, openMs, maxOpenMs } (got null)'],
    [{ circuit: [] }, 'circuit must be false or { failureRatio, minFailures, openMs, maxOpenMs } (got [])'],
  ])('refuses %j, saying what it takes', (options, message) => {
    expect(() => createMemoryStore(options as never)).toThrow(new TypeError(`createMemoryStore: ${message}`));
    expect(() => createRedisStore(storeClient, options as never)).toThrow(new TypeError(`createRedisStore: ${message}`));
  });

  it('takes every documented value', () => {
    for (const options of [{ retryBudget: false as const, circuit: false as const }, { retryBudget: { ratio: 0, floor: 0 }, circuit: { failureRatio: 1, minFailures: 1, openMs: 1, maxOpenMs: 1 } }, { retryBudget: {}, circuit: {} }]) {
      expect(() => createMemoryStore(options)).not.toThrow();
      const store = createRedisStore(storeClient, { ...options, prefix: uniquePrefix('options'), mirror: false });
      store.detach();
    }
  });
});

describe('properties of the memory store', () => {
  type BudgetOp = { op: 'admit'; retry: boolean } | { op: 'draw' } | { op: 'advance'; ms: number };
  const budgetOps = fc.array(
    fc.oneof(
      fc.record({ op: fc.constant('admit' as const), retry: fc.boolean() }),
      fc.record({ op: fc.constant('draw' as const) }),
      fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 7000 }) }),
    ) as fc.Arbitrary<BudgetOp>,
    { maxLength: 150 },
  );
  const budgets = fc.record({ ratio: fc.double({ min: 0, max: 1, noNaN: true }), floor: fc.integer({ min: 0, max: 5 }) });
  /** The events at times of the bucket of `t` and the one before. */
  const inWindow = (times: readonly number[], t: number, bucketMs: number): number => times.filter((x) => Math.floor(x / bucketMs) >= Math.floor(t / bucketMs) - 1).length;

  /** Runs `ops`; for each draw, the granted retries and requests of the window (counted here), the draw's answer. */
  function runBudget(budget: { ratio: number; floor: number }, start: number, ops: readonly BudgetOp[], check: (granted: number, requests: number, answer: Spent | Tripped | undefined) => void): void {
    const clock = virtualClock(start);
    const store = createMemoryStore({ now: clock.now, retryBudget: budget, circuit: false });
    const requests: number[] = [];
    const retries: number[] = [];
    for (const o of ops) {
      const t = clock.now();
      if (o.op === 'advance') clock.advance(o.ms);
      else if (o.op === 'admit') {
        expect(sync(store.admit!(K, { retry: o.retry })).kind).toBe('call');
        if (!o.retry) requests.push(t);
      } else {
        const before = inWindow(retries, t, BUDGET_MS);
        const answer = sync(store.drawRetry!(K));
        if (answer === undefined) retries.push(t);
        check(inWindow(retries, t, BUDGET_MS), inWindow(requests, t, BUDGET_MS), answer);
        if (answer !== undefined) expect(answer).toEqual({ kind: 'spent', retries: before, requests: inWindow(requests, t, BUDGET_MS) });
      }
    }
  }

  it('property: a draw is granted exactly when, with it, the retries of the current and previous 5-s bucket are at most floor + ratio × their requests', () => {
    fc.assert(
      fc.property(budgets, fc.integer({ min: 0, max: 2 * BUDGET_MS }), budgetOps, (budget, offset, ops) => {
        runBudget(budget, START + offset, ops, (granted, requests, answer) => {
          const allowance = budget.floor + budget.ratio * requests;
          // Granted: with it, the retries are within the allowance; refused: one more would not be.
          if (answer === undefined) expect(granted <= allowance).toBe(true);
          else expect(granted + 1 > allowance).toBe(true);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('property: at every granted draw, the retries granted in the window are at most floor + ratio × its requests', () => {
    fc.assert(
      fc.property(budgets, fc.integer({ min: 0, max: 2 * BUDGET_MS }), budgetOps, (budget, offset, ops) => {
        runBudget(budget, START + offset, ops, (granted, requests, answer) => {
          if (answer === undefined) expect(granted).toBeLessThanOrEqual(budget.floor + budget.ratio * requests);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('property: the circuit opens exactly when a failure brings the window to minFailures failures and failureRatio of its calls, never with fewer', () => {
    type Op = { op: 'settle'; answered: boolean; failed: boolean } | { op: 'advance'; ms: number };
    const ops = fc.array(
      fc.oneof(
        { arbitrary: fc.record({ op: fc.constant('settle' as const), answered: fc.boolean(), failed: fc.boolean() }), weight: 4 },
        { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 1500 }) }), weight: 1 },
      ) as fc.Arbitrary<Op>,
      { maxLength: 200 },
    );
    const rules = fc.record({ failureRatio: fc.double({ min: 0.05, max: 1, noNaN: true }), minFailures: fc.integer({ min: 1, max: 8 }), openMs: fc.integer({ min: 1, max: 3000 }) });
    fc.assert(
      fc.property(rules, fc.integer({ min: 0, max: 2 * CIRCUIT_MS }), ops, (rule, offset, steps) => {
        const clock = virtualClock(START + offset);
        // No probe lease, budget or quota: admit then only reads the circuit, and answers open only inside a window.
        const store = createMemoryStore({ now: clock.now, circuit: { ...rule, maxOpenMs: 3000 }, probeLeaseMs: 0, retryBudget: false, paceQuota: false });
        let open = false;
        let events: { t: number; failed: boolean }[] = [];
        for (const s of steps) {
          if (s.op === 'advance') {
            clock.advance(s.ms);
            continue;
          }
          const t = clock.now();
          const a = sync(store.admit!(K));
          if (a.kind === 'open') {
            // Inside a window: no call.
            expect(open).toBe(true);
            continue;
          }
          if (a.kind !== 'call') throw new Error(`admit answered ${a.kind}`);
          sync(store.settle!(K, { admitted: a, answered: s.answered, ...(s.failed ? { failed: true } : {}) }));
          if (open) {
            // Open, only a success closes it, and its counts start afresh.
            if (s.answered && !s.failed) [open, events] = [false, []];
            continue;
          }
          events.push({ t, failed: s.failed });
          const window = events.filter((e) => Math.floor(e.t / CIRCUIT_MS) >= Math.floor(t / CIRCUIT_MS) - 1);
          const failures = window.filter((e) => e.failed).length;
          const seen = sync(store.admit!(K));
          const opened = seen.kind === 'open';
          if (opened) {
            expect(failures).toBeGreaterThanOrEqual(rule.minFailures);
            expect(failures).toBeGreaterThanOrEqual(rule.failureRatio * window.length);
            expect(seen).toEqual({ kind: 'open', until: t + rule.openMs, failures, calls: window.length });
          }
          expect(opened).toBe(s.failed && failures >= rule.minFailures && failures >= rule.failureRatio * window.length);
          open = opened;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('properties of the Redis store', () => {
  const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
  const error = { code: 'temporarily_unavailable', message: 'Service Unavailable', field: null, retry: 'after_delay' as const, retry_after: 2 };
  const SCOPES = ['https://a.test', 'https://b.test', 'https://c.test'];
  const PATHS = ['/', '/a', '/b'];

  /** Waits until the store's subscriber is on `channel`. */
  async function subscribed(channel: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const reply = (await raw.sendCommand(['PUBSUB', 'NUMSUB', channel])) as [string, number];
      if (Number(reply[1]) >= 1) return;
      await pause(5);
    }
    throw new Error(`no subscriber on ${channel}`);
  }

  it('property: after any admits, settles and draws, every key under the prefix expires and the counts hash has at most 10 fields', async () => {
    type Op =
      | { op: 'admit'; scope: number; path: string | undefined; retry: boolean }
      | { op: 'settle'; scope: number; answered: boolean; failed: boolean; wait: { ms: number; path: string | undefined } | undefined; quota: { remaining: number; resetMs: number; limit: number | undefined; windowMs: number | undefined } | undefined }
      | { op: 'draw'; scope: number }
      | { op: 'pause'; ms: number };
    const scope = fc.integer({ min: 0, max: SCOPES.length - 1 });
    const path = fc.option(fc.constantFrom(...PATHS), { nil: undefined });
    const op = fc.oneof(
      { arbitrary: fc.record({ op: fc.constant('admit' as const), scope, path, retry: fc.boolean() }), weight: 4 },
      {
        arbitrary: fc.record({
          op: fc.constant('settle' as const),
          scope,
          answered: fc.boolean(),
          failed: fc.boolean(),
          wait: fc.option(fc.record({ ms: fc.integer({ min: 1, max: 3000 }), path }), { nil: undefined }),
          quota: fc.option(fc.record({ remaining: fc.nat(5), resetMs: fc.integer({ min: 0, max: 3000 }), limit: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }), windowMs: fc.option(fc.integer({ min: 1000, max: 3000 }), { nil: undefined }) }), { nil: undefined }),
        }),
        weight: 4,
      },
      { arbitrary: fc.record({ op: fc.constant('draw' as const), scope }), weight: 2 },
      { arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.integer({ min: 0, max: 120 }) }), weight: 1 },
    ) as fc.Arbitrary<Op>;
    const fail = (s: number): Op => ({ op: 'settle', scope: s, answered: true, failed: true, wait: undefined, quota: undefined });
    const waited = (s: number, path: string | undefined): Op => ({ op: 'settle', scope: s, answered: true, failed: false, wait: { ms: 30, path }, quota: undefined });
    const admit = (s: number, path?: string): Op => ({ op: 'admit', scope: s, path, retry: false });
    // One run that surely makes every kind of key: opens the circuit (after SETTLE_COUNT_MS of
    // counting), fails a probe, probes again (its lease); waits on a scope and on a path, each probed after.
    const opening: Op[] = [
      fail(0), fail(0), { op: 'pause', ms: 260 }, fail(0), { op: 'pause', ms: 110 }, admit(0, '/a'), fail(0),
      waited(1, undefined), waited(2, '/a'), { op: 'pause', ms: 220 }, admit(0), admit(1), admit(2, '/a'), { op: 'draw', scope: 0 },
    ];
    const kinds = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
        const prefix = uniquePrefix('ttl');
        const fallbacks: unknown[] = [];
        const store = createRedisStore(storeClient, { prefix, circuit: { minFailures: 2, openMs: 100, maxOpenMs: 300 }, probeLeaseMs: 500, onFallback: (e) => void fallbacks.push(e) });
        const admitted = new Map<number, Call>();
        try {
          for (const o of ops) {
            if (o.op === 'pause') await pause(o.ms);
            else if (o.op === 'admit') {
              const a = await store.admit!(SCOPES[o.scope]!, { path: o.path, retry: o.retry });
              if (a.kind === 'call') admitted.set(o.scope, a);
            } else if (o.op === 'draw') await store.drawRetry!(SCOPES[o.scope]!);
            else {
              const a = admitted.get(o.scope) ?? { kind: 'call' };
              admitted.delete(o.scope);
              const wait = o.wait && { until: Date.now() + o.wait.ms, error: { ...error, retry_after: Math.ceil(o.wait.ms / 1000) }, learnt: { url: `${SCOPES[o.scope]}${o.wait.path ?? '/'}`, at: Date.now() }, ...(o.wait.path === undefined ? {} : { path: o.wait.path }) };
              const quota = o.quota && { remaining: o.quota.remaining, resetMs: o.quota.resetMs, ...(o.quota.limit === undefined ? {} : { limit: o.quota.limit }), ...(o.quota.windowMs === undefined ? {} : { windowMs: o.quota.windowMs }) };
              await store.settle!(SCOPES[o.scope]!, { admitted: a, answered: o.answered, ...(o.failed ? { failed: true } : {}), ...(wait ? { wait } : {}), ...(quota ? { quota } : {}) });
            }
          }
          expect(fallbacks).toEqual([]);
          const keys: string[] = [];
          for await (const batch of raw.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) keys.push(...batch);
          for (const key of keys) {
            const ttl = await raw.pTTL(key);
            // -1 would be a key that lives for ever; -2 one that expired since the scan, 0 one expiring this ms.
            expect(ttl, key).not.toBe(-1);
            kinds.add(key.slice(key.indexOf('}') + 1).split('/')[0]!);
          }
          for (const s of SCOPES) expect(await raw.hLen(redisKey(prefix, 'k', s))).toBeLessThanOrEqual(10);
        } finally {
          store.detach();
        }
      }),
      { numRuns: 15, examples: [[opening]] },
    );
    // The runs went through every kind of key a scope has: waits, probes, leases (scope and path), quota, circuit, counts.
    for (const kind of ['b', 'p', 'l', 'q', 'u', 'o', 'e', 'k', 'w']) expect([...kinds].some((k) => k === kind)).toBe(true);
  });

  it('property: garbage published on its events channel never makes the store throw or mis-answer', async () => {
    const prefix = uniquePrefix('garbage');
    const channel = `${prefix}events`;
    const fallbacks: unknown[] = [];
    const store = createRedisStore(storeClient, { prefix, onFallback: (e) => void fallbacks.push(e) });
    const quiet = 'https://quiet.test';
    const sentinel = 'https://sentinel.test';
    const valid = JSON.stringify({ code: 'rate_limited', message: 'Too Many Requests', field: null, retry: 'after_delay', retry_after: 60 });
    try {
      await subscribed(channel);
      /** One call to `quiet`, answered; what admit said. */
      const callQuiet = async (): Promise<Admission> => {
        const a = await store.admit!(quiet);
        if (a.kind === 'call') await store.settle!(quiet, { admitted: a, answered: true });
        return a;
      };
      expect((await callQuiet()).kind).toBe('call');
      expect((await store.admit!(sentinel)).kind).toBe('call');
      // Quiet, a scope is answered from the mirror, without a promise.
      let mirrored = false;
      for (let i = 0; i < 100 && !mirrored; i++) mirrored = !(store.admit!(quiet) instanceof Promise) || (await pause(5), false);
      expect(mirrored).toBe(true);

      const notNumber = fc.jsonValue().filter((v) => typeof v !== 'number' || v <= 0);
      const kinds = fc.constantFrom('wait', 'clear', 'open', 'close', 'count', 'quota', 'WAIT', '', 'opening');
      const garbage = fc.oneof(
        fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
        fc.json(),
        fc.tuple(kinds, fc.constantFrom(quiet, sentinel, 'https://unknown.test'), notNumber, notNumber, notNumber).map((m) => JSON.stringify(m)),
        fc.tuple(kinds, notNumber).map((m) => JSON.stringify(m)),
        fc.tuple(fc.constantFrom('wait'), fc.constant(quiet), fc.string(), fc.integer(), fc.oneof(fc.string(), fc.constant(JSON.stringify({ code: 'x' })), fc.constant('{"error":{}}'))).map((m) => JSON.stringify(m)),
      );
      let run = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(garbage, { minLength: 1, maxLength: 6 }), async (messages) => {
          run += 1;
          for (const m of messages) await raw.sendCommand(['PUBLISH', channel, m]);
          // A wait published after the garbage: once it is heard, so was the garbage before it.
          await raw.sendCommand(['PUBLISH', channel, JSON.stringify(['wait', sentinel, `/s${run}`, 60_000, valid])]);
          let heard = false;
          for (let i = 0; i < 400 && !heard; i++) heard = (await store.admit!(sentinel, { path: `/s${run}` })).kind === 'wait' || (await pause(5), false);
          expect(heard).toBe(true);
          expect((await callQuiet()).kind).toBe('call');
          expect((await callQuiet()).kind).toBe('call');
          expect(store.degraded).toBe(false);
        }),
        { numRuns: 40 },
      );
      expect(fallbacks).toEqual([]);
    } finally {
      store.detach();
    }
  });
});
