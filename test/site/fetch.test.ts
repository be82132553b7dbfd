import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { rateLimiter } from 'hono-rate-limiter';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import { readCapped } from '../../src/site/body.js';
import { serve, type TestServer } from '../helpers/server.js';
import { AGENT, CHUNK, counted, PROBLEM, BROWSER, ANY, SIGNED, sha, expectBytes, expectCappedError, expectEnvelope, expectRateLimited } from '../helpers/agents.js';

const MB = 1024 * 1024;
const CAP = 64 * 1024;
const secrets: unknown[] = [];


const GONE = { error: { code: 'out_of_stock', message: 'Gone', field: null, retry: 'no', retry_after: null } };
let errorStream: ReturnType<typeof counted>['stats'] | undefined;

/** A Fetch API app with no framework: a switch over the path. */
function app(request: Request): Response {
  switch (new URL(request.url).pathname) {
    case '/ok':
      return Response.json({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) });
    case '/stream':
      return new Response(counted(10 * MB).stream, { headers: { 'content-type': 'application/octet-stream' } });
    case '/stream-error': {
      const { stream, stats } = counted(10 * MB, '<html><head><title>Broken stream</title></head><body>');
      errorStream = stats;
      return new Response(stream, { status: 500, headers: { 'content-type': 'text/html' } });
    }
    case '/boom':
      throw new TypeError('secret db password');
    case '/broken-page': {
      // An error page whose stream fails after its first chunk: the app's upstream went away.
      let sent = false;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent) return controller.error(new Error('upstream closed mid-page'));
          sent = true;
          controller.enqueue(new TextEncoder().encode('<html><head><title>Bad gateway</title></head><body>'));
        },
      });
      return new Response(stream, { status: 502, headers: { 'content-type': 'text/html' } });
    }
    case '/sold-out':
      return new Response('<html><head><title>Sold out</title></head><body><h1>Sold out</h1></body></html>', { status: 404, headers: { 'content-type': 'text/html' } });
    case '/already':
      return Response.json(GONE, { status: 409 });
    case '/already-padded': {
      // A contract body longer than bufferBytes: its first bytes parse, so it is sent on whole.
      const bytes = new TextEncoder().encode(JSON.stringify(GONE) + ' '.repeat(MB));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let at = 0; at < bytes.byteLength; at += CHUNK) controller.enqueue(bytes.subarray(at, at + CHUNK));
          controller.close();
        },
      });
      return new Response(stream, { status: 409, headers: { 'content-type': 'application/json' } });
    }
    default:
      return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
  }
}

/** A Hono app with nothing of this package in it, wrapped from the outside. */
const hono = new Hono();
hono.get('/unauthorized', () => {
  throw new HTTPException(401, { message: 'Unauthorized' });
});
hono.use('/limited', rateLimiter({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-7', keyGenerator: () => 'everyone' }));
hono.get('/limited', (c) => c.text('ok'));

const listen = (fetch: (request: Request) => Promise<Response> | Response) => serve(getRequestListener(fetch, { overrideGlobalObjects: false }));

let server: TestServer;
let bare: TestServer;
let plain: TestServer;
let framework: TestServer;
beforeAll(async () => {
  server = await listen(agentFriendlyFetch(app, { bufferBytes: CAP, onError: (e) => secrets.push(e) }));
  bare = await listen(app);
  plain = await listen(agentFriendlyFetch(() => new Response('Not found', { status: 404 })));
  framework = await listen(agentFriendlyFetch(hono.fetch));
});
afterAll(async () => {
  await Promise.all([server, bare, plain, framework].map((s) => s.close()));
});

const get = (path: string, headers: Record<string, string>, base = server.url, method = 'GET') => fetch(`${base}${path}`, { headers, method });

describe('agentFriendlyFetch', () => {
  it("turns a plain () => new Response('Not found', { status: 404 }) into a valid envelope for an agent", async () => {
    const res = await get('/x', AGENT, plain.url);
    await expectEnvelope(res, 404, { code: 'not_found', message: 'Not found', retry: 'no' });
  });

  it("gives a browser, and a bare */*, the app's own response, byte for byte", async () => {
    for (const headers of [BROWSER, ANY]) {
      for (const path of ['/nowhere', '/sold-out']) {
        const expected = await get(path, headers, bare.url);
        const res = await get(path, headers);
        expect(res.status).toBe(expected.status);
        expect(res.headers.get('content-type')).toBe(expected.headers.get('content-type'));
        expect(await res.text()).toBe(await expected.text());
      }
    }
  });

  it('converts a Hono HTTPException(401) and a Hono 404 answered by app.fetch', async () => {
    const unauthorized = await get('/unauthorized', SIGNED, framework.url);
    expect(unauthorized.status).toBe(401);
    const body = await unauthorized.json();
    expect(validateEnvelope(body).errors).toEqual([]);
    expect(body.error).toMatchObject({ code: 'auth_required', message: 'Unauthorized' });
    const problem = await (await get('/nowhere', PROBLEM, framework.url)).json();
    expect(validateProblem(problem).errors).toEqual([]);
    expect(problem).toMatchObject({ code: 'not_found', type: `${framework.url}/problems/not_found` });
    expect(await (await get('/unauthorized', BROWSER, framework.url)).text()).toBe('Unauthorized');
    expect(await (await get('/nowhere', BROWSER, framework.url)).text()).toBe('404 Not Found');
  });

  it('converts an error page whose stream fails from what was read, and hands the failure to onError', async () => {
    const res = await get('/broken-page', AGENT);
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(validateEnvelope(await res.json(), { received: true }).errors).toEqual([]);
    expect(secrets.some((e) => e instanceof Error && e.message === 'upstream closed mid-page')).toBe(true);
  });

  it('turns a hono-rate-limiter 429 into rate_limited with its delay in the body and Retry-After', async () => {
    await get('/limited', AGENT, framework.url);
    const res = await get('/limited', AGENT, framework.url);
    await expectRateLimited(res);
    expect(res.headers.get('ratelimit')).toMatch(/remaining=0/);
  });

  it('sends a body already in this contract as the app sent it', async () => {
    const [a, b] = [await get('/already', AGENT), await get('/already', BROWSER)];
    expect(a.status).toBe(409);
    expect(await a.text()).toBe(await b.text());
    const padded = await get('/already-padded', AGENT);
    expect(padded.status).toBe(409);
    const text = await padded.text();
    expect(text.length).toBe(JSON.stringify(GONE).length + MB);
    expect(JSON.parse(text)).toEqual(GONE);
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    await expectBytes(await get('/stream', AGENT), new Uint8Array(10 * MB).fill(120));
  });

  it('converts a 10 MB streamed error from its first bufferBytes and reads no further', async () => {
    const res = await get('/stream-error', AGENT);
    await expectCappedError(res, () => errorStream!, CAP);
  });

  it("answers a synchronous app's success synchronously, without reading the request's headers", () => {
    const wrapped = agentFriendlyFetch(app);
    for (const [path, status] of [['/ok', 200], ['/stream', 200]] as const) {
      const request = new Request(`http://shop.test${path}`, { headers: AGENT });
      let reads = 0;
      const headers = request.headers;
      Object.defineProperty(request, 'headers', { get: () => (reads++, headers) });
      const response = wrapped(request);
      expect(response).toBeInstanceOf(Response);
      expect((response as Response).status).toBe(status);
      expect(reads).toBe(0);
      void (response as Response).body?.cancel();
    }
    // An error is where the request is read: an agent's 404 is converted, a Promise of the answer.
    const missing = wrapped(new Request('http://shop.test/nowhere', { headers: AGENT }));
    expect(missing).toBeInstanceOf(Promise);
  });

  it("answers a browser's thrown error with a plain 500 (synchronously for a synchronous app) and an agent's as internal, each handed to onError once", async () => {
    const heard: unknown[] = [];
    const wrapped = agentFriendlyFetch(app, { onError: (e) => heard.push(e) });
    const later = agentFriendlyFetch(async (request: Request) => app(request), { onError: (e) => heard.push(e) });
    const page = wrapped(new Request('http://shop.test/boom', { headers: BROWSER }));
    expect(page).toBeInstanceOf(Response);
    for (const each of [page, await later(new Request('http://shop.test/boom', { headers: BROWSER }))]) {
      const answer = each as Response;
      expect([answer.status, answer.headers.get('content-type'), answer.headers.get('vary'), await answer.text()]).toEqual([500, 'text/plain; charset=utf-8', 'Accept', 'Internal Server Error']);
    }
    for (const each of [wrapped, later]) {
      const answer = await each(new Request('http://shop.test/boom', { headers: AGENT }));
      expect(answer.status).toBe(500);
      expect((await answer.json()).error.code).toBe('internal');
    }
    expect(heard.map((e) => (e as Error).message)).toEqual(Array(4).fill('secret db password'));
  });

  it('without onError, logs a thrown error with console.error once, and a failing error stream too', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const wrapped = agentFriendlyFetch(app);
      for (const headers of [AGENT, BROWSER]) await (await wrapped(new Request('http://shop.test/boom', { headers }))).arrayBuffer();
      expect(logged.mock.calls.map(([e]) => (e as Error).message)).toEqual(['secret db password', 'secret db password']);
      logged.mockClear();
      const failing = agentFriendlyFetch(() => new Response(new ReadableStream({ pull: (c) => c.error(new Error('upstream reset')) }), { status: 502 }));
      await (await failing(new Request('http://shop.test/', { headers: AGENT }))).arrayBuffer();
      expect(logged.mock.calls.map(([e]) => (e as Error).message)).toEqual(['upstream reset']);
    } finally {
      logged.mockRestore();
    }
  });
});

describe('readCapped', () => {
  it('gives back every byte of a stream it stopped at the cap, when the caller keeps the body', async () => {
    const { stream, stats } = counted(MB);
    const read = await readCapped(stream, CAP);
    expect(read.complete).toBe(false);
    expect(read.head!.byteLength).toBe(CAP);
    expect(stats.pulled).toBeLessThanOrEqual(CAP + 2 * CHUNK);
    const whole = new Uint8Array(await new Response(read.whole() as ConstructorParameters<typeof Response>[0]).arrayBuffer());
    expect(sha(whole)).toBe(sha(new Uint8Array(MB).fill(120)));
  });

  it('reads a short body whole, and takes strings from a hand-made stream as UTF-8', async () => {
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue('héllo ');
        controller.enqueue(new TextEncoder().encode('world'));
        controller.close();
      },
    });
    const read = await readCapped(stream as ReadableStream<Uint8Array>, CAP);
    expect(read.complete).toBe(true);
    expect(new TextDecoder().decode(read.head!)).toBe('héllo world');
    expect((await readCapped(null, CAP)).head).toBeNull();
  });

  it('reads a node stream (any async iterable) the same way, and stops it at the cap when cancelled', async () => {
    let pulled = 0;
    const stream = Readable.from(
      (function* () {
        for (; pulled < 64; pulled++) yield Buffer.alloc(CHUNK, 120);
      })(),
    );
    const read = await readCapped(stream, CAP);
    expect([read.complete, read.head!.byteLength]).toEqual([false, CAP]);
    read.cancel();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stream.destroyed).toBe(true);
    expect(pulled).toBeLessThan(64);
    const short = await readCapped(Readable.from(['héllo ', Buffer.from('world')]), CAP);
    expect([short.complete, new TextDecoder().decode(short.head!)]).toEqual([true, 'héllo world']);
  });
});
