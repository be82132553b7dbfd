import { execFile } from 'node:child_process';
import { createServer, ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { validateProblem } from '../../src/index.js';
import { agentError, isAgentError } from '../../src/site/agent-error.js';
import { convertAppError } from '../../src/site/friendly.js';
import { agentFriendlyExpressErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { serve, type TestServer } from '../helpers/server.js';
import { AGENT, PROBLEM, BROWSER, expectAugmented, expectBytes, expectEnvelope, expectRateLimited, ownJson } from '../helpers/agents.js';

const execFileAsync = promisify(execFile);

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
  app.get('/big-error', (_req, res) => void res.status(500).send(`<title>Broken</title>${'x'.repeat(1024 * 1024)}`));
  app.use('/limited', rateLimit({ windowMs: 60_000, limit: 1, standardHeaders: 'draft-8', legacyHeaders: false }));
  app.get('/limited', (_req, res) => void res.send('ok'));
  app.use(agentFriendlyExpressErrorHandler());
  server = await serve(app);
  plain = await serve(agentFriendlyNode((_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')));
});
afterAll(async () => {
  await server.close();
  await plain.close();
});

const get = (path: string, headers: Record<string, string>, base = server.url, method = 'GET') => fetch(`${base}${path}`, { headers, method });

describe('AgentFriendly on Express', () => {
  it("gives a browser Express's own 404 page, byte for byte", async () => {
    const bare = express();
    const direct = await serve(bare);
    const expected = await (await get('/nowhere', BROWSER, direct.url)).text();
    await direct.close();
    const res = await get('/nowhere', BROWSER);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(expected);
  });

  it('turns an express-rate-limit 429 into rate_limited with its delay in the body and Retry-After', async () => {
    await get('/limited', AGENT);
    const res = await get('/limited', AGENT);
    await expectRateLimited(res);
    expect(res.headers.get('ratelimit')).toMatch(/r=0/);
  });

  it('streams a 10 MB success to an agent unchanged', async () => {
    await expectBytes(await get('/stream', AGENT), new Uint8Array(Buffer.alloc(10 * 1024 * 1024, 7)));
  });

  it('converts a 1 MB error page from its first bufferBytes', async () => {
    const res = await get('/big-error', AGENT);
    expect((await res.json()).error).toMatchObject({ code: 'internal', message: 'Broken' });
  });

});

describe('Where the Express adapter puts its wrappers', () => {
  const untouched = { writeHead: ServerResponse.prototype.writeHead, write: ServerResponse.prototype.write, end: ServerResponse.prototype.end };

  it("never changes node's own ServerResponse.prototype, which every server in the process shares", async () => {
    await get('/nowhere', AGENT);
    await get('/ok', AGENT);
    expect({ writeHead: ServerResponse.prototype.writeHead, write: ServerResponse.prototype.write, end: ServerResponse.prototype.end }).toEqual(untouched);
  });

  it("adds nothing to an app's response until it is an agent's error: a success keeps the shape a bare app's has", async () => {
    const keys = async (wrapped: boolean): Promise<{ before: string[]; after: string[] }> => {
      const seen = { before: [] as string[], after: [] as string[] };
      const app = express();
      if (wrapped) app.use(agentFriendlyExpress());
      app.get('/ok', (_req, res) => {
        seen.before = Reflect.ownKeys(res).map(String);
        res.json({ ok: true });
        seen.after = Reflect.ownKeys(res).map(String);
      });
      const running = await serve(app);
      try {
        expect(await (await get('/ok', AGENT, running.url)).json()).toEqual({ ok: true });
      } finally {
        await running.close();
      }
      return seen;
    };
    const bare = await keys(false);
    const wrapped = await keys(true);
    expect(bare.before.length).toBeGreaterThan(10);
    expect(wrapped).toEqual(bare);
  });

  it("answers successes and converts errors on node:http and Express without loading node's fetch implementation into the server", async () => {
    // Reading the Headers global loads undici, which cost an Express server about 2% of its JSON
    // throughput in bench/explore/site-ab.ts; neither path has any need of it.
    const { stdout } = await execFileAsync(process.execPath, ['--import', 'tsx', 'test/helpers/headers-global.ts'], { cwd: process.cwd() });
    const ok = [200, 200, 200];
    const missing = [404, 404, 404];
    expect(JSON.parse(stdout)).toEqual({ before: true, after: true, statuses: [...ok, ...missing, ...ok, ...missing] });
  });

  it('mounted on a path, converts the errors under that path only', async () => {
    const app = express();
    app.use('/api', agentFriendlyExpress());
    app.get('/api/ok', (_req, res) => void res.json({ ok: true }));
    const running = await serve(app);
    try {
      await expectEnvelope(await get('/api/nowhere', AGENT, running.url), 404, { code: 'not_found', retry: 'no' });
      expect(await (await get('/api/ok', AGENT, running.url)).json()).toEqual({ ok: true });
      const outside = await get('/elsewhere', AGENT, running.url);
      expect(outside.status).toBe(404);
      expect(await outside.text()).toMatch(/Cannot GET \/elsewhere/);
    } finally {
      await running.close();
    }
  });

  it('at the root, watches every response of the app, a route added before it included', async () => {
    const app = express();
    app.get('/early', (_req, res) => void res.status(404).send('<title>Withdrawn</title>'));
    app.use(agentFriendlyExpress());
    const running = await serve(app);
    try {
      // The first request reaches the adapter and sets it up; from then on the early route is watched too.
      await get('/nowhere', AGENT, running.url);
      await expectEnvelope(await get('/early', AGENT, running.url), 404, { code: 'not_found', message: 'Withdrawn' });
      expect(await (await get('/early', BROWSER, running.url)).text()).toBe('<title>Withdrawn</title>');
    } finally {
      await running.close();
    }
  });

  it('mounted twice at the root with different options, the later mount decides, as it would for one request', async () => {
    const app = express();
    app.use(agentFriendlyExpress({ base: 'https://first.example' }));
    app.use(agentFriendlyExpress({ base: 'https://second.example' }));
    const running = await serve(app);
    try {
      for (let i = 0; i < 2; i++) {
        const problem = (await (await get('/nowhere', PROBLEM, running.url)).json()) as { type: string };
        expect(problem.type).toBe('https://second.example/problems/not_found');
      }
    } finally {
      await running.close();
    }
  });

  it('converts once in a sub-app when the parent app and the sub-app both mount the adapter', async () => {
    const parent = express();
    const child = express();
    parent.use(agentFriendlyExpress());
    child.use(agentFriendlyExpress());
    child.get('/gone', (_req, res) => void res.status(404).send('<title>Withdrawn</title>'));
    child.get('/ok', (_req, res) => void res.json({ ok: true }));
    parent.use('/shop', child);
    const app = await serve(parent);
    try {
      const agent = await get('/shop/gone', AGENT, app.url);
      await expectEnvelope(agent, 404, { code: 'not_found', retry: 'no', message: 'Withdrawn' });
      expect(await (await get('/shop/gone', BROWSER, app.url)).text()).toBe('<title>Withdrawn</title>');
      expect(await (await get('/shop/ok', AGENT, app.url)).json()).toEqual({ ok: true });
      const problem = await get('/shop/nowhere', PROBLEM, app.url);
      expect(problem.headers.get('content-type')).toBe('application/problem+json');
      expect(validateProblem(await problem.json()).errors).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it('converts behind a middleware that wraps res.write and res.end itself, before or after the adapter', async () => {
    // What compression-style middleware does: keeps the methods it found, sets its own on the response.
    const wrapping: express.RequestHandler = (_req, res, next) => {
      const { write, end } = res;
      res.setHeader('x-wrapped', 'yes');
      res.write = function (this: typeof res, ...args: unknown[]) {
        return (write as (...a: unknown[]) => boolean).apply(this, args);
      } as typeof res.write;
      res.end = function (this: typeof res, ...args: unknown[]) {
        return (end as (...a: unknown[]) => typeof res).apply(this, args);
      } as typeof res.end;
      next();
    };
    for (const order of ['before', 'after'] as const) {
      const app = express();
      if (order === 'before') app.use(wrapping);
      app.use(agentFriendlyExpress());
      if (order === 'after') app.use(wrapping);
      app.get('/ok', (_req, res) => void res.json({ ok: true }));
      const running = await serve(app);
      try {
        const agent = await get('/nowhere', AGENT, running.url);
        expect(agent.headers.get('x-wrapped')).toBe('yes');
        await expectEnvelope(agent, 404, { code: 'not_found', retry: 'no' });
        expect(await (await get('/ok', AGENT, running.url)).json()).toEqual({ ok: true });
        expect(await (await get('/nowhere', BROWSER, running.url)).text()).toMatch(/Cannot GET \/nowhere/);
      } finally {
        await running.close();
      }
    }
  });
});

describe('AgentFriendly on node:http', () => {
  const methods = (prototype: object) => ({ writeHead: (prototype as ServerResponse).writeHead, write: (prototype as ServerResponse).write, end: (prototype as ServerResponse).end });

  it("gives the server a response class of its own after its first request, and leaves node's own and other servers' alone", async () => {
    const untouched = methods(ServerResponse.prototype);
    const seen: object[] = [];
    const app = await serve(
      agentFriendlyNode((_req, res) => {
        seen.push(Object.getPrototypeOf(res) as object);
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
      }),
    );
    const other = await serve((_req, res) => {
      seen.push(Object.getPrototypeOf(res) as object);
      res.end('other');
    });
    try {
      for (let i = 0; i < 3; i++) {
        await expectEnvelope(await get('/x', AGENT, app.url), 404, { code: 'not_found', message: 'Not found' });
        expect(await (await get('/x', BROWSER, app.url)).text()).toBe('Not found');
      }
      expect(await (await get('/', AGENT, other.url)).text()).toBe('other');
      // The first request is watched on its own; from the second on, the server's own class carries the wrappers.
      const [first, ...later] = seen.slice(0, 6);
      expect(first).toBe(ServerResponse.prototype);
      expect(new Set(later).size).toBe(1);
      expect(later[0]).not.toBe(ServerResponse.prototype);
      expect(later[0]).toBeInstanceOf(ServerResponse);
      expect(methods(later[0]!)).not.toEqual(untouched);
      expect(seen[6]).toBe(ServerResponse.prototype);
      expect(methods(ServerResponse.prototype)).toEqual(untouched);
    } finally {
      await Promise.all([app.close(), other.close()]);
    }
  });

  it('keeps the response class a server was created with, beneath its own', async () => {
    class Tagged extends ServerResponse {
      constructor(req: IncomingMessage) {
        super(req);
        this.setHeader('x-tagged', '1');
      }
    }
    const server = createServer({ ServerResponse: Tagged }, agentFriendlyNode((_req, res) => void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found')));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      for (let i = 0; i < 3; i++) {
        const agent = await get('/x', AGENT, url);
        expect(agent.headers.get('x-tagged')).toBe('1');
        await expectEnvelope(agent, 404, { code: 'not_found' });
        const browser = await get('/x', BROWSER, url);
        expect([browser.headers.get('x-tagged'), await browser.text()]).toEqual(['1', 'Not found']);
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("gives a success's later writes the response's own methods back, so a stream pays nothing per chunk", async () => {
    const seen: boolean[] = [];
    const app = await serve(
      agentFriendlyNode((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        seen.push(res.write === ServerResponse.prototype.write, res.end === ServerResponse.prototype.end);
        res.write('a');
        res.end('b');
      }),
    );
    try {
      expect(await (await get('/', AGENT, app.url)).text()).toBe('ab');
      expect(seen).toEqual([true, true]);
    } finally {
      await app.close();
    }
  });

  it("converts a plain res.end('Not found') for an agent and leaves it for a browser", async () => {
    const agent = await get('/x', AGENT, plain.url);
    expect((await agent.json()).error).toMatchObject({ code: 'not_found', message: 'Not found' });
    const browser = await get('/x', BROWSER, plain.url);
    expect(await browser.text()).toBe('Not found');
    expect(browser.headers.get('content-type')).toBe('text/plain');
  });

  it("without onError, logs a thrown error as Express's final handler does (console.error of the error, silent in its 'test' env), and shows a browser Express's own page without it", async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const sites: TestServer[] = [];
    try {
      for (const env of ['production', 'test']) {
        const app = express();
        app.set('env', env);
        app.get('/bug', () => {
          throw new Error('the real bug');
        });
        app.use(agentFriendlyExpressErrorHandler());
        sites.push(await serve(app));
        logged.mockClear();
        const browser = await get('/bug', BROWSER, sites.at(-1)!.url);
        expect([browser.status, browser.headers.get('content-security-policy'), browser.headers.get('vary')]).toEqual([500, "default-src 'none'", 'Accept']);
        expect(await browser.text()).toContain('<pre>Internal Server Error</pre>');
        await (await get('/bug', AGENT, sites.at(-1)!.url)).arrayBuffer();
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(logged.mock.calls.map(([e]) => (e as Error).message)).toEqual(env === 'test' ? [] : ['the real bug', 'the real bug']);
      }
    } finally {
      logged.mockRestore();
      await Promise.all(sites.map((site) => site.close()));
    }
  });
});

// Issue 36, item 3: an Express 5 app whose own JSON errors are {"message","code"}, as its users
// wrote it, and the same app with AgentFriendly, both running; what Express itself answers is
// what a browser must still get, and its status what an agent gets.
describe('Express as Express users expect: errors with a status of their own, and the app’s own error middleware', () => {
  /** Axios's default Accept: JSON ranked first, so an agent. */
  const AXIOS = { accept: 'application/json, text/plain, */*' };
  /** What the team's error handler saw, in order. */
  const seen: unknown[] = [];
  /** What onError heard. */
  const heard: unknown[] = [];
  /** The http-errors error /nope throws, the same object every time, to tell it from a stand-in. */
  const nope = Object.assign(new Error('Nope'), { status: 404, statusCode: 404, expose: true });
  /** The team's error handler, as the user wrote it: their JSON for every error, a client error's message shown. */
  const team: express.ErrorRequestHandler = (error: { status?: number; message: string }, _req, res, _next) => {
    seen.push(error);
    const status = error.status !== undefined && error.status >= 400 && error.status < 600 ? error.status : 500;
    res.status(status).json(status < 500 ? { message: error.message, code: 'BAD_REQUEST' } : { message: 'Something broke', code: 'INTERNAL' });
  };
  /** The team's handler when it is mounted before AgentFriendly's: it answers the errors it knows (a status of Express's), and passes the rest on. */
  const teamFirst: express.ErrorRequestHandler = (error: { status?: number }, req, res, next) => (error.status === undefined ? (seen.push(error), next(error)) : team(error, req, res, next));

  type Setup = { friendly: boolean; handler?: 'after' | 'before' };
  function shop({ friendly, handler }: Setup): express.Express {
    const app = express();
    // Express logs and shows pages as in production (vitest sets NODE_ENV=test, where it logs nothing).
    app.set('env', 'production');
    if (friendly) app.use(agentFriendlyExpress());
    app.post('/orders', express.json(), (req, res) => void res.status(201).json({ ordered: req.body }));
    app.get('/nope', () => {
      throw nope;
    });
    app.get('/status/:status', (req) => {
      throw Object.assign(new Error('Not for you'), { status: Number(req.params.status), expose: true });
    });
    app.get('/down', () => {
      throw Object.assign(new Error('db down'), { status: 503, expose: false, headers: { 'Retry-After': '7' } });
    });
    app.get('/bug', () => {
      throw new Error('the real bug');
    });
    app.get('/busy', () => {
      throw agentError('rate_limited', { retryAfter: 30 });
    });
    // The team's own 400, written by a route: what the capture makes of an app's own error response.
    app.get('/own-400', (_req, res) => void res.status(400).json({ message: 'Not for you', code: 'BAD_REQUEST' }));
    if (handler === 'before') app.use(teamFirst);
    if (friendly) app.use(agentFriendlyExpressErrorHandler({ onError: (e) => heard.push(e) }));
    if (handler === 'after') app.use(team);
    return app;
  }

  const sites = new Map<string, TestServer>();
  const site = async (setup: Setup): Promise<TestServer> => {
    const key = JSON.stringify(setup);
    if (!sites.has(key)) sites.set(key, await serve(shop(setup)));
    return sites.get(key)!;
  };
  let logged: MockInstance<typeof console.error>;
  beforeAll(() => {
    logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterAll(async () => {
    logged.mockRestore();
    await Promise.all([...sites.values()].map((s) => s.close()));
  });

  /** Lets Express's final handler log what it logs (on setImmediate). */
  const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
  /** What a request got: status, the headers that matter, and the body. */
  const call = async (setup: Setup, path: string, headers: Record<string, string>, body?: string) => {
    const res = await fetch(`${(await site(setup)).url}${path}`, body === undefined ? { headers } : { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text };
  };
  /** `run` leaves onError unheard (console.error, which it replaces, is the next test's). */
  const unheard = async (run: () => Promise<void>): Promise<void> => {
    const before = heard.length;
    await run();
    await settle();
    expect(heard.slice(before)).toEqual([]);
  };
  const asJson = (text: string) => JSON.parse(text) as { error: Record<string, unknown> };

  it("a malformed JSON body (body-parser's 400) stays a 400 for a browser, an agent and axios's Accept, as Express's own page, and is no failure", async () => {
    await unheard(async () => {
      const plain = await call({ friendly: false }, '/orders', BROWSER, '{bad');
      expect([plain.status, plain.text]).toEqual([400, expect.stringContaining('<pre>Bad Request</pre>')]);
      const browser = await call({ friendly: true }, '/orders', BROWSER, '{bad');
      expect([browser.status, browser.text]).toEqual([400, plain.text]);
      for (const name of ['content-type', 'content-security-policy', 'x-content-type-options', 'content-length']) expect(browser.headers.get(name), name).toBe(plain.headers.get(name));
      expect(browser.headers.get('vary')).toBe('Accept');
      for (const headers of [AGENT, AXIOS]) {
        const agent = await call({ friendly: true }, '/orders', headers, '{bad');
        expect(agent.status, headers.accept).toBe(400);
        expect(asJson(agent.text).error).toMatchObject({ code: 'invalid_input', retry: 'fix_input', message: 'Bad Request' });
        expect(agent.text).not.toContain('Unexpected token');
      }
      const problem = await call({ friendly: true }, '/orders', PROBLEM, '{bad');
      expect([problem.status, problem.headers.get('content-type'), JSON.parse(problem.text).code]).toEqual([400, 'application/problem+json', 'invalid_input']);
      // A good body still gets through.
      expect((await call({ friendly: true }, '/orders', AGENT, '{"sku":"a1"}')).status).toBe(201);
    });
  });

  it("a thrown http-errors error (status 404, exposed) is Express's own 404 page for a browser and not_found for an agent, its message shown to neither, and no failure", async () => {
    await unheard(async () => {
      const plain = await call({ friendly: false }, '/nope', BROWSER);
      const browser = await call({ friendly: true }, '/nope', BROWSER);
      expect([browser.status, browser.text]).toEqual([404, plain.text]);
      expect(plain.text).toContain('<pre>Not Found</pre>');
      const agent = await call({ friendly: true }, '/nope', AGENT);
      expect(agent.status).toBe(404);
      expect(asJson(agent.text).error).toMatchObject({ code: 'not_found', retry: 'no', message: 'Not Found' });
    });
  });

  it('a thrown 503 with a status and headers of its own keeps them for every caller, and is a failure onError hears, as itself', async () => {
    const before = heard.length;
    const plain = await call({ friendly: false }, '/down', BROWSER);
    const browser = await call({ friendly: true }, '/down', BROWSER);
    expect([browser.status, browser.headers.get('retry-after'), browser.text]).toEqual([503, '7', plain.text]);
    expect(plain.headers.get('retry-after')).toBe('7');
    const agent = await call({ friendly: true }, '/down', AGENT);
    expect([agent.status, agent.headers.get('retry-after')]).toEqual([503, '7']);
    expect(asJson(agent.text).error).toMatchObject({ code: 'temporarily_unavailable', retry: 'after_delay', retry_after: 7 });
    expect(agent.text).not.toContain('db down');
    expect(heard.slice(before).map((e) => (e as Error).message)).toEqual(['db down', 'db down']);
  });

  it("without onError, Express's own log (console.error, in production) hears of the 503 and of neither client error", async () => {
    const app = express();
    app.set('env', 'production');
    app.use(agentFriendlyExpress());
    app.post('/orders', express.json(), (_req, res) => void res.sendStatus(201));
    app.get('/nope', () => {
      throw nope;
    });
    app.get('/down', () => {
      throw Object.assign(new Error('db down'), { status: 503, expose: false });
    });
    app.use(agentFriendlyExpressErrorHandler());
    const running = await serve(app);
    try {
      logged.mockClear();
      for (const headers of [AGENT, BROWSER]) {
        expect((await fetch(`${running.url}/orders`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{bad' })).status).toBe(400);
        expect((await fetch(`${running.url}/nope`, { headers })).status).toBe(404);
        expect((await fetch(`${running.url}/down`, { headers })).status).toBe(503);
      }
      await settle();
      expect(logged.mock.calls.map(([e]) => (e as Error).message)).toEqual(['db down', 'db down']);
    } finally {
      await running.close();
    }
  });

  it('for any 4xx thrown as an http-errors error: a browser gets what plain Express sends, byte for byte; an agent, that page converted, the same status wherever the catalog reads it as a code of its own; no failure', async () => {
    // The 4xx whose Express page fromResponse reads as a code of that very status (a 410's Gone reads as not_found, 404).
    const kept = new Set([400, 401, 402, 403, 404, 409, 429]);
    await unheard(async () => {
      await fc.assert(
        // Not 407: the Fetch standard makes a 407 a network error for a client with no window, so the platform fetch never sees one.
        fc.asyncProperty(fc.integer({ min: 400, max: 499 }).filter((status) => status !== 407), async (status) => {
          const plain = await call({ friendly: false }, `/status/${status}`, BROWSER);
          const browser = await call({ friendly: true }, `/status/${status}`, BROWSER);
          expect([browser.status, browser.text]).toEqual([plain.status, plain.text]);
          expect(plain.status).toBe(status);
          const agent = await call({ friendly: true }, `/status/${status}`, AGENT);
          // Express's own page converted as any error page of the app's is (a 405 reads as invalid_input, 400).
          const converted = convertAppError({ status, headers: Object.fromEntries(plain.headers), body: plain.text }, AGENT.accept, 'http://127.0.0.1')!;
          expect(agent.status).toBe(converted.status);
          if (kept.has(status)) expect(agent.status).toBe(status);
          expect(asJson(agent.text).error.code).toBe(asJson(converted.body).error.code);
          expect(agent.text).not.toContain('Not for you');
        }),
        { numRuns: 40 },
      );
    });
  });

  it("the team's error handler mounted after AgentFriendly's gets the original error, and its answer reaches a browser byte for byte as without AgentFriendly", async () => {
    const after = { friendly: true, handler: 'after' } as const;
    seen.length = 0;
    await call(after, '/nope', BROWSER);
    await call(after, '/nope', AGENT);
    expect(seen).toHaveLength(2);
    for (const error of seen) expect(error).toBe(nope);
    for (const [path, body] of [['/orders', '{bad'], ['/nope'], ['/down'], ['/bug']] as const) {
      seen.length = 0;
      const plain = await call({ friendly: false, handler: 'after' }, path, BROWSER, body);
      const plainSeen = seen.splice(0);
      const browser = await call(after, path, BROWSER, body);
      expect([browser.status, browser.headers.get('content-type'), browser.text], path).toEqual([plain.status, plain.headers.get('content-type'), plain.text]);
      // The same error, not a stand-in: its status, type and message.
      expect(seen.map((e) => [(e as Error).message, (e as { status?: number }).status, (e as { type?: string }).type])).toEqual(plainSeen.map((e) => [(e as Error).message, (e as { status?: number }).status, (e as { type?: string }).type]));
    }
    expect(JSON.parse((await call(after, '/orders', BROWSER, '{bad')).text)).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it("for an agent, what the team's handler after AgentFriendly's writes is the app's own error response, its JSON kept with what an agent needs added; a thrown AgentError is rendered in its place", async () => {
    const after = { friendly: true, handler: 'after' } as const;
    const { url } = await site(after);
    const original = await ownJson(await fetch(`${url}/own-400`, { headers: BROWSER }));
    expect(original.body).toEqual({ message: 'Not for you', code: 'BAD_REQUEST' });
    const own = await fetch(`${url}/own-400`, { headers: AGENT });
    const ownText = await own.clone().text();
    // The team's own code stays: with the word its 400 means beside it, an agent reads it as the site's own.
    await expectAugmented(own, 400, original, { retry: 'fix_input' }, { code: 'bad_request', message: 'Not for you', retry: 'fix_input' });
    for (const headers of [AGENT, AXIOS]) {
      const agent = await call(after, '/status/400', headers);
      expect([agent.status, agent.headers.get('content-type'), agent.text]).toEqual([400, own.headers.get('content-type'), ownText]);
      expect((await call(after, '/orders', headers, '{bad')).status).toBe(400);
    }
    // The team's 500 for a failure: its JSON, with internal's word and its delay, in the body and Retry-After.
    const failed = await ownJson(await fetch(`${url}/bug`, { headers: BROWSER }));
    expect(failed.body).toEqual({ message: 'Something broke', code: 'INTERNAL' });
    await expectAugmented(await fetch(`${url}/bug`, { headers: AGENT }), 500, failed, { retry: 'once', retry_after: 1 }, { code: 'internal', message: 'Something broke', retry: 'once', retry_after: 1 });
    seen.length = 0;
    const busy = await fetch(`${(await site(after)).url}/busy`, { headers: AGENT });
    expect(busy.headers.get('retry-after')).toBe('30');
    await expectEnvelope(busy, 429, { code: 'rate_limited', retry_after: 30 });
    expect(seen).toHaveLength(1);
    expect(isAgentError(seen[0])).toBe(true);
    // A browser gets the team's page of it, with the error's status and Retry-After.
    const page = await call(after, '/busy', BROWSER);
    expect([page.status, page.headers.get('retry-after'), JSON.parse(page.text)]).toEqual([429, '30', { message: 'Too many requests', code: 'BAD_REQUEST' }]);
  });

  it("the team's error handler mounted before AgentFriendly's answers what it answers, and AgentFriendly's what it passes on", async () => {
    const before = { friendly: true, handler: 'before' } as const;
    const plain = await call({ friendly: false, handler: 'before' }, '/orders', BROWSER, '{bad');
    const browser = await call(before, '/orders', BROWSER, '{bad');
    expect([browser.status, browser.text]).toEqual([plain.status, plain.text]);
    expect(JSON.parse(browser.text)).toMatchObject({ code: 'BAD_REQUEST' });
    expect((await call(before, '/orders', AGENT, '{bad')).status).toBe(400);
    // /bug has no status: the team passes it on, and AgentFriendly answers it as a failure.
    const heardBefore = heard.length;
    const agent = await call(before, '/bug', AGENT);
    expect([agent.status, asJson(agent.text).error.code]).toEqual([500, 'internal']);
    const page = await call(before, '/bug', BROWSER);
    expect([page.status, page.text]).toEqual([500, expect.stringContaining('<pre>Internal Server Error</pre>')]);
    expect(page.text).not.toContain('the real bug');
    expect(heard.slice(heardBefore).map((e) => (e as Error).message)).toEqual(['the real bug', 'the real bug']);
  });
});
