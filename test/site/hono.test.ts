import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { rateLimiter } from 'hono-rate-limiter';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';
import { agentFriendlyHonoErrorHandler, agentFriendlyHono } from '../../src/site/hono.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { serve, type TestServer } from '../helpers/server.js';
import { AGENT, counted, PROBLEM, BROWSER, ANY, SIGNED, expectBytes, expectCappedError, expectEnvelope, expectNoLeak, expectRateLimited, expectSoldOut, expectThrownAgentErrors } from '../helpers/agents.js';

const MB = 1024 * 1024;
const CAP = 64 * 1024;
const secrets: unknown[] = [];


let errorStream: ReturnType<typeof counted>['stats'] | undefined;

/** The routes, on an app with or without the middleware in front. */
function routes(app: Hono): Hono {
  app.get('/ok', (c) => c.json({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
  app.get('/stream', (c) => c.body(counted(10 * MB).stream, 200, { 'content-type': 'application/octet-stream' }));
  app.get('/stream-error', (c) => {
    const { stream, stats } = counted(10 * MB, '<html><head><title>Broken stream</title></head><body>');
    errorStream = stats;
    return c.body(stream, 500, { 'content-type': 'text/html' });
  });
  app.get('/unauthorized', () => {
    throw new HTTPException(401, { message: 'Unauthorized' });
  });
  app.get('/boom', () => {
    throw new TypeError('secret db password');
  });
  app.get('/string', () => {
    // Not an Error: Hono's compose rethrows it instead of calling its error handler.
    throw 'secret string';
  });
  app.get('/slow-down', () => {
    throw agentError('rate_limited', { retryAfter: 30, message: 'Slow down' });
  });
  app.get('/fix', () => {
    throw agentError('missing_field', { field: 'currency' });
  });
  app.get('/sold-out', (c) => c.html('<html><head><title>Sold out</title></head><body><h1>Sold out</h1></body></html>', 404));
  app.get('/cookie', (c) => {
    c.header('set-cookie', 'a=1; Path=/', { append: true });
    c.header('set-cookie', 'b=2; Path=/', { append: true });
    c.header('etag', '"page-1"');
    c.header('content-language', 'en');
    return c.text('Forbidden', 403);
  });
  // Reading bodyUsed makes @hono/node-server build the real Response its tuple stood for.
  app.use('/materialised', async (c, next) => {
    await next();
    void c.res.bodyUsed;
  });
  for (const path of ['/tuple', '/materialised']) {
    app.get(path, (c) => c.text('<h1>No such order</h1>'.repeat(3), 404, { 'x-request-id': 'r-1', 'retry-after': '7', 'set-cookie': 's=1; Path=/' }));
  }
  app.use('/recovered', async (c, next) => {
    await next();
    if (c.error) c.res = new Response('recovered');
  });
  app.get('/recovered', () => {
    throw new TypeError('handled inside');
  });
  app.use('/limited', rateLimiter({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-7', keyGenerator: () => 'everyone' }));
  app.get('/limited', (c) => c.text('ok'));
  return app;
}

let server: TestServer;
let bare: TestServer;
beforeAll(async () => {
  // Hono's default error handler logs what it catches; these tests throw on purpose.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
  const app = new Hono();
  app.use(agentFriendlyHono({ bufferBytes: CAP, onError: (e) => secrets.push(e) }));
  server = await serve(getRequestListener(routes(app).fetch));
  bare = await serve(getRequestListener(routes(new Hono()).fetch));
});
afterAll(async () => {
  vi.restoreAllMocks();
  await Promise.all([server.close(), bare.close()]);
});

const get = (path: string, headers: Record<string, string>, base = server.url, method = 'GET') => fetch(`${base}${path}`, { headers, method });

describe('AgentFriendly on Hono', () => {
  it('turns an HTTPException(401) into auth_required, and gives problem details on its own origin when asked', async () => {
    const res = await get('/unauthorized', SIGNED);
    expect(res.status).toBe(401);
    const body = await res.json();
    expect(validateEnvelope(body).errors).toEqual([]);
    expect(body.error).toMatchObject({ code: 'auth_required', message: 'Unauthorized' });
    for (const [path, code, status] of [['/unauthorized', 'auth_required', 401], ['/nowhere', 'not_found', 404]] as const) {
      const problem = await get(path, PROBLEM);
      expect(problem.headers.get('content-type')).toBe('application/problem+json');
      const details = await problem.json();
      expect(validateProblem(details).errors).toEqual([]);
      expect(details).toMatchObject({ code, status, type: `${server.url}/problems/${code}` });
    }
    expect(secrets).toEqual([]);
  });

  it("gives a browser, and a bare */*, Hono's own responses, byte for byte", async () => {
    for (const headers of [BROWSER, ANY]) {
      for (const path of ['/nowhere', '/unauthorized', '/sold-out', '/boom']) {
        const expected = await get(path, headers, bare.url);
        const res = await get(path, headers);
        expect(res.status).toBe(expected.status);
        expect(res.headers.get('content-type')).toBe(expected.headers.get('content-type'));
        expect(await res.text()).toBe(await expected.text());
      }
    }
    expect(await (await get('/nowhere', BROWSER)).text()).toBe('404 Not Found');
  });

  it('never shows the text of a thrown error to anyone, and hands it to onError', async () => {
    for (const headers of [AGENT, PROBLEM, BROWSER, SIGNED]) {
      const res = await get('/boom', headers);
      const text = await expectNoLeak(res);
    }
    const body = await (await get('/boom', AGENT)).json();
    expect(validateEnvelope(body).errors).toEqual([]);
    expect(body.error).toMatchObject({ code: 'internal' });
    expect(secrets.some((e) => e instanceof TypeError && e.message === 'secret db password')).toBe(true);
    const thrown = await get('/string', AGENT);
    expect(thrown.status).toBe(500);
    expect(validateEnvelope(await thrown.json()).errors).toEqual([]);
    expect(secrets).toContain('secret string');
  });

  it('turns a hono-rate-limiter 429 into rate_limited with its delay in the body and Retry-After', async () => {
    await get('/limited', AGENT);
    const res = await get('/limited', AGENT);
    await expectRateLimited(res);
    expect(res.headers.get('ratelimit')).toMatch(/remaining=0/);
  });

  it("keeps the app's cookies apart, and none of its old body headers", async () => {
    const res = await get('/cookie', AGENT);
    expect(res.status).toBe(403);
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('content-language')).toBeNull();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(await res.text()));
  });

  it("converts an error still held in @hono/node-server's response tuple exactly as one read from a real Response", async () => {
    for (const headers of [AGENT, PROBLEM]) {
      const [tuple, real] = [await get('/tuple', headers), await get('/materialised', headers)];
      const shape = async (res: Response) => ({ status: res.status, headers: [...res.headers].filter(([name]) => name !== 'date'), body: await res.text() });
      const fromTuple = await shape(tuple);
      expect(fromTuple).toEqual(await shape(real));
      expect(fromTuple.status).toBe(404);
      expect(fromTuple.headers).toEqual(expect.arrayContaining([['x-request-id', 'r-1'], ['set-cookie', 's=1; Path=/']]));
      // A not_found does not wait: the app's Retry-After would contradict the body's null delay, and goes.
      expect(tuple.headers.get('retry-after')).toBeNull();
      expect(Number(tuple.headers.get('content-length'))).toBe(Buffer.byteLength(fromTuple.body));
    }
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    await expectBytes(await get('/stream', AGENT), new Uint8Array(10 * MB).fill(120));
  });

  it('converts a 10 MB streamed error from its first bufferBytes and reads no further', async () => {
    const res = await get('/stream-error', AGENT);
    await expectCappedError(res, () => errorStream!, CAP);
  });

  it('leaves a caught error alone when an inner middleware turned it into a success', async () => {
    const res = await get('/recovered', AGENT);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('recovered');
    expect(secrets.some((e) => e instanceof TypeError && e.message === 'handled inside')).toBe(false);
  });

});

/** The two ways to convert a Hono app's error responses without its middleware, as the README gives them. */
const WITHOUT_MIDDLEWARE: [string, (fetch: Hono['fetch']) => Parameters<typeof serve>[0]][] = [
  ["node:http's agentFriendlyNode around @hono/node-server's listener", (fetch) => agentFriendlyNode(getRequestListener(fetch))],
  ["agentFriendlyFetch around the app's fetch", (fetch) => getRequestListener(agentFriendlyFetch(fetch)) as Parameters<typeof serve>[0]],
];

describe.each(WITHOUT_MIDDLEWARE)('AgentFriendly for Hono without the middleware: %s', (_name, integrate) => {
  let wrapped: TestServer;
  beforeAll(async () => {
    wrapped = await serve(integrate(routes(new Hono()).fetch));
  });
  afterAll(() => wrapped.close());
  const at = (path: string, headers: Record<string, string>, method = 'GET') => get(path, headers, wrapped.url, method);

  it("converts the app's error responses for an agent and leaves a browser the app's own", async () => {
    await expectEnvelope(await at('/nowhere', AGENT), 404, { code: 'not_found', retry: 'no' });
    await expectEnvelope(await at('/unauthorized', AGENT), 401, { code: 'auth_required' });
    await expectSoldOut((path, headers) => at(path, headers));
    expect(await (await at('/nowhere', BROWSER)).text()).toBe(await (await get('/nowhere', BROWSER, bare.url)).text());
    const cookies = await at('/cookie', AGENT);
    expect(cookies.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    await expectEnvelope(cookies, 403, { code: 'not_allowed' });
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    await expectBytes(await at('/stream', AGENT), new Uint8Array(10 * MB).fill(120));
  });

  it("without agentFriendlyHonoErrorHandler, sees a thrown error as the page Hono's own error handler made of it: never its text; an AgentError's own page, unlogged", async () => {
    const boom = await at('/boom', AGENT);
    await expectNoLeak(boom);
    const logged = vi.mocked(console.error).mock.calls.length;
    // Hono's own handler sends an AgentError's page (getResponse, as for an HTTPException), which
    // a browser gets as it is and an agent converted: the code its status and Retry-After give.
    const page = await at('/slow-down', BROWSER);
    expect([page.status, page.headers.get('retry-after'), page.headers.get('content-type')]).toEqual([429, '30', 'text/html; charset=utf-8']);
    const thrown = await at('/slow-down', AGENT);
    await expectEnvelope(thrown, 429, { code: 'rate_limited', retry_after: 30 });
    expect(vi.mocked(console.error).mock.calls.length).toBe(logged);
  });

  it('renders thrown errors with agentFriendlyHonoErrorHandler as the middleware does, and hands the others to onError', async () => {
    const heard: unknown[] = [];
    const app = routes(new Hono());
    app.onError(agentFriendlyHonoErrorHandler({ onError: (e) => heard.push(e) }));
    const handled = await serve(integrate(app.fetch));
    try {
      const get = (path: string, headers: Record<string, string>, method = 'GET') => fetch(`${handled.url}${path}`, { headers, method });
      await expectThrownAgentErrors(get);
      const boom = await get('/boom', AGENT);
      await expectEnvelope(boom, 500, { code: 'internal' });
      const page = await get('/boom', BROWSER);
      expect([page.status, await page.text()]).toEqual([500, 'Internal Server Error']);
      expect(heard.filter((e) => e instanceof TypeError && e.message === 'secret db password')).toHaveLength(2);
      await expectEnvelope(await get('/unauthorized', AGENT), 401, { code: 'auth_required' });
      expect(heard).toHaveLength(2);
    } finally {
      await handled.close();
    }
  });
});
