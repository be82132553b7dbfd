// The apps of the load and fault tests (test/load/*.test.ts), one per AgentFriendly adapter, each
// wrapped in its adapter or bare (the bare app is where a browser's expected page comes from). Run
// in a child process by test/helpers/load-server.ts. Every app has the same routes:
//
//   GET  /ok/stream?seed=0..7   200, streamBody(seed) (64 KiB to 1 MiB), 16 KiB per turn of the event loop
//   GET  /ok/json               200, JSON_BODY as the framework serializes it
//   GET  /missing               the framework's own 404 (no route matches)
//   GET  /boom                  throws new Error(SECRET)
//   GET  /agent-error           throws agentError('temporarily_unavailable', { retryAfter: 7, message: 'Back soon' })
//   GET  /limited               a real rate limiter keyed by the X-Client header, LIMIT per WINDOW_MS, then 'ok':
//                               express-rate-limit, @fastify/rate-limit, hono-rate-limiter, a fixed window for node:http
//   POST /echo                  200, the request body back
//   GET  /fault/<name>          the faults, see FAULT_ROUTES
//
// The node:http app is a listener with no error handling of its own, as the adapter wraps it; the
// server around it (bare or wrapped) has a last resort for what the listener throws, as any node
// server must, or a browser's request to /boom would end the process. The adapter sees every
// agent's thrown error first, so the last resort counts agent requests that reach it: none should.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep, setImmediate as nextTurn } from 'node:timers/promises';
import type { RouteHandlerMethod } from 'fastify';
import { isAgentRequest } from '../../src/site/friendly.js';
import { agentError } from '../../src/site/agent-error.js';
import {
  AGENT_ERROR,
  JSON_BODY,
  LIMIT,
  NODE_404,
  NODE_500,
  OOPS_PAGE,
  PARTIAL_CHUNKS,
  PARTIAL_PAGE,
  SECRET,
  SLOW_429_PAGE,
  SLOW_429_RETRY_AFTER,
  TRICKLE_MS,
  TRICKLE_PAGE,
  TRICKLE_PART,
  TRICKLE_PARTS,
  WINDOW_MS,
  chunksOf,
  split,
  streamBody,
  trickleBody,
  type Adapter,
} from './load-shared.js';

/** The faults, by route name under /fault/ (see test/load/faults.test.ts for what each expects). */
export const FAULT_ROUTES = [
  'close-success', // 200, part of a body, then the body's source closes: the response is cut off
  'close-error', // 502 page, part of it, then its source closes
  'throw-after-headers', // 200 headers on the wire, then the handler throws Error(SECRET)
  'throw-after-body', // 200 and part of the body on the wire, then the handler throws Error(SECRET)
  'throw-after-error-headers', // 500 page headers (content-language, etag) and part of it, then a throw
  'agent-error-after-error-headers', // the same, then throws agentError('missing_field', { field: 'currency' })
  'throw-after-set-headers', // sets Content-Encoding: gzip, ETag and Content-Language (nothing written), then throws Error(SECRET)
  'wait', // ?ms=N: waits, then 200 JSON_BODY (the client aborts while it waits)
  'wait-limit', // ?ms=N: waits, then throws agentError('rate_limited', { retryAfter: 5 })
  'slow-429', // a 429 page with Retry-After, trickled over ~1 s (an agent's is held for conversion)
  'trickle', // 200, trickleBody() in 20 parts over ~1 s
  'trickle-error', // 404, TRICKLE_PAGE in 20 parts over ~1 s
] as const;
export type FaultRoute = (typeof FAULT_ROUTES)[number];

/** What the apps report to the server process. */
export interface Hooks {
  readonly onError: (error: unknown) => void;
  readonly lastResort: (agent: boolean) => void;
}

export interface Running {
  readonly server: Server;
  readonly port: number;
  readonly close: () => Promise<void>;
}

const seedOf = (url: string): number => Math.min(7, Math.max(0, Number(new URL(url, 'http://x').searchParams.get('seed')) | 0));
const msOf = (url: string): number => Math.min(5000, Math.max(0, Number(new URL(url, 'http://x').searchParams.get('ms')) || 1000));
const clientKey = (value: string | string[] | undefined | null): string => (Array.isArray(value) ? value[0] : value) ?? 'anonymous';

/** The headers /fault/throw-after-set-headers sets for a body it never sends. */
const SET_HEADERS = [
  ['content-encoding', 'gzip'],
  ['etag', '"report-1"'],
  ['content-language', 'en'],
] as const;

async function listen(server: Server): Promise<Running> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, close: () => closeServer(server) };
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

// ---- node:http and Express: writes on a node ServerResponse ----

/** Writes chunks one per turn of the event loop, waiting for drain; stops if the response is gone. */
async function writeChunks(res: ServerResponse, chunks: readonly (Buffer | string)[], gap = 0): Promise<void> {
  for (const chunk of chunks) {
    if (res.destroyed) return;
    const more = res.write(chunk);
    if (gap > 0) await sleep(gap);
    else if (more) await nextTurn();
    else await new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }
}

async function streamNode(res: ServerResponse, seed: number): Promise<void> {
  await writeChunks(res, chunksOf(streamBody(seed)));
  if (!res.destroyed) res.end();
}

function sendJson(res: ServerResponse, status = 200, value: unknown = JSON_BODY): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** The faults on a node ServerResponse, for node:http and Express alike. */
const NODE_FAULTS: Record<FaultRoute, (req: IncomingMessage, res: ServerResponse) => Promise<void>> = {
  async 'close-success'(_req, res) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    await writeChunks(res, chunksOf(streamBody(0)).slice(0, PARTIAL_CHUNKS));
    res.destroy();
  },
  async 'close-error'(_req, res) {
    res.writeHead(502, { 'content-type': 'text/html; charset=utf-8' });
    await writeChunks(res, [PARTIAL_PAGE]);
    res.destroy();
  },
  async 'throw-after-headers'(_req, res) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.flushHeaders();
    await nextTurn();
    throw new Error(SECRET);
  },
  async 'throw-after-body'(_req, res) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    await writeChunks(res, chunksOf(streamBody(0)).slice(0, PARTIAL_CHUNKS));
    throw new Error(SECRET);
  },
  async 'throw-after-error-headers'(_req, res) {
    res.writeHead(500, { 'content-type': 'text/html; charset=utf-8', 'content-language': 'en', etag: '"oops-1"' });
    await writeChunks(res, [OOPS_PAGE]);
    throw new Error(SECRET);
  },
  async 'agent-error-after-error-headers'(_req, res) {
    res.writeHead(500, { 'content-type': 'text/html; charset=utf-8', 'content-language': 'en', etag: '"oops-1"' });
    await writeChunks(res, [OOPS_PAGE]);
    throw agentError('missing_field', { field: 'currency' });
  },
  async 'throw-after-set-headers'(_req, res) {
    for (const [name, value] of SET_HEADERS) res.setHeader(name, value);
    await nextTurn();
    throw new Error(SECRET);
  },
  async wait(req, res) {
    await sleep(msOf(req.url!));
    sendJson(res);
  },
  async 'wait-limit'(req) {
    await sleep(msOf(req.url!));
    throw agentError('rate_limited', { retryAfter: 5 });
  },
  async 'slow-429'(_req, res) {
    res.writeHead(429, { 'content-type': 'text/html; charset=utf-8', 'retry-after': String(SLOW_429_RETRY_AFTER) });
    await writeChunks(res, split(SLOW_429_PAGE, TRICKLE_PARTS), TRICKLE_MS);
    res.end();
  },
  async trickle(_req, res) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    await writeChunks(res, chunksOf(trickleBody(), TRICKLE_PART), TRICKLE_MS);
    res.end();
  },
  async 'trickle-error'(_req, res) {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
    await writeChunks(res, split(TRICKLE_PAGE, TRICKLE_PARTS), TRICKLE_MS);
    res.end();
  },
};

/** A fixed-window rate limiter, for node:http, which has none of its own: LIMIT per key per WINDOW_MS. */
function fixedWindow() {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return (key: string): number | null => {
    const now = Date.now();
    let w = windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + WINDOW_MS };
      windows.set(key, w);
    }
    w.count += 1;
    return w.count <= LIMIT ? null : Math.ceil((w.resetAt - now) / 1000);
  };
}

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;

function nodeListener(): Listener {
  const limit = fixedWindow();
  return (req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    if (path.startsWith('/fault/') && (FAULT_ROUTES as readonly string[]).includes(path.slice(7))) return NODE_FAULTS[path.slice(7) as FaultRoute](req, res);
    switch (path) {
      case '/ok/stream':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return streamNode(res, seedOf(req.url!));
      case '/ok/json':
        return sendJson(res);
      case '/boom':
        throw new Error(SECRET);
      case '/agent-error':
        throw agentError('temporarily_unavailable', { retryAfter: AGENT_ERROR.retry_after, message: AGENT_ERROR.message });
      case '/limited': {
        const wait = limit(clientKey(req.headers['x-client']));
        if (wait === null) return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
        return void res.writeHead(429, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': String(wait) }).end('Too Many Requests');
      }
      case '/echo':
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        req.pipe(res);
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(NODE_404) });
        res.end(NODE_404);
    }
  };
}

/** The node server's last resort for a listener that throws: a 500 page, or the connection cut once the response has begun. */
function lastResort(listener: Listener, hooks: Hooks): Listener {
  return (req, res) => {
    const fail = (): void => {
      hooks.lastResort(isAgentRequest(req));
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(NODE_500) });
      res.end(NODE_500);
    };
    try {
      const result = listener(req, res);
      if (result instanceof Promise) result.catch(fail);
    } catch {
      fail();
    }
  };
}

async function nodeApp(wrapped: boolean, hooks: Hooks): Promise<Running> {
  const { agentFriendlyNode } = await import('../../src/site/node.js');
  const app = nodeListener();
  return listen(createServer(lastResort(wrapped ? agentFriendlyNode(app, { onError: hooks.onError }) : app, hooks)));
}

async function expressApp(wrapped: boolean, hooks: Hooks): Promise<Running> {
  const { default: express } = await import('express');
  const { rateLimit } = await import('express-rate-limit');
  const { agentFriendlyExpress, agentFriendlyExpressErrorHandler } = await import('../../src/site/express.js');
  const app = express();
  if (wrapped) app.use(agentFriendlyExpress());
  app.get('/ok/stream', (req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    return streamNode(res, seedOf(req.url));
  });
  app.get('/ok/json', (_req, res) => void res.json(JSON_BODY));
  app.get('/boom', () => {
    throw new Error(SECRET);
  });
  app.get('/agent-error', () => {
    throw agentError('temporarily_unavailable', { retryAfter: AGENT_ERROR.retry_after, message: AGENT_ERROR.message });
  });
  app.use(
    '/limited',
    rateLimit({ windowMs: WINDOW_MS, limit: LIMIT, standardHeaders: 'draft-8', legacyHeaders: false, keyGenerator: (req) => clientKey(req.headers['x-client']) }),
  );
  app.get('/limited', (_req, res) => void res.type('text/plain').send('ok'));
  app.post('/echo', (req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    req.pipe(res);
  });
  for (const name of FAULT_ROUTES) app.get(`/fault/${name}`, (req, res) => NODE_FAULTS[name](req, res));
  if (wrapped) app.use(agentFriendlyExpressErrorHandler({ onError: hooks.onError }));
  return listen(createServer(app));
}

// ---- Fastify: payloads are strings, buffers or node Readables ----

/** A node Readable of `chunks`, one per turn (or per `gap` ms), that ends with `fail` (its source closes, or an error) if given. */
function readable(chunks: readonly (Buffer | string)[], options: { gap?: number; fail?: 'close' | Error } = {}): Readable {
  let at = 0;
  const stream: Readable = new Readable({
    read() {
      const wait = at === 0 ? Promise.resolve() : options.gap ? sleep(options.gap) : nextTurn();
      void wait.then(() => {
        if (stream.destroyed) return;
        const chunk = chunks[at++];
        if (chunk !== undefined) return void stream.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
        // The source goes away: without an error (a premature close), or with one.
        if (options.fail === 'close') stream.destroy();
        else if (options.fail) stream.destroy(options.fail);
        else stream.push(null);
      });
    },
  });
  return stream;
}

async function fastifyApp(wrapped: boolean, hooks: Hooks): Promise<Running> {
  const { default: Fastify } = await import('fastify');
  const { default: rateLimit } = await import('@fastify/rate-limit');
  const { agentFriendlyFastify } = await import('../../src/site/fastify.js');
  const app = Fastify();
  if (wrapped) await app.register(agentFriendlyFastify, { onError: hooks.onError });
  await app.register(rateLimit, { global: false });
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
  app.get('/ok/stream', (request, reply) => reply.type('application/octet-stream').send(readable(chunksOf(streamBody(seedOf(request.url))))));
  app.get('/ok/json', async () => JSON_BODY);
  app.get('/boom', async () => {
    throw new Error(SECRET);
  });
  app.get('/agent-error', async () => {
    throw agentError('temporarily_unavailable', { retryAfter: AGENT_ERROR.retry_after, message: AGENT_ERROR.message });
  });
  app.get(
    '/limited',
    { config: { rateLimit: { max: LIMIT, timeWindow: WINDOW_MS, keyGenerator: (request) => clientKey(request.headers['x-client']) } } },
    async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'),
  );
  app.post('/echo', async (request, reply) => reply.type('application/octet-stream').send(request.body as Buffer));
  const partial = (): Buffer[] => chunksOf(streamBody(0)).slice(0, PARTIAL_CHUNKS);
  const faults: Record<FaultRoute, RouteHandlerMethod> = {
    'close-success': (_request, reply) => reply.type('application/octet-stream').send(readable(partial(), { fail: 'close' })),
    'close-error': (_request, reply) => reply.code(502).type('text/html; charset=utf-8').send(readable([PARTIAL_PAGE], { fail: 'close' })),
    // Headers written on the raw response (as a handler that streams by hand does), then a throw.
    'throw-after-headers': async (_request, reply) => {
      reply.raw.writeHead(200, { 'content-type': 'application/octet-stream' });
      reply.raw.flushHeaders();
      await nextTurn();
      throw new Error(SECRET);
    },
    'throw-after-body': (_request, reply) => reply.type('application/octet-stream').send(readable(partial(), { fail: new Error(SECRET) })),
    'throw-after-error-headers': (_request, reply) =>
      reply.code(500).type('text/html; charset=utf-8').header('content-language', 'en').header('etag', '"oops-1"').send(readable([OOPS_PAGE], { fail: new Error(SECRET) })),
    // Fastify holds a reply until it is sent: the error page's status and type, then the throw.
    'agent-error-after-error-headers': async (_request, reply) => {
      reply.code(500).type('text/html; charset=utf-8');
      await nextTurn();
      throw agentError('missing_field', { field: 'currency' });
    },
    'throw-after-set-headers': async (_request, reply) => {
      for (const [name, value] of SET_HEADERS) reply.header(name, value);
      await nextTurn();
      throw new Error(SECRET);
    },
    wait: async (request) => {
      await sleep(msOf(request.url));
      return JSON_BODY;
    },
    'wait-limit': async (request) => {
      await sleep(msOf(request.url));
      throw agentError('rate_limited', { retryAfter: 5 });
    },
    'slow-429': (_request, reply) =>
      reply.code(429).type('text/html; charset=utf-8').header('retry-after', String(SLOW_429_RETRY_AFTER)).send(readable(split(SLOW_429_PAGE, TRICKLE_PARTS), { gap: TRICKLE_MS })),
    trickle: (_request, reply) => reply.type('application/octet-stream').send(readable(chunksOf(trickleBody(), TRICKLE_PART), { gap: TRICKLE_MS })),
    'trickle-error': (_request, reply) => reply.code(404).type('text/html; charset=utf-8').send(readable(split(TRICKLE_PAGE, TRICKLE_PARTS), { gap: TRICKLE_MS })),
  };
  for (const name of FAULT_ROUTES) app.get(`/fault/${name}`, faults[name]);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { server: app.server, port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

// ---- Hono on @hono/node-server: bodies are web ReadableStreams ----

/** A ReadableStream of `chunks`, one per pull (or per `gap` ms), that ends with `fail` (an error) if given. */
function webStream(chunks: readonly (Buffer | string)[], options: { gap?: number; fail?: Error } = {}): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (at > 0) await (options.gap ? sleep(options.gap) : nextTurn());
        if (at === chunks.length) {
          if (options.fail) throw options.fail;
          return controller.close();
        }
        const chunk = chunks[at++]!;
        controller.enqueue(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      },
    },
    { highWaterMark: 0 },
  );
}

async function honoApp(wrapped: boolean, hooks: Hooks): Promise<Running> {
  const { Hono } = await import('hono');
  const { getRequestListener } = await import('@hono/node-server');
  const { rateLimiter } = await import('hono-rate-limiter');
  const { agentFriendlyHono } = await import('../../src/site/hono.js');
  const app = new Hono();
  // Hono's default error handler, without its console.error: the same answer, no log per /boom.
  app.onError((error, c) => ('getResponse' in error ? (error as unknown as { getResponse: () => Response }).getResponse() : c.text('Internal Server Error', 500)));
  if (wrapped) app.use(agentFriendlyHono({ onError: hooks.onError }));
  app.get('/ok/stream', (c) => c.body(webStream(chunksOf(streamBody(seedOf(c.req.url)))), 200, { 'content-type': 'application/octet-stream' }));
  app.get('/ok/json', (c) => c.json(JSON_BODY));
  app.get('/boom', () => {
    throw new Error(SECRET);
  });
  app.get('/agent-error', () => {
    throw agentError('temporarily_unavailable', { retryAfter: AGENT_ERROR.retry_after, message: AGENT_ERROR.message });
  });
  app.use('/limited', rateLimiter({ windowMs: WINDOW_MS, limit: LIMIT, standardHeaders: 'draft-7', keyGenerator: (c) => clientKey(c.req.header('x-client')) }));
  app.get('/limited', (c) => c.text('ok'));
  app.post('/echo', async (c) => c.body(await c.req.arrayBuffer(), 200, { 'content-type': 'application/octet-stream' }));
  const octet = { 'content-type': 'application/octet-stream' };
  const html = { 'content-type': 'text/html; charset=utf-8' };
  const partial = (): Buffer[] => chunksOf(streamBody(0)).slice(0, PARTIAL_CHUNKS);
  app.get('/fault/close-success', (c) => c.body(webStream(partial(), { fail: new Error('upstream closed') }), 200, octet));
  app.get('/fault/close-error', (c) => c.body(webStream([PARTIAL_PAGE], { fail: new Error('upstream closed') }), 502, html));
  // In Hono a handler returns a Response: what fails after the headers are sent is its body stream.
  app.get('/fault/throw-after-headers', (c) => c.body(webStream([], { fail: new Error(SECRET) }), 200, octet));
  app.get('/fault/throw-after-body', (c) => c.body(webStream(partial(), { fail: new Error(SECRET) }), 200, octet));
  app.get('/fault/throw-after-error-headers', (c) =>
    c.body(webStream([OOPS_PAGE], { fail: new Error(SECRET) }), 500, { ...html, 'content-language': 'en', etag: '"oops-1"' }),
  );
  // Hono holds a response until the handler returns one: the error page's status and type, then the throw.
  app.get('/fault/agent-error-after-error-headers', async (c) => {
    c.status(500);
    c.header('content-type', 'text/html; charset=utf-8');
    await nextTurn();
    throw agentError('missing_field', { field: 'currency' });
  });
  app.get('/fault/throw-after-set-headers', async (c) => {
    for (const [name, value] of SET_HEADERS) c.header(name, value);
    await nextTurn();
    throw new Error(SECRET);
  });
  app.get('/fault/wait', async (c) => {
    await sleep(msOf(c.req.url));
    return c.json(JSON_BODY);
  });
  app.get('/fault/wait-limit', async (c) => {
    await sleep(msOf(c.req.url));
    throw agentError('rate_limited', { retryAfter: 5 });
  });
  app.get('/fault/slow-429', (c) => c.body(webStream(split(SLOW_429_PAGE, TRICKLE_PARTS), { gap: TRICKLE_MS }), 429, { ...html, 'retry-after': String(SLOW_429_RETRY_AFTER) }));
  app.get('/fault/trickle', (c) => c.body(webStream(chunksOf(trickleBody(), TRICKLE_PART), { gap: TRICKLE_MS }), 200, octet));
  app.get('/fault/trickle-error', (c) => c.body(webStream(split(TRICKLE_PAGE, TRICKLE_PARTS), { gap: TRICKLE_MS }), 404, html));
  return listen(createServer(getRequestListener(app.fetch)));
}

/** Starts one app on a free loopback port. */
export async function startApp(adapter: Adapter, wrapped: boolean, hooks: Hooks): Promise<Running> {
  switch (adapter) {
    case 'node':
      return nodeApp(wrapped, hooks);
    case 'express':
      return expressApp(wrapped, hooks);
    case 'fastify':
      return fastifyApp(wrapped, hooks);
    case 'hono':
      return honoApp(wrapped, hooks);
  }
}
