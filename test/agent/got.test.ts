// The got plug-in against real loopback servers, each case run twice in one test: got with its own
// retry defaults alone, and got.extend(agentGot()). A site answers from how long its client has
// slept, so a retry that comes too early meets another error, as it would at a real site. got
// sleeps what calculateDelay returns; the recorder notes that delay and sleeps 1 ms instead, so the
// cases take no real time, and one case sleeps for real to show got waits what the body said.
import { gzipSync } from 'node:zlib';
import got, { type ExtendOptions, type Got, type RetryFunction } from 'got';
import { describe, expect, it } from 'vitest';
import { agentGot } from '../../src/agent/got.js';
import { createMemoryStore, type Store } from '../../src/agent/store.js';
import { serve, virtualClock } from '../helpers/server.js';
import { closedAfterEach, FIX_INPUT, googleRetryBody, type Answer } from '../helpers/sites.js';

const servers = closedAfterEach();

const OK: Answer = { status: 200, body: 'ok' };
/** Google's 429 with the delay only in the body (google.rpc.RetryInfo). */
const retryInfo = (seconds: number): Answer => ({ status: 429, headers: { 'content-type': 'application/json' }, body: googleRetryBody(seconds) });
/** A site that says wait `seconds` (in Retry-After, or only in the body) and answers 200 once its client has slept that long. */
const told = (seconds: number, where: 'header' | 'body') => (slept: number): Answer =>
  slept >= seconds * 1000 ? OK : where === 'header' ? { status: 429, headers: { 'retry-after': String(seconds) } } : retryInfo(seconds);
const always = (answer: Answer) => (): Answer => answer;
const SERVER_ERROR: Answer = { status: 500, body: 'Internal Server Error' };

interface Run {
  readonly calls: number;
  readonly status: number;
  /** The delays calculateDelay gave got, in ms, 0 for "do not retry". */
  readonly delays: readonly number[];
}

/** The virtual clock a plug-in's store and now run on, moved by each delay got sleeps (the store remembers every wait it is told). */
const CLOCKS = new WeakMap<ExtendOptions, ReturnType<typeof virtualClock>>();
/** agentGot with `options`, on a fresh store and clock of its own. */
function plugin(options: Parameters<typeof agentGot>[0] = {}): ExtendOptions {
  const clock = virtualClock();
  const extension = agentGot({ store: createMemoryStore({ now: clock.now }), now: clock.now, ...options });
  CLOCKS.set(extension, clock);
  return extension;
}

/** `calculate` recording each delay and, unless `real`, having got sleep 1 ms for it (moving `clock` the whole delay). */
function recorder(calculate: RetryFunction, delays: number[], real = false, clock?: ReturnType<typeof virtualClock>): RetryFunction {
  return async (retry) => {
    const ms = await calculate(retry);
    delays.push(ms);
    clock?.advance(ms);
    return real ? ms : Math.min(ms, 1);
  };
}

/** One request through `client` (got with `extension`) to a site answering `answer(ms slept so far)`. */
async function run(extension: ExtendOptions, answer: (slept: number) => Answer, request: { method?: 'GET' | 'POST'; headers?: Record<string, string> } = {}, real = false): Promise<Run> {
  const delays: number[] = [];
  const calculate = extension.retry?.calculateDelay ?? got.defaults.options.retry.calculateDelay!;
  const client: Got = got.extend(extension, { retry: { calculateDelay: recorder(calculate, delays, real, CLOCKS.get(extension)) } });
  const start = performance.now();
  const server = await serve((_req, res) => {
    const slept = real ? performance.now() - start : delays.reduce((a, b) => a + b, 0);
    const { status, headers, body } = answer(slept);
    res.writeHead(status, headers).end(body ?? '');
  });
  servers.push(server);
  const response = await client(server.url, { method: request.method ?? 'GET', headers: request.headers ?? {} }).catch((error: { response?: { statusCode: number } }) => error.response);
  return { calls: server.calls(), status: response?.statusCode ?? 0, delays: delays.filter((ms) => ms > 0) };
}

const ALONE: ExtendOptions = {};

describe('agentGot: got alone, then with the plug-in', () => {
  it('a 429 with Retry-After 2: both wait 2 s once and get the 200 (2 calls)', async () => {
    expect(await run(ALONE, told(2, 'header'))).toEqual({ calls: 2, status: 200, delays: [2000] });
    expect(await run(plugin(), told(2, 'header'))).toEqual({ calls: 2, status: 200, delays: [2000] });
  });

  it('a 429 whose delay is only in the body: alone comes back too early (3 calls), the plug-in waits what the body says (2 calls)', async () => {
    const alone = await run(ALONE, told(2, 'body'));
    expect(alone).toMatchObject({ calls: 3, status: 200 });
    expect(alone.delays[0]).toBeLessThan(2000);
    expect(await run(plugin(), told(2, 'body'))).toEqual({ calls: 2, status: 200, delays: [2000] });
  });

  it('really sleeps the 1 s a body asks for, once, and nothing more', async () => {
    const started = performance.now();
    expect(await run(plugin(), told(1, 'body'), {}, true)).toEqual({ calls: 2, status: 200, delays: [1000] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(performance.now() - started).toBeLessThan(1900);
  });

  it('a 400 envelope that says fix_input: 1 call, alone and with the plug-in', async () => {
    expect(await run(ALONE, always(FIX_INPUT))).toEqual({ calls: 1, status: 400, delays: [] });
    expect(await run(plugin(), always(FIX_INPUT))).toEqual({ calls: 1, status: 400, delays: [] });
  });

  it('a 500 on GET: alone calls 3 times, the plug-in retries once (2 calls)', async () => {
    expect(await run(ALONE, always(SERVER_ERROR))).toMatchObject({ calls: 3, status: 500 });
    expect(await run(plugin(), always(SERVER_ERROR))).toEqual({ calls: 2, status: 500, delays: [1000] });
  });

  it('a 500 on POST: 1 call without an Idempotency-Key; with one, the plug-in retries once where got alone does not', async () => {
    expect(await run(ALONE, always(SERVER_ERROR), { method: 'POST' })).toEqual({ calls: 1, status: 500, delays: [] });
    expect(await run(plugin(), always(SERVER_ERROR), { method: 'POST' })).toEqual({ calls: 1, status: 500, delays: [] });
    const keyed = { method: 'POST', headers: { 'idempotency-key': 'k1' } } as const;
    expect(await run(ALONE, always(SERVER_ERROR), keyed)).toMatchObject({ calls: 1 });
    expect(await run(plugin(), always(SERVER_ERROR), keyed)).toMatchObject({ calls: 2 });
  });

  it('a 429 with Retry-After 120: alone sleeps 120 s (2 calls); the plug-in hands it back at once (1 call) and remembers it', async () => {
    expect(await run(ALONE, told(120, 'header'))).toEqual({ calls: 2, status: 200, delays: [120_000] });
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const started = performance.now();
    const withPlugin = await run(agentGot({ store, now: clock.now }), told(120, 'header'), {}, true);
    expect(withPlugin).toEqual({ calls: 1, status: 429, delays: [] });
    expect(performance.now() - started).toBeLessThan(500);
    const origin = servers.at(-1)!.url;
    expect(await store.getBackoff(origin)).toMatchObject({ until: clock.now() + 120_000, error: { code: 'rate_limited', retry_after: 120 } });
  });

  it("keeps one request's progress across got's retries: with a budget of 3, still one retry of a 500 and one told wait", async () => {
    const agent = plugin({ maxCalls: 3 });
    expect(await run(agent, always(SERVER_ERROR))).toEqual({ calls: 2, status: 500, delays: [1000] });
    expect(await run(agent, always({ status: 429, headers: { 'retry-after': '1' } }))).toEqual({ calls: 2, status: 429, delays: [1000] });
  });

  it('a 429 that says nothing of how long: got alone backs off twice (3 calls); the plug-in hands it back (1 call), or guesses 1 s with unknownDelay backoff', async () => {
    const vague = always({ status: 429 });
    expect(await run(ALONE, vague)).toMatchObject({ calls: 3, status: 429 });
    expect(await run(plugin(), vague)).toEqual({ calls: 1, status: 429, delays: [] });
    expect(await run(plugin({ unknownDelay: 'backoff' }), vague)).toEqual({ calls: 2, status: 429, delays: [1000] });
  });

  it('a 429 on POST with Retry-After is waited once: a told wait needs no idempotency', async () => {
    expect(await run(plugin(), told(2, 'header'), { method: 'POST' })).toEqual({ calls: 2, status: 200, delays: [2000] });
  });
});

describe('agentGot and the store', () => {
  /** A store that remembers the site asked `seconds` more of its origin. */
  const remembering = (store: Store, origin: string, now: number, seconds: number) =>
    store.setBackoff(origin, { until: now + seconds * 1000, error: { code: 'rate_limited', message: 'Slow down', field: null, retry: 'after_delay', retry_after: seconds } });

  it('sleeps a remembered wait out before the first call, and it counts against maxWaitSeconds', async () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const server = await serve((_req, res) => res.writeHead(429, { 'retry-after': '3' }).end());
    servers.push(server);
    await remembering(store, server.url, clock.now(), 4);
    // 4 s remembered + 3 s told is more than 5: the told wait is handed back after one call.
    const client = got.extend(agentGot({ store, now: clock.now, sleep: clock.sleep, maxWaitSeconds: 5 }));
    const error = await client(server.url).catch((e: { response?: { statusCode: number } }) => e);
    expect(clock.sleeps).toEqual([4000]);
    expect(server.calls()).toBe(1);
    expect((error as { response?: { statusCode: number } }).response?.statusCode).toBe(429);
  });

  it('sleeps nothing of its own for a told wait: got sleeps it, and the retry does not sleep it again from memory', async () => {
    // On the real clock got's sleep runs on: the retry finds the wait over, and probes.
    const sleeps: number[] = [];
    const extension = agentGot({ store: createMemoryStore(), sleep: async (ms) => void sleeps.push(ms) });
    expect(await run(extension, told(1, 'header'), {}, true)).toEqual({ calls: 2, status: 200, delays: [1000] });
    expect(sleeps).toEqual([]);
  });

  it('decodes a compressed error body itself, bounded: a gzip envelope is waited out, and one handed back reaches the caller decoded', async () => {
    const envelope = (seconds: number) => JSON.stringify({ error: { code: 'temporarily_unavailable', message: 'Down for a moment', field: null, retry: 'after_delay', retry_after: seconds } });
    const gzipped = (seconds: number): Answer => ({ status: 503, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(envelope(seconds)) as unknown as string });
    expect(await run(plugin(), (slept) => (slept >= 2000 ? OK : gzipped(2)))).toEqual({ calls: 2, status: 200, delays: [2000] });
    const server = await serve((_req, res) => void res.writeHead(503, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(envelope(120))));
    servers.push(server);
    const response = await got.extend(plugin())(server.url, { throwHttpErrors: false, responseType: 'json' });
    expect([response.statusCode, response.body]).toEqual([503, JSON.parse(envelope(120))]);
    expect(server.calls()).toBe(1);
  });
});
