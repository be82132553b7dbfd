import { execFile } from 'node:child_process';
import { createServer, ServerResponse, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validateProblem } from '../../src/index.js';
import { agentFriendlyExpressErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { serve, type TestServer } from '../helpers/server.js';
import { AGENT, PROBLEM, BROWSER, expectBytes, expectEnvelope, expectRateLimited } from '../helpers/agents.js';

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
