// The axios binding against real loopback servers, each case run twice in one test: axios with
// axios-retry's defaults alone, and agentAxios(instance). A site answers from how long its client
// has slept, so a retry that comes too early meets another error, as it would at a real site. Each
// sleep (axios-retry's retryDelay, agentAxios's sleep option) is recorded and cut to at most 1 ms,
// so the cases take no real time; one case sleeps for real.
import axios, { type AxiosResponse, type ResponseType } from 'axios';
import axiosRetry, { DEFAULT_OPTIONS, type IAxiosRetryConfig } from 'axios-retry';
import { describe, expect, it } from 'vitest';
import { agentAxios, type AgentAxiosOptions } from '../../src/agent/axios.js';
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

/** axios-retry's options with each delay recorded and, unless `real`, cut to at most 1 ms. */
function recording(options: IAxiosRetryConfig, delays: number[], real: boolean): IAxiosRetryConfig {
  const delay = options.retryDelay ?? DEFAULT_OPTIONS.retryDelay;
  return {
    ...options,
    retryDelay(count, error) {
      const ms = delay(count, error);
      delays.push(ms);
      return real ? ms : Math.min(ms, 1);
    },
  };
}

interface Request {
  readonly method?: 'get' | 'post';
  readonly headers?: Record<string, string>;
  readonly responseType?: ResponseType;
  readonly real?: boolean;
}

/** agentAxios's options, as run() tells them from axios-retry's. */
interface Agent {
  readonly agent: AgentAxiosOptions;
  /** The clock its store and now run on, moved by each sleep (the store remembers every wait it is told). */
  readonly clock: ReturnType<typeof virtualClock>;
}
/** agentAxios with `options`; a fresh store on a virtual clock unless they name a store (then on `clock`). */
const agent = (options: Omit<AgentAxiosOptions, 'store' | 'now'> & { store?: Store }, clock = virtualClock()): Agent => ({
  agent: { store: createMemoryStore({ now: clock.now }), ...options, now: clock.now },
  clock,
});

/** One request through axios with axios-retry and `options`, or agentAxios, to a site answering `answer(ms slept so far)`: its calls, final status and the delays of its retries. */
async function run(options: IAxiosRetryConfig | Agent, answer: (slept: number) => Answer, request: Request = {}) {
  const delays: number[] = [];
  const client = axios.create();
  const real = request.real ?? false;
  if ('agent' in options) {
    const sleep = (ms: number) => {
      delays.push(ms);
      options.clock.advance(ms);
      return new Promise<void>((resolve) => setTimeout(resolve, real ? ms : Math.min(ms, 1)));
    };
    agentAxios(client, { sleep, ...options.agent });
  } else axiosRetry(client, recording(options, delays, real));
  const start = performance.now();
  const server = await serve((_req, res) => {
    const { status, headers, body } = answer(request.real ? performance.now() - start : delays.reduce((a, b) => a + b, 0));
    res.writeHead(status, headers).end(body ?? '');
  });
  servers.push(server);
  const { method = 'get', headers, responseType } = request;
  const response: AxiosResponse | undefined = await client
    .request({ url: server.url, method, ...(headers ? { headers } : {}), ...(responseType ? { responseType } : {}) })
    .catch((error: { response?: AxiosResponse }) => error.response);
  return { calls: server.calls(), status: response?.status ?? 0, delays };
}

const ALONE: IAxiosRetryConfig = {};
const plugin = () => agent({});

describe('agentAxios: axios-retry alone, then axios with agentAxios', () => {
  it('a 429 with Retry-After 2: both wait 2 s once and get the 200 (2 calls)', async () => {
    expect(await run(ALONE, told(2, 'header'))).toEqual({ calls: 2, status: 200, delays: [2000] });
    expect(await run(plugin(), told(2, 'header'))).toEqual({ calls: 2, status: 200, delays: [2000] });
  });

  it('a 429 whose delay is only in the body: alone retries at once and fails (4 calls); the plug-in waits what the body says (2 calls)', async () => {
    expect(await run(ALONE, told(2, 'body'))).toEqual({ calls: 4, status: 429, delays: [0, 0, 0] });
    expect(await run(plugin(), told(2, 'body'))).toEqual({ calls: 2, status: 200, delays: [2000] });
  });

  it('reads the body whatever the responseType made of it: text, or an ArrayBuffer', async () => {
    for (const responseType of ['text', 'arraybuffer'] as const) {
      expect(await run(plugin(), told(2, 'body'), { responseType })).toEqual({ calls: 2, status: 200, delays: [2000] });
    }
  });

  it('really sleeps the 1 s a body asks for, once, and nothing more', async () => {
    const started = performance.now();
    expect(await run(plugin(), told(1, 'body'), { real: true })).toEqual({ calls: 2, status: 200, delays: [1000] });
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(performance.now() - started).toBeLessThan(1900);
  });

  it('a 400 envelope that says fix_input: 1 call, alone and with the plug-in', async () => {
    expect(await run(ALONE, always(FIX_INPUT))).toEqual({ calls: 1, status: 400, delays: [] });
    expect(await run(plugin(), always(FIX_INPUT))).toEqual({ calls: 1, status: 400, delays: [] });
  });

  it('a 500 on GET: alone calls 4 times, the plug-in retries once (2 calls)', async () => {
    expect(await run(ALONE, always(SERVER_ERROR))).toEqual({ calls: 4, status: 500, delays: [0, 0, 0] });
    expect(await run(plugin(), always(SERVER_ERROR))).toEqual({ calls: 2, status: 500, delays: [1000] });
  });

  it('a 500 on POST: 1 call without an Idempotency-Key; with one, the plug-in retries once where axios-retry alone does not', async () => {
    expect(await run(ALONE, always(SERVER_ERROR), { method: 'post' })).toEqual({ calls: 1, status: 500, delays: [] });
    expect(await run(plugin(), always(SERVER_ERROR), { method: 'post' })).toEqual({ calls: 1, status: 500, delays: [] });
    const keyed = { method: 'post', headers: { 'Idempotency-Key': 'k1' } } as const;
    expect(await run(ALONE, always(SERVER_ERROR), keyed)).toMatchObject({ calls: 1 });
    expect(await run(plugin(), always(SERVER_ERROR), keyed)).toMatchObject({ calls: 2 });
  });

  it('a 429 with Retry-After 120: alone sleeps 120 s (2 calls); the plug-in hands it back at once (1 call) and remembers it', async () => {
    expect(await run(ALONE, told(120, 'header'))).toEqual({ calls: 2, status: 200, delays: [120_000] });
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const started = performance.now();
    expect(await run(agent({ store }, clock), told(120, 'header'), { real: true })).toEqual({ calls: 1, status: 429, delays: [] });
    expect(performance.now() - started).toBeLessThan(500);
    expect(await store.getBackoff(servers.at(-1)!.url)).toMatchObject({ until: clock.now() + 120_000, error: { code: 'rate_limited', retry_after: 120 } });
  });

  it("keeps one request's progress across its calls: with a budget of 3, still one retry of a 500 and one told wait", async () => {
    const bound = agent({ maxCalls: 3 });
    expect(await run(bound, always(SERVER_ERROR))).toEqual({ calls: 2, status: 500, delays: [1000] });
    expect(await run(bound, always({ status: 429, headers: { 'retry-after': '1' } }))).toEqual({ calls: 2, status: 429, delays: [1000] });
  });

  it('a 429 that says nothing of how long: axios-retry alone retries at once 3 times (4 calls); the plug-in hands it back (1 call), or guesses 1 s with unknownDelay backoff', async () => {
    const vague = always({ status: 429 });
    expect(await run(ALONE, vague)).toMatchObject({ calls: 4, status: 429 });
    expect(await run(agent({}), vague)).toEqual({ calls: 1, status: 429, delays: [] });
    expect(await run(agent({ unknownDelay: 'backoff' }), vague)).toEqual({ calls: 2, status: 429, delays: [1000] });
  });

  it('a 429 on POST with Retry-After is waited once: a told wait needs no idempotency', async () => {
    expect(await run(plugin(), told(2, 'header'), { method: 'post' })).toEqual({ calls: 2, status: 200, delays: [2000] });
  });

  it('remembers the last answer too: a second wait, too long to take, is in the store', async () => {
    const clock = virtualClock();
    const store = createMemoryStore({ now: clock.now });
    const answers = [{ status: 429, headers: { 'retry-after': '2' } }, { status: 429, headers: { 'retry-after': '90' } }];
    let n = 0;
    expect(await run(agent({ store }, clock), () => answers[Math.min(n++, 1)]!)).toEqual({ calls: 2, status: 429, delays: [2000] });
    expect(await store.getBackoff(servers.at(-1)!.url)).toMatchObject({ until: clock.now() + 90_000 });
  });

  it("asks the store before a call: a wait too long to take is answered from memory, without a call, in the site's own words, as axios's own AxiosError", async () => {
    const page = JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } });
    const server = await serve((_req, res) => void res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '120' }).end(page));
    servers.push(server);
    const clock = virtualClock();
    const client = agentAxios(axios.create(), { store: createMemoryStore({ now: clock.now }), now: clock.now, sleep: clock.sleep });
    const first = await client.get(server.url).catch((error: { response: AxiosResponse }) => error.response);
    clock.advance(30_000);
    const again = await client.get(`${server.url}/other`).catch((error: { response: AxiosResponse; name: string }) => ({ ...error.response, name: error.name }));
    expect(server.calls()).toBe(1);
    expect([first.status, first.data]).toEqual([429, JSON.parse(page)]);
    // transformResponse parsed the remembered body as it parsed the site's: one shape for the caller.
    expect(again).toMatchObject({ name: 'AxiosError', status: 429, data: JSON.parse(page) });
    expect([again.headers!['retry-after'], again.headers!['agent-errors-source']]).toEqual(['90', 'memory']);
  });

  it('checks its options and its instance when bound', () => {
    expect(() => agentAxios(axios.create(), { maxWaitSeconds: '30' as never })).toThrow(/^agentAxios: maxWaitSeconds must be a number of seconds, 0 or more \(got "30"\)$/);
    expect(() => agentAxios({} as never)).toThrow(/agentAxios: instance must be an axios instance/);
  });
});
