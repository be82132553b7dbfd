import { Readable } from 'node:stream';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { agentFriendlyFastify } from '../../src/site/fastify.js';
import { AGENT, PROBLEM, BROWSER, ANY, SIGNED, sha, expectAugmented, expectEnvelope, expectNoLeak, expectSoldOut, ownJson } from '../helpers/agents.js';

const BUFFER_BYTES = 64 * 1024;
const secrets: unknown[] = [];

/** A stream of `total` bytes of `fill` in 64 KB chunks, counting the bytes it was asked for. */
function counted(total: number, fill: number | string, head = '') {
  const state = { pulled: 0 };
  const chunk = Buffer.alloc(64 * 1024, fill);
  const stream = Readable.from(
    (function* () {
      if (head) {
        state.pulled += head.length;
        yield Buffer.from(head);
      }
      while (state.pulled < total) {
        state.pulled += chunk.length;
        yield chunk;
      }
    })(),
  );
  return { stream, state };
}

let app: FastifyInstance;
let bare: FastifyInstance;
let url: string;
let bareUrl: string;
let bigError: { pulled: number } | undefined;
let webBigError: { pulled: number } | undefined;

beforeAll(async () => {
  app = Fastify();
  await app.register(agentFriendlyFastify, { bufferBytes: BUFFER_BYTES, onError: (e) => secrets.push(e) });
  await app.register(rateLimit, { global: false });
  app.get('/stream', (_request, reply) => reply.type('application/octet-stream').send(counted(10 * 1024 * 1024, 7).stream));
  app.get('/boom', async () => {
    throw new TypeError('secret db password');
  });
  app.get('/sold-out', (_request, reply) =>
    reply.code(404).type('text/html').header('set-cookie', 'a=1').header('set-cookie', 'b=2').send('<html><head><title>Sold out</title></head><body><h1>Sold out</h1></body></html>'),
  );
  app.get('/big-error', (_request, reply) => {
    const { stream, state } = counted(1024 * 1024, 'x', '<title>Broken</title>');
    bigError = state;
    return reply.code(500).type('text/html').send(stream);
  });
  // Web ReadableStream bodies: a 1 MB error page pulled a chunk at a time, and one that fails after its title.
  app.get('/web-big-error', (_request, reply) => {
    const state = { pulled: 0 };
    webBigError = state;
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024));
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          if (state.pulled === 0) controller.enqueue(new TextEncoder().encode('<title>Web broken</title>'));
          else controller.enqueue(chunk);
          state.pulled += state.pulled === 0 ? 25 : chunk.byteLength;
          if (state.pulled >= 1024 * 1024) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return reply.code(500).type('text/html').send(body);
  });
  app.get('/web-failing-error', (_request, reply) => {
    let sent = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(new Error('upstream went away'));
        sent = true;
        controller.enqueue(new TextEncoder().encode('<title>Half a page</title>'));
      },
    });
    return reply.code(502).type('text/html').send(body);
  });
  app.post('/validated', { schema: { body: { type: 'object', required: ['currency'], properties: { currency: { type: 'string' } } } } }, async () => ({ ok: true }));
  app.post('/small', { bodyLimit: 10 }, async () => ({ ok: true }));
  app.get('/not-here', (_request, reply) => reply.callNotFound());
  app.get('/limited', { config: { rateLimit: { max: 1, timeWindow: 60_000 } } }, async () => 'ok');
  app.get('/problems/mine', async () => ({ mine: true }));
  url = await app.listen({ port: 0, host: '127.0.0.1' });

  bare = Fastify();
  bare.post('/validated', { schema: { body: { type: 'object', required: ['currency'], properties: { currency: { type: 'string' } } } } }, async () => ({ ok: true }));
  bare.post('/small', { bodyLimit: 10 }, async () => ({ ok: true }));
  bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
  await bare.close();
});

const get = (path: string, headers: Record<string, string>, base = url, method = 'GET', body?: string) =>
  fetch(`${base}${path}`, { headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, method, body });

/** An inject() answer as the Response fetch would have given. */
const asResponse = (res: { statusCode: number; headers: Record<string, unknown>; body: string }): Response =>
  new Response(res.body, { status: res.statusCode, headers: Object.entries(res.headers).map(([name, value]): [string, string] => [name, String(value)]) });

describe('AgentFriendly on Fastify', () => {
  it("keeps Fastify's own JSON 404 for an agent, the retry word it lacks added, and converts it for one that asks for problem details", async () => {
    for (const [path, headers] of [['/nowhere', AGENT], ['/nowhere', SIGNED], ['/not-here', AGENT]] as const) {
      const original = await ownJson(await get(path, BROWSER));
      expect(original.body).toEqual({ message: `Route GET:${path} not found`, error: 'Not Found', statusCode: 404 });
      // Its `error` member is a string, which has no room for a word: the word goes at the top of the body.
      await expectAugmented(await get(path, headers), 404, original, { retry: 'no' }, { code: 'not_found', message: `Route GET:${path} not found`, retry: 'no' });
    }
    const problem = await get('/nowhere', PROBLEM);
    expect([problem.status, problem.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
    const body = await problem.json();
    expect(validateProblem(body).errors).toEqual([]);
    expect(body).toMatchObject({ code: 'not_found', status: 404, retry: 'no', detail: 'Route GET:/nowhere not found' });
  });

  it("gives a browser, and a bare Accept: */*, Fastify's own 404, byte for byte", async () => {
    for (const headers of [BROWSER, ANY]) {
      const expected = await get('/nowhere', headers, bareUrl);
      const res = await get('/nowhere', headers);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe(expected.headers.get('content-type'));
      expect(await res.text()).toBe(await expected.text());
    }
  });

  it('never shows the text of a thrown error to an agent or a browser, and hands it to onError', async () => {
    for (const headers of [AGENT, PROBLEM, BROWSER, SIGNED]) {
      const res = await get('/boom', headers);
      const text = await expectNoLeak(res);
      if (headers === BROWSER) expect(text).toBe('{"statusCode":500,"error":"Internal Server Error","message":"Internal Server Error"}');
      else if (headers === PROBLEM) expect(JSON.parse(text)).toMatchObject({ code: 'internal', status: 500 });
      else expect(validateEnvelope(JSON.parse(text)).errors).toEqual([]);
    }
    expect(secrets.filter((e) => e instanceof TypeError && e.message === 'secret db password')).toHaveLength(4);
  });

  it("keeps a @fastify/rate-limit 429 and its JSON for an agent, rate_limited's retry word and the delay of its Retry-After added to the body", async () => {
    expect((await get('/limited', AGENT)).status).toBe(200);
    const res = await get('/limited', AGENT);
    const original = await ownJson(await get('/limited', BROWSER));
    // The plugin's own Retry-After, kept: the body's delay is the same number.
    const delay = Number(res.headers.get('retry-after'));
    expect(delay).toBeGreaterThan(0);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    await expectAugmented(res, 429, original, { retry: 'after_delay', retry_after: delay }, { code: 'rate_limited', retry: 'after_delay', retry_after: delay });
    const problem = await get('/limited', PROBLEM);
    expect([problem.status, problem.headers.get('content-type')]).toEqual([429, 'application/problem+json']);
    const body = await problem.json();
    expect(validateProblem(body).errors).toEqual([]);
    expect(body).toMatchObject({ code: 'rate_limited', status: 429, retry: 'after_delay', retry_after: Number(problem.headers.get('retry-after')) });
  });

  it("keeps the status of Fastify's own 4xx errors: a failed validation is a 400 naming its field, and Fastify's own body for a browser", async () => {
    const agent = await get('/validated', AGENT, url, 'POST', '{}');
    expect(agent.status).toBe(400);
    const body = await agent.json();
    expect(validateEnvelope(body).errors).toEqual([]);
    expect(body.error).toMatchObject({ code: 'missing_field', field: 'currency', retry: 'fix_input' });
    const wrong = await (await get('/validated', PROBLEM, url, 'POST', '{"currency":{"amount":1}}')).json();
    expect(validateProblem(wrong).errors).toEqual([]);
    expect(wrong).toMatchObject({ code: 'invalid_input', param: 'currency', status: 400 });
    const expected = await (await get('/validated', BROWSER, bareUrl, 'POST', '{}')).text();
    const browser = await get('/validated', BROWSER, url, 'POST', '{}');
    expect(browser.status).toBe(400);
    expect(await browser.text()).toBe(expected);
  });

  it("keeps a body too large a client error at Fastify's own 413: its body byte for byte for a browser; for an agent, that body with the fix_input retry word added", async () => {
    const big = JSON.stringify({ note: 'x'.repeat(100) });
    const expected = await get('/small', BROWSER, bareUrl, 'POST', big);
    const browser = await get('/small', BROWSER, url, 'POST', big);
    expect(browser.status).toBe(413);
    const text = await browser.text();
    expect(text).toBe(await expected.text());
    const original = { contentType: browser.headers.get('content-type'), body: JSON.parse(text) as Record<string, unknown> };
    expect(original.body).toEqual({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', error: 'Payload Too Large', message: 'Request body is too large' });
    // The body has a code, Fastify's, which stays; the catalog has no 413 code, and a 413 is input to fix.
    // With the word beside it, an agent reads Fastify's code as the site's own.
    await expectAugmented(await get('/small', AGENT, url, 'POST', big), 413, original, { retry: 'fix_input' }, {
      code: 'fst_err_ctp_body_too_large',
      message: 'Request body is too large',
      retry: 'fix_input',
    });
  });

  it('reads a sold-out page as out_of_stock at the 404 the app sent, with both cookies', async () => {
    const res = await expectSoldOut(get);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    const browser = await get('/sold-out', BROWSER);
    expect(browser.status).toBe(404);
    expect(await browser.text()).toContain('<h1>Sold out</h1>');
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    const res = await get('/stream', AGENT);
    expect(res.status).toBe(200);
    const body = await res.arrayBuffer();
    expect(body.byteLength).toBe(10 * 1024 * 1024);
    expect(sha(body)).toBe(sha(Buffer.alloc(10 * 1024 * 1024, 7)));
  });

  it('converts a 1 MB streamed error page from its first bufferBytes, and reads no further', async () => {
    const res = await get('/big-error', AGENT);
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatchObject({ code: 'internal', message: 'Broken' });
    // Readable.from pulls a chunk or two ahead of the reader, never the megabyte.
    expect(bigError!.pulled).toBeLessThanOrEqual(BUFFER_BYTES + 3 * 64 * 1024);
  });

  it('converts an error page sent as a web ReadableStream from its first bufferBytes, and stops the stream there', async () => {
    const res = await get('/web-big-error', AGENT);
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatchObject({ code: 'internal', message: 'Web broken' });
    expect(webBigError!.pulled).toBeLessThanOrEqual(BUFFER_BYTES + 3 * 64 * 1024);
    // A browser gets the whole page, streamed as the app sent it.
    const page = await get('/web-big-error', BROWSER);
    expect((await page.text()).length).toBe(25 + 16 * 64 * 1024);
  });

  it('converts what a failing web ReadableStream sent before it failed, and hands the failure to onError', async () => {
    const before = secrets.length;
    const res = await get('/web-failing-error', AGENT);
    // A 502 is internal to the catalog, sent with the 502 the app gave it; internal's word waits a second.
    expect(res.headers.get('retry-after')).toBe('1');
    await expectEnvelope(res, 502, { code: 'internal', message: 'Half a page', retry: 'once', retry_after: 1 });
    expect(secrets.slice(before).map((e) => (e as Error).message)).toContain('upstream went away');
  });

  it('serves the page of each code at /problems/{code}: HTML for browsers, JSON for agents', async () => {
    const html = await get('/problems/rate_limited', BROWSER);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(await html.text()).toContain('<code>rate_limited</code>');
    expect(await (await get('/problems/rate_limited', AGENT)).json()).toMatchObject({ code: 'rate_limited', status: 429, retry: 'after_delay' });
    expect((await get('/problems/not_a_code', BROWSER)).status).toBe(404);
    expect(await (await get('/problems/mine', AGENT)).json()).toEqual({ mine: true });
  });

  it("serves the pages from one route: under the base's path, to HEAD with headers only, not at all with docs: false, after an app's own route of the same path, and an unknown code as the app's 404", async () => {
    const start = async (options: Parameters<typeof agentFriendlyFastify>[1], own?: string): Promise<FastifyInstance> => {
      const app = Fastify();
      await app.register(agentFriendlyFastify, options);
      if (own) app.get(own, async () => ({ own: true }));
      await app.ready();
      return app;
    };
    const prefixed = await start({ base: 'https://shop.example/api/' });
    try {
      const page = await prefixed.inject({ url: '/api/problems/rate_limited', headers: AGENT });
      expect(page.statusCode).toBe(200);
      expect(page.json()).toMatchObject({ code: 'rate_limited' });
      const head = await prefixed.inject({ method: 'HEAD', url: '/api/problems/rate_limited', headers: BROWSER });
      expect([head.statusCode, head.headers['content-type'], head.body]).toEqual([200, 'text/html; charset=utf-8', '']);
      expect((await prefixed.inject({ url: '/problems/rate_limited', headers: AGENT })).statusCode).toBe(404);
    } finally {
      await prefixed.close();
    }
    const off = await start({ docs: false });
    try {
      // Fastify's own 404, with the word an agent needs added.
      const original = await ownJson(asResponse(await off.inject({ url: '/problems/rate_limited', headers: BROWSER })));
      const res = asResponse(await off.inject({ url: '/problems/rate_limited', headers: AGENT }));
      await expectAugmented(res, 404, original, { retry: 'no' }, { code: 'not_found', retry: 'no' });
    } finally {
      await off.close();
    }
    const own = await start({}, '/problems/rate_limited');
    try {
      expect((await own.inject({ url: '/problems/rate_limited', headers: AGENT })).json()).toEqual({ own: true });
      expect((await own.inject({ url: '/problems/not_found', headers: AGENT })).json()).toMatchObject({ code: 'not_found', status: 404 });
      const browser = await own.inject({ url: '/problems/not_a_code', headers: BROWSER });
      expect([browser.statusCode, browser.json()]).toEqual([404, { message: 'Route GET:/problems/not_a_code not found', error: 'Not Found', statusCode: 404 }]);
      const unknown = asResponse(await own.inject({ url: '/problems/not_a_code', headers: AGENT }));
      await expectAugmented(unknown, 404, await ownJson(asResponse(browser)), { retry: 'no' }, { code: 'not_found', message: 'Route GET:/problems/not_a_code not found', retry: 'no' });
    } finally {
      await own.close();
    }
  });

  it('sends a streamed error body already in this contract whole, read to tell', async () => {
    const body = JSON.stringify({ error: { code: 'out_of_stock', message: 'Gone', field: null, retry: 'no', retry_after: null } });
    const app = Fastify();
    await app.register(agentFriendlyFastify);
    app.get('/gone', (_request, reply) => reply.code(409).type('application/json').send(Readable.from([body.slice(0, 10), body.slice(10)])));
    try {
      const res = await app.inject({ url: '/gone', headers: AGENT });
      expect([res.statusCode, res.body]).toEqual([409, body]);
    } finally {
      await app.close();
    }
  });
});
