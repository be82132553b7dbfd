// agentUndici against real loopback servers, through undici's own fetch, Node 20's
// built-in fetch (its bundled undici 6, reading the global dispatcher undici 7 sets), undici's
// request API, and the openai SDK on the global fetch: waits told in headers or bodies, answers
// from memory, successes streamed, error pages held only as far as needed and handed over whole.
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import OpenAI from 'openai';
import { Agent, type Dispatcher, fetch as undiciFetch, getGlobalDispatcher, request, setGlobalDispatcher } from 'undici';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CODES } from '../../src/index.js';
import { abortableSleep } from '../../src/agent/policy.js';
import { SOURCE_HEADER } from '../../src/agent/policy.js';
import { createMemoryStore } from '../../src/agent/store.js';
import { agentUndici, type AgentUndiciOptions } from '../../src/agent/undici.js';
import { fromResponse, MAX_BODY_BYTES } from '../../src/core/from-response.js';
import { serve, virtualClock, type TestServer } from '../helpers/server.js';
import { googleRetryBody, requestArbitrary } from '../helpers/sites.js';

const servers: TestServer[] = [];
const agents: Agent[] = [];
const gates: (() => void)[] = [];
const previous = getGlobalDispatcher();
afterEach(async () => {
  setGlobalDispatcher(previous);
  for (const open of gates.splice(0)) open();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  await Promise.all(agents.splice(0).map((a) => a.destroy()));
});

interface Scripted {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
}

/** A server that answers the n-th request (1-based) with responses[n-1], repeating the last, and records each request. */
async function scripted(responses: readonly Scripted[]) {
  let n = 0;
  const requests: { method: string; body: string; key: string | undefined }[] = [];
  const server = await serve((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method!, body: Buffer.concat(chunks).toString(), key: req.headers['idempotency-key'] as string | undefined });
      const r = responses[Math.min(n++, responses.length - 1)]!;
      res.writeHead(r.status, { 'content-type': 'text/html', ...r.headers });
      res.end(r.body ?? `<title>${r.status}</title>`);
    });
  });
  servers.push(server);
  return Object.assign(server, { requests });
}

/** A promise to open later; opened by afterEach at the latest. */
function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gates.push(open);
  return { open, opened };
}

/** Fails after `ms` instead of hanging, for what must happen before a gated server goes on. */
const within = <T>(promise: Promise<T>, ms = 5_000): Promise<T> =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`nothing within ${ms} ms`)), ms).unref())]);

const TEN_MB = 10 * 1024 * 1024;
/** 10 MB of a pattern that repeats only every 251 bytes, so a lost or moved chunk shows. */
const PATTERN = (() => {
  const bytes = Buffer.allocUnsafe(TEN_MB);
  for (let i = 0; i < TEN_MB; i++) bytes[i] = i % 251;
  return bytes;
})();

/** Writes PATTERN: `first` bytes, then waits for `go`, then the rest, minding backpressure; counts what it wrote. */
async function writeLarge(res: ServerResponse, first: number, go: Promise<void>, wrote: { bytes: number }): Promise<void> {
  res.write(PATTERN.subarray(0, first));
  wrote.bytes = first;
  await go;
  const step = 256 * 1024;
  while (wrote.bytes < TEN_MB && !res.destroyed) {
    const chunk = PATTERN.subarray(wrote.bytes, wrote.bytes + step);
    wrote.bytes += chunk.length;
    if (!res.write(chunk)) await once(res, 'drain');
  }
  res.end();
}

/** Reads a web stream to the end. */
async function readAll(body: ReadableStream<Uint8Array>, reader = body.getReader(), first?: Uint8Array): Promise<Buffer> {
  const chunks: Uint8Array[] = first ? [first] : [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    chunks.push(value);
  }
}

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

/** The two fetches the interceptor serves: undici's own with a dispatcher, and Node's built-in through the global dispatcher. */
const FETCHES: readonly { name: string; through: (dispatcher: Dispatcher) => Fetch }[] = [
  {
    name: "undici's own fetch",
    through: (dispatcher) => (url, init) => undiciFetch(url, { ...(init as object), dispatcher }) as unknown as Promise<Response>,
  },
  {
    name: "Node 20's built-in fetch, after setGlobalDispatcher",
    through: (dispatcher) => {
      setGlobalDispatcher(dispatcher);
      return (url, init) => globalThis.fetch(url, init);
    },
  },
];

/** A dispatcher composed with the interceptor on a virtual clock and a store of its own. */
function composed(extra: AgentUndiciOptions = {}) {
  const clock = virtualClock();
  const agent = new Agent();
  agents.push(agent);
  const dispatcher = agent.compose(agentUndici({ now: clock.now, sleep: clock.sleep, store: createMemoryStore({ now: clock.now }), ...extra }));
  return { clock, dispatcher };
}

const GOOGLE_RETRY = googleRetryBody(3);

describe.each(FETCHES)('agentUndici, with $name', ({ through }) => {
  const setup = (extra: AgentUndiciOptions = {}) => {
    const { clock, dispatcher } = composed(extra);
    return { clock, fetch: through(dispatcher) };
  };

  it('waits a Retry-After of 2 s once, and returns the success of the second call', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '2' } }, { status: 200, body: 'ok' }]);
    const { fetch, clock } = setup();
    const response = await fetch(`${server.url}/orders`);
    expect(await response.text()).toBe('ok');
    expect(server.calls()).toBe(2);
    expect(clock.sleeps).toEqual([2_000]);
  });

  it('waits a delay given only in the body: Google RetryInfo', async () => {
    const server = await scripted([{ status: 429, headers: { 'content-type': 'application/json' }, body: GOOGLE_RETRY }, { status: 200, body: 'ok' }]);
    const { fetch, clock } = setup();
    expect(await (await fetch(server.url)).text()).toBe('ok');
    expect(clock.sleeps).toEqual([3_000]);
  });

  it("waits an envelope's retry_after in a gzip body, decoding its own copy, as fetch asks for gzip", async () => {
    const envelope = JSON.stringify({ error: { code: 'temporarily_unavailable', message: 'Down for a moment', field: null, retry: 'after_delay', retry_after: 4 } });
    const server = await scripted([{ status: 503, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(envelope) }, { status: 200, body: 'ok' }]);
    const { fetch, clock } = setup();
    expect(await (await fetch(server.url)).text()).toBe('ok');
    expect(clock.sleeps).toEqual([4_000]);
  });

  it("hands a 120 s wait back as the site's response, body intact; the next call is answered from memory, without a call", async () => {
    const page = '<html><title>Slow down</title><p>Come back in two minutes.</p></html>';
    const server = await scripted([{ status: 429, headers: { 'retry-after': '120', 'x-site': 'yes' }, body: page }, { status: 200, body: 'ok' }]);
    const { fetch, clock } = setup();
    const first = await fetch(`${server.url}/a`);
    expect([first.status, first.headers.get('retry-after'), first.headers.get('x-site'), first.headers.get(SOURCE_HEADER)]).toEqual([429, '120', 'yes', null]);
    expect(await first.text()).toBe(page);

    const again = await fetch(`${server.url}/b`);
    expect(server.calls()).toBe(1);
    // In the site's own words: its status, headers and page, with what remains of the wait.
    expect([again.status, again.headers.get('retry-after'), again.headers.get('x-site'), again.headers.get(SOURCE_HEADER)]).toEqual([429, '120', 'yes', 'memory']);
    expect(await again.text()).toBe(page);

    // A remembered wait that fits in maxWaitSeconds is slept out, then the site is called.
    clock.advance(100_000);
    expect(await (await fetch(`${server.url}/c`)).text()).toBe('ok');
    expect(clock.sleeps).toEqual([20_000]);
    expect(server.calls()).toBe(2);
  });

  it('streams a 10 MB success through as it arrives: the first bytes reach the caller while the server still holds the rest', async () => {
    const go = gate();
    const wrote = { bytes: 0 };
    const server = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(TEN_MB) });
      void writeLarge(res, 64 * 1024, go.opened, wrote);
    });
    servers.push(server);
    const { fetch } = setup();
    const response = await within(fetch(server.url));
    const reader = response.body!.getReader();
    const first = await within(reader.read());
    expect(first.done).toBe(false);
    expect(wrote.bytes).toBe(64 * 1024);
    go.open();
    const body = await readAll(response.body!, reader, first.value);
    expect(body.equals(PATTERN)).toBe(true);
  });

  it('classifies a 10 MB error page from its first 256 KiB, and the caller still gets every byte', async () => {
    const go = gate();
    const wrote = { bytes: 0 };
    const server = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      void writeLarge(res, MAX_BODY_BYTES + 64 * 1024, go.opened, wrote);
    });
    servers.push(server);
    const { fetch, clock } = setup();
    // The response is handed over while the server has sent no more than 320 KiB of 10 MB.
    const response = await within(fetch(server.url));
    expect(response.status).toBe(404);
    expect(wrote.bytes).toBe(MAX_BODY_BYTES + 64 * 1024);
    go.open();
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBe(TEN_MB);
    expect(body.equals(PATTERN)).toBe(true);
    expect(clock.sleeps).toEqual([]);
  });

  it('stops reading a 10 MB error page it will not hand over, and calls again after the wait', async () => {
    let n = 0;
    let finishedFirst: boolean | null = null;
    const server = await serve((_req, res) => {
      if (n++ > 0) return void res.end('ok');
      res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/html' });
      res.on('close', () => (finishedFirst = res.writableFinished));
      void writeLarge(res, MAX_BODY_BYTES + 64 * 1024, new Promise(() => {}), { bytes: 0 });
    });
    servers.push(server);
    const { fetch, clock } = setup();
    expect(await (await within(fetch(server.url))).text()).toBe('ok');
    expect(clock.sleeps).toEqual([1_000]);
    expect(server.calls()).toBe(2);
    expect(finishedFirst).toBe(false);
  });

  it('stops waiting when the caller aborts, and rejects as fetch does, without another call', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '20' } }, { status: 200 }]);
    let sleeping!: (signal: AbortSignal | undefined) => void;
    const asleep = new Promise<AbortSignal | undefined>((resolve) => (sleeping = resolve));
    const { fetch } = setup({ sleep: (ms, signal) => (sleeping(signal), abortableSleep(ms, signal)) });
    const caller = new AbortController();
    const answer = fetch(server.url, { signal: caller.signal });
    const sleep = await within(asleep);
    caller.abort();
    await expect(within(answer, 1_000)).rejects.toMatchObject({ name: 'AbortError' });
    // The interceptor's own sleep was cut short, not left to run its 20 s and call again.
    expect(sleep?.aborted).toBe(true);
    expect(server.calls()).toBe(1);
  });

  it('does not send a POST without an Idempotency-Key again after a 500, and hands the 500 over', async () => {
    const server = await scripted([{ status: 500, body: 'broke' }, { status: 200, body: 'ok' }]);
    const { fetch, clock } = setup();
    const response = await fetch(server.url, { method: 'POST', body: '{"order":1}' });
    expect([response.status, await response.text()]).toEqual([500, 'broke']);
    expect(server.calls()).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('sends a POST with an Idempotency-Key once more after a 500, with the same body', async () => {
    const server = await scripted([{ status: 500, body: 'broke' }, { status: 200, body: 'ok' }]);
    const { fetch } = setup();
    const response = await fetch(server.url, { method: 'POST', body: '{"order":1}', headers: { 'Idempotency-Key': 'k1' } });
    expect(await response.text()).toBe('ok');
    expect(server.requests).toEqual([
      { method: 'POST', body: '{"order":1}', key: 'k1' },
      { method: 'POST', body: '{"order":1}', key: 'k1' },
    ]);
  });
});

describe("agentUndici, with undici's request API", () => {
  it('sends a string body again after a told wait, but never a stream, which cannot be sent twice', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: 'ok' }]);
    const { clock, dispatcher } = composed();
    const sent = await request(server.url, { dispatcher, method: 'PUT', body: 'v=1' });
    expect([sent.statusCode, await sent.body.text()]).toEqual([200, 'ok']);
    expect(server.requests.map((r) => r.body)).toEqual(['v=1', 'v=1']);

    const streamed = await scripted([{ status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: 'ok' }]);
    const handedBack = await request(streamed.url, { dispatcher, method: 'PUT', body: Readable.from([Buffer.from('v=2')]) });
    expect(handedBack.statusCode).toBe(429);
    await handedBack.body.text();
    expect(streamed.calls()).toBe(1);
    expect(clock.sleeps).toEqual([1_000]);
  });

  it('sends a GET that has no body (undefined, as request() leaves it) again after a told wait', async () => {
    const server = await scripted([{ status: 429, headers: { 'retry-after': '1' } }, { status: 200, body: 'ok' }]);
    const { clock, dispatcher } = composed();
    const sent = await request(server.url, { dispatcher });
    expect([sent.statusCode, await sent.body.text()]).toEqual([200, 'ok']);
    expect(server.calls()).toBe(2);
    expect(clock.sleeps).toEqual([1_000]);
  });

  it('reads an Idempotency-Key in a flat header list: a POST that has one is sent once more after a 500', async () => {
    const server = await scripted([{ status: 500 }, { status: 200, body: 'ok' }]);
    const { dispatcher } = composed();
    const sent = await request(server.url, { dispatcher, method: 'POST', headers: ['content-type', 'text/plain', 'Idempotency-Key', 'k2'], body: 'v=3' });
    expect([sent.statusCode, await sent.body.text()]).toEqual([200, 'ok']);
    expect(server.requests).toEqual([
      { method: 'POST', body: 'v=3', key: 'k2' },
      { method: 'POST', body: 'v=3', key: 'k2' },
    ]);
  });
});

describe('agentUndici, with the openai SDK on the global fetch (its own retries off)', () => {
  const COMPLETION = JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'hello', refusal: null }, finish_reason: 'stop', logprobs: null }],
  });
  // What OpenAI sends when a requests-per-minute limit is hit: no Retry-After, the reset in its own headers.
  const RATE_LIMITED: Scripted = {
    status: 429,
    headers: { 'content-type': 'application/json', 'x-ratelimit-limit-requests': '3', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '2s' },
    body: JSON.stringify({ error: { message: 'Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.', type: 'requests', param: null, code: 'rate_limit_exceeded' } }),
  };
  const openai = (server: TestServer) => new OpenAI({ apiKey: 'sk-test', baseURL: `${server.url}/v1`, maxRetries: 0 });
  const ask = (client: OpenAI) => client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

  it('alone, throws the 429 whose reset only x-ratelimit-reset-requests gives', async () => {
    const server = await scripted([RATE_LIMITED, { status: 200, headers: { 'content-type': 'application/json' }, body: COMPLETION }]);
    await expect(ask(openai(server))).rejects.toBeInstanceOf(OpenAI.RateLimitError);
    expect(server.calls()).toBe(1);
  });

  it('with the interceptor, waits the 2 s of x-ratelimit-reset-requests and gets the completion in 2 calls', async () => {
    const server = await scripted([RATE_LIMITED, { status: 200, headers: { 'content-type': 'application/json' }, body: COMPLETION }]);
    const { clock, dispatcher } = composed();
    setGlobalDispatcher(dispatcher);
    const completion = await ask(openai(server));
    expect(completion.choices[0]!.message.content).toBe('hello');
    expect(clock.sleeps).toEqual([2_000]);
    expect(server.requests.map((r) => [r.method, JSON.parse(r.body).model])).toEqual([
      ['POST', 'gpt-4o-mini'],
      ['POST', 'gpt-4o-mini'],
    ]);
  });

  it("hands a 120 s wait to the SDK as OpenAI's own error, then answers from memory without a call", async () => {
    const server = await scripted([{ ...RATE_LIMITED, headers: { ...RATE_LIMITED.headers, 'retry-after': '120' } }]);
    const { clock, dispatcher } = composed();
    setGlobalDispatcher(dispatcher);
    const client = openai(server);
    const first = (await ask(client).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(first).toBeInstanceOf(OpenAI.RateLimitError);
    expect(first.code).toBe('rate_limit_exceeded');
    const second = (await ask(client).catch((e: unknown) => e)) as InstanceType<typeof OpenAI.RateLimitError>;
    expect(second).toBeInstanceOf(OpenAI.RateLimitError);
    expect(second.headers.get(SOURCE_HEADER)).toBe('memory');
    expect(server.calls()).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('agentUndici, whatever the server answers (fast-check)', () => {
  const LARGE = PATTERN.subarray(0, MAX_BODY_BYTES + 40_000);
  // Not 204, 205 and 304, which carry no body; nor 421, which fetch itself sends again on a new
  // connection (the Fetch standard, HTTP-network-or-cache fetch step 16): a second dispatch.
  const BODILESS_OR_REFETCHED = new Set([204, 205, 304, 421]);
  const reply = fc.record({
    status: fc.oneof(fc.constantFrom(200, 400, 404, 408, 409, 429, 500, 502, 503, 504), fc.integer({ min: 200, max: 599 }).filter((s) => !BODILESS_OR_REFETCHED.has(s))),
    retryAfter: fc.option(fc.oneof(fc.integer({ min: 0, max: 120 }).map(String), fc.constantFrom('soon', '-1', 'Wed, 21 Oct 2015 07:28:00 GMT')), { nil: undefined }),
    body: fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
      fc.constant(Buffer.from(GOOGLE_RETRY)),
      fc.integer({ min: 0, max: 90 }).map((s) => Buffer.from(`{"error":{"code":"rate_limited","message":"x","field":null,"retry":"after_delay","retry_after":${s}}}`)),
      fc.constant(LARGE),
    ),
  });
  const scenario = fc.tuple(fc.array(reply, { minLength: 1, maxLength: 4 }), requestArbitrary(4)).map(([replies, request]) => ({ replies, ...request }));
  let replies: readonly { status: number; retryAfter: string | undefined; body: Buffer }[] = [];
  let n = 0;
  let server: TestServer | undefined;
  const agent = new Agent();
  afterAll(async () => {
    await server?.close();
    await agent.destroy();
  });

  it("hands over the last response's exact bytes, within the budget and maxWaitSeconds, and repeats a POST without a key only when told to wait", async () => {
    const methods: string[] = [];
    server = await serve((req, res) => {
      methods.push(req.method!);
      req.resume();
      const r = replies[Math.min(n++, replies.length - 1)]!;
      res.writeHead(r.status, { 'content-type': r.body[0] === 0x7b ? 'application/json' : 'application/octet-stream', ...(r.retryAfter === undefined ? {} : { 'retry-after': r.retryAfter }) });
      res.end(r.body);
    });
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        replies = s.replies;
        n = 0;
        methods.length = 0;
        const clock = virtualClock();
        const options = { now: clock.now, sleep: clock.sleep, store: createMemoryStore({ now: clock.now }), maxCalls: s.budget, maxWaitSeconds: s.maxWaitSeconds, unknownDelay: s.unknownDelay };
        const dispatcher = agent.compose(agentUndici(options));
        const headers: Record<string, string> = s.key ? { 'idempotency-key': 'k' } : {};
        const response = await undiciFetch(server!.url, { dispatcher, method: s.method, headers, ...(s.method === 'GET' ? {} : { body: 'x' }) });
        const calls = methods.length;
        expect(calls).toBeGreaterThanOrEqual(1);
        expect(calls).toBeLessThanOrEqual(s.budget);
        const last = s.replies[Math.min(calls - 1, s.replies.length - 1)]!;
        expect(response.status).toBe(last.status);
        expect(Buffer.from(await response.arrayBuffer()).equals(last.body)).toBe(true);
        expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(s.maxWaitSeconds * 1000);
        if (s.method === 'POST' && !s.key) {
          for (let i = 0; i < calls - 1; i++) {
            const r = s.replies[Math.min(i, s.replies.length - 1)]!;
            const told = fromResponse(r.status, r.retryAfter === undefined ? {} : { 'retry-after': r.retryAfter }, r.body).error.retry;
            expect(told, `call ${i + 1}: ${r.status}`).toBe('after_delay');
          }
        }
      }),
      { numRuns: 200, seed: 20261201 },
    );
  }, 60_000);
});
