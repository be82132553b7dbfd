import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateEnvelope, validateProblem } from '../../src/index.js';
import { agentError } from '../../src/site/agent-error.js';
import { agentErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendly } from '../../src/site/node.js';
import { serve, type TestServer } from '../helpers/server.js';
import { AGENT, PROBLEM, BROWSER, SIGNED, sha } from '../helpers/agents.js';

const secrets: unknown[] = [];

let server: TestServer;
let plain: TestServer;
beforeAll(async () => {
  const app = express();
  app.use(agentFriendlyExpress({ bufferBytes: 64 * 1024 }));
  app.get('/ok', (_req, res) => void res.json({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }));
  app.get('/stream', (_req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 7);
    const push = (): void => {
      while (sent < 10 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', push);
      }
      res.end();
    };
    push();
  });
  app.get('/boom', () => {
    throw new TypeError('secret db password');
  });
  app.get('/slow-down', () => {
    throw agentError('rate_limited', { retryAfter: 30, message: 'Slow down' });
  });
  app.get('/fix', () => {
    throw agentError('missing_field', { field: 'currency' });
  });
  app.get('/sold-out', (_req, res) => void res.status(404).send('<html><head><title>Sold out</title></head><body><h1>Sold out</h1></body></html>'));
  app.get('/big-error', (_req, res) => void res.status(500).send(`<title>Broken</title>${'x'.repeat(1024 * 1024)}`));
  app.use('/limited', rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-8', legacyHeaders: false }));
  app.get('/limited', (_req, res) => void res.send('ok'));
  app.use(agentErrorHandler({ onError: (e) => secrets.push(e) }));
  server = await serve(app);
  plain = await serve(agentFriendly((_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')));
});
afterAll(async () => {
  await server.close();
  await plain.close();
});

const get = (path: string, headers: Record<string, string>, base = server.url, method = 'GET') => fetch(`${base}${path}`, { headers, method });

describe('AgentFriendly on Express', () => {
  it("turns Express's own 404 page into a valid envelope for an agent", async () => {
    const res = await get('/nowhere', AGENT);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expect(validateEnvelope(body).errors).toEqual([]);
    expect(body.error).toMatchObject({ code: 'not_found', retry: 'no' });
  });

  it('gives problem details to an agent that asks for them, with a type URI on its own origin', async () => {
    const res = await get('/nowhere', PROBLEM);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await res.json();
    expect(validateProblem(body).errors).toEqual([]);
    expect(body).toMatchObject({ code: 'not_found', status: 404, type: `${server.url}/problems/not_found` });
  });

  it("gives a browser Express's own 404 page, byte for byte", async () => {
    const bare = express();
    const direct = await serve(bare);
    const expected = await (await get('/nowhere', BROWSER, direct.url)).text();
    await direct.close();
    const res = await get('/nowhere', BROWSER);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(expected);
  });

  it('never shows the text of a thrown error to an agent or a browser, and hands it to onError', async () => {
    for (const headers of [AGENT, PROBLEM, BROWSER, SIGNED]) {
      const res = await get('/boom', headers);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toContain('secret');
      expect(text).not.toContain('TypeError');
    }
    expect(secrets.some((e) => e instanceof TypeError && e.message === 'secret db password')).toBe(true);
  });

  it('renders a thrown AgentError with its delay in the body and Retry-After, from one number', async () => {
    const res = await get('/slow-down', SIGNED);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect((await res.json()).error).toEqual({ code: 'rate_limited', message: 'Slow down', field: null, retry: 'after_delay', retry_after: 30 });
    const problem = await (await get('/fix', PROBLEM)).json();
    expect(problem).toMatchObject({ code: 'missing_field', param: 'currency', next_step: 'fix_request', status: 400 });
  });

  it('turns an express-rate-limit 429 into rate_limited with its delay in the body and Retry-After', async () => {
    await get('/limited', AGENT);
    const res = await get('/limited', AGENT);
    expect(res.status).toBe(429);
    const body = await res.json();
    expect(body.error.code).toBe('rate_limited');
    expect(body.error.retry_after).toBeGreaterThan(0);
    expect(res.headers.get('retry-after')).toBe(String(body.error.retry_after));
    expect(res.headers.get('ratelimit')).toMatch(/r=0/);
    expect(validateEnvelope(body).errors).toEqual([]);
  });

  it('reads a sold-out page as out_of_stock, with the status the contract gives it', async () => {
    const res = await get('/sold-out', AGENT);
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({ code: 'out_of_stock', message: 'Sold out' });
    expect(await (await get('/sold-out', BROWSER)).text()).toContain('<h1>Sold out</h1>');
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    const res = await get('/stream', AGENT);
    const body = await res.arrayBuffer();
    expect(body.byteLength).toBe(10 * 1024 * 1024);
    expect(sha(body)).toBe(sha(Buffer.alloc(10 * 1024 * 1024, 7).buffer as ArrayBuffer));
  });

  it('passes a JSON success through to an agent as the app sent it', async () => {
    const [a, b] = [await get('/ok', AGENT), await get('/ok', BROWSER)];
    expect(await a.text()).toBe(await b.text());
  });

  it('converts a 1 MB error page from its first bufferBytes', async () => {
    const res = await get('/big-error', AGENT);
    expect((await res.json()).error).toMatchObject({ code: 'internal', message: 'Broken' });
  });

  it('answers HEAD with headers only', async () => {
    const res = await get('/nowhere', AGENT, server.url, 'HEAD');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/json/);
    expect(await res.text()).toBe('');
  });

  it('serves the page of each code at /problems/{code}: HTML for browsers, JSON for agents', async () => {
    const html = await get('/problems/rate_limited', BROWSER);
    expect(html.headers.get('content-type')).toMatch(/text\/html/);
    expect(await html.text()).toContain('<code>rate_limited</code>');
    expect(await (await get('/problems/rate_limited', AGENT)).json()).toMatchObject({ code: 'rate_limited', status: 429, retry: 'after_delay' });
    expect((await get('/problems/not_a_code', BROWSER)).status).toBe(404);
  });
});

describe('AgentFriendly on node:http', () => {
  it("converts a plain res.end('Not found') for an agent and leaves it for a browser", async () => {
    const agent = await get('/x', AGENT, plain.url);
    expect((await agent.json()).error).toMatchObject({ code: 'not_found', message: 'Not found' });
    const browser = await get('/x', BROWSER, plain.url);
    expect(await browser.text()).toBe('Not found');
    expect(browser.headers.get('content-type')).toBe('text/plain');
  });
});
