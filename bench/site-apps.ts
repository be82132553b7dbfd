// The apps bench/site.ts loads: the same three routes on node:http, Express 5, Fastify 5 and Hono
// (on @hono/node-server; twice: with the middleware, and as a Fetch API app wrapped by
// agentFriendlyFetch), each bare, wrapped in its AgentFriendly adapter, or with a no-op integration
// of the same shape (see VARIANTS). Imported by bench/site-server.ts (one server per child process)
// and, for the shared constants, by bench/site.ts and the bench/explore/site-*.ts scripts.
//
//   GET /json     200, a 1 KB JSON object, serialized the way the framework does it
//   GET /stream   200, 1 MiB of application/octet-stream in 16 chunks of 64 KiB, one chunk per turn
//                 of the event loop (setImmediate between chunks), as each framework streams:
//                 res.write (node:http, Express), a node Readable (Fastify), a ReadableStream (Hono)
//   GET /missing  the app's own 404: a small HTML page (node:http, whose "app" is the listener),
//                 Express's finalhandler page, Fastify's JSON 404, Hono's text 404

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyPluginAsync } from 'fastify';
import type { Context, MiddlewareHandler } from 'hono';

/** `fetch`: the Hono app of `hono` with no middleware, its app.fetch wrapped by agentFriendlyFetch. */
export const ADAPTERS = ['node', 'express', 'fastify', 'hono', 'fetch'] as const;
export type Adapter = (typeof ADAPTERS)[number];
/**
 * bare: the app alone. wrapped: with its AgentFriendly adapter from src/site. noop: with an
 * integration of the same kind that does nothing (the floor any adapter of that shape pays).
 */
export const VARIANTS = ['bare', 'wrapped', 'noop'] as const;
export type Variant = (typeof VARIANTS)[number];

/** The three cases bench/site.ts measures, in the order it warms a server up (the 404s last), and their routes. */
export const CASES = ['json', 'stream', '404', 'error'] as const;
export type Case = (typeof CASES)[number];
export const PATHS: Readonly<Record<Case, string>> = { json: '/json', stream: '/stream', '404': '/missing', error: '/locked' };

/** What an agent client sends (test/site/*.test.ts's AGENT): it ranks JSON first, so AgentFriendly answers it with the envelope. */
export const AGENT_ACCEPT = 'application/json, text/markdown, text/html, */*';

export const CHUNK_BYTES = 64 * 1024;
export const CHUNKS = 16;
export const STREAM_BYTES = CHUNK_BYTES * CHUNKS; // 1 MiB

/** A 1 KB JSON object (JSON.stringify gives JSON_BYTES bytes). */
export const JSON_BODY = {
  order: 'ord_1042',
  status: 'shipped',
  currency: 'EUR',
  items: Array.from({ length: 15 }, (_, i) => ({ sku: `sku-${1000 + i}`, name: `Item number ${i}`, qty: 1 + (i % 3), price: 1000 + i * 25 })),
};
export const JSON_BYTES = Buffer.byteLength(JSON.stringify(JSON_BODY));

/** The app's own JSON error for /locked, a 423 in its own format, which AgentFriendly adds the contract to for an agent. */
export const ERROR_STATUS = 423;
export const ERROR_BODY = { message: 'Order is locked', code: 'ORDER_LOCKED' };
/** What an agent gets for it: every member kept, the retry word added (423 reads as a conflict: refetch). */
export const AUGMENTED_BODY = { ...ERROR_BODY, retry: 'refetch' };

/** The bare node:http app's own 404 page (nginx's default). */
export const NODE_404 = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

// One chunk, filled once and sent as it is (never changed, so sending it again is safe).
const CHUNK = Buffer.alloc(CHUNK_BYTES, 0x61);

/** Writes the 1 MiB body on a node response, one chunk per turn of the event loop, waiting for drain. */
function streamNode(res: ServerResponse): void {
  let sent = 0;
  const next = (): void => {
    if (res.destroyed) return;
    if (sent === CHUNKS) return void res.end();
    sent += 1;
    if (res.write(CHUNK)) setImmediate(next);
    else res.once('drain', next);
  };
  next();
}

async function* chunks(): AsyncGenerator<Buffer> {
  for (let i = 0; i < CHUNKS; i++) {
    if (i > 0) await nextTurn();
    yield CHUNK;
  }
}

function webStream(): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sent > 0) await nextTurn();
        if (sent === CHUNKS) return controller.close();
        sent += 1;
        controller.enqueue(CHUNK);
      },
    },
    { highWaterMark: 0 },
  );
}

export interface Running {
  readonly port: number;
  readonly close: () => Promise<void>;
}

async function listen(server: Server): Promise<Running> {
  server.keepAliveTimeout = 120_000;
  server.headersTimeout = 130_000;
  if (!server.listening) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function nodeListener(req: IncomingMessage, res: ServerResponse): void {
  if (req.url === '/json') {
    const body = JSON.stringify(JSON_BODY);
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else if (req.url === '/stream') {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    streamNode(res);
  } else if (req.url === '/locked') {
    const body = JSON.stringify(ERROR_BODY);
    res.writeHead(ERROR_STATUS, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.writeHead(404, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(NODE_404) });
    res.end(NODE_404);
  }
}

type NodeListener = (req: IncomingMessage, res: ServerResponse) => unknown;
type Next = (error?: unknown) => void;

/** What each variant puts around the app, per framework. */
interface Integration {
  node?: (listener: NodeListener) => NodeListener;
  express?: { first: (req: IncomingMessage, res: ServerResponse, next: Next) => void; last?: (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void };
  fastify?: FastifyPluginAsync;
  hono?: MiddlewareHandler;
  /** Around the Hono app's fetch, and its error handler (app.onError). */
  fetch?: { around: (fetch: FetchApp) => FetchApp; onError?: (error: Error, c: Context) => Response };
}

type FetchApp = (request: Request, ...rest: any[]) => Response | Promise<Response>;

async function integration(variant: Variant, adapter: Adapter): Promise<Integration> {
  if (variant === 'bare') return {};
  if (variant === 'noop') {
    switch (adapter) {
      case 'node':
        // A synchronous pass-through, as agentFriendlyNode(listener) is for an app that is.
        return { node: (listener) => (req, res) => listener(req, res) };
      case 'express': {
        // The adapter's shape: a middleware first and an error handler last (every Express app ends
        // in one); an unused error-handling layer costs Express a few microseconds per request.
        return { express: { first: (_req, _res, next) => next(), last: (error, _req, _res, next) => next(error) } };
      }
      case 'fastify': {
        const plugin: FastifyPluginAsync = async (fastify) => {
          // A callback hook, as the adapter's are: an async one costs a promise per reply more.
          fastify.addHook('onSend', (_request, _reply, payload, done) => done(null, payload));
        };
        return { fastify: Object.assign(plugin, { [Symbol.for('skip-override')]: true }) };
      }
      case 'hono':
        return {
          hono: async (_c, next) => {
            await next();
          },
        };
      case 'fetch':
        // A synchronous pass-through, as agentFriendlyFetch is for an app that answers synchronously.
        return { fetch: { around: (fetch) => (request, ...rest) => fetch(request, ...rest) } };
    }
  }
  // Only the adapter's own module is loaded, as a site using that framework would.
  switch (adapter) {
    case 'node': {
      const { agentFriendlyNode } = await import('../src/site/node.js');
      return { node: (listener) => agentFriendlyNode(listener) };
    }
    case 'express': {
      const { agentFriendlyExpress, agentFriendlyExpressErrorHandler } = await import('../src/site/express.js');
      return { express: { first: agentFriendlyExpress(), last: agentFriendlyExpressErrorHandler() } };
    }
    case 'fastify': {
      const { agentFriendlyFastify } = await import('../src/site/fastify.js');
      return { fastify: agentFriendlyFastify };
    }
    case 'hono': {
      const { agentFriendlyHono } = await import('../src/site/hono.js');
      return { hono: agentFriendlyHono() };
    }
    case 'fetch': {
      // What the README gives a Hono app without a middleware: the Fetch adapter around app.fetch,
      // and the Hono error handler that renders thrown AgentErrors for agents.
      const { agentFriendlyFetch } = await import('../src/site/fetch.js');
      const { agentFriendlyHonoErrorHandler } = await import('../src/site/hono.js');
      return { fetch: { around: (fetch) => agentFriendlyFetch(fetch), onError: agentFriendlyHonoErrorHandler() } };
    }
  }
}

async function nodeApp(around: Integration): Promise<Running> {
  return listen(createServer((around.node ? around.node(nodeListener) : nodeListener) as NodeListener));
}

async function expressApp(around: Integration): Promise<Running> {
  const { default: express } = await import('express');
  const app = express();
  if (around.express) app.use(around.express.first);
  app.get('/json', (_req, res) => void res.json(JSON_BODY));
  app.get('/locked', (_req, res) => void res.status(ERROR_STATUS).json(ERROR_BODY));
  app.get('/stream', (_req, res) => {
    res.setHeader('content-type', 'application/octet-stream');
    streamNode(res);
  });
  if (around.express?.last) app.use(around.express.last);
  return listen(createServer(app));
}

async function fastifyApp(around: Integration): Promise<Running> {
  const { default: Fastify } = await import('fastify');
  const app = Fastify();
  if (around.fastify) await app.register(around.fastify);
  app.get('/json', async () => JSON_BODY);
  app.get('/locked', (_request, reply) => reply.code(ERROR_STATUS).send(ERROR_BODY));
  app.get('/stream', (_request, reply) => reply.type('application/octet-stream').send(Readable.from(chunks(), { objectMode: false })));
  await app.listen({ port: 0, host: '127.0.0.1' });
  app.server.keepAliveTimeout = 120_000;
  app.server.headersTimeout = 130_000;
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

async function honoApp(around: Integration): Promise<Running> {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const app = new Hono();
  if (around.hono) app.use(around.hono);
  if (around.fetch?.onError) app.onError(around.fetch.onError);
  app.get('/json', (c) => c.json(JSON_BODY));
  app.get('/locked', (c) => c.json(ERROR_BODY, ERROR_STATUS));
  app.get('/stream', (c) => c.body(webStream(), 200, { 'content-type': 'application/octet-stream' }));
  if (process.env.HONO_LISTENER === '1') {
    // For bench/explore/site-ab.ts: agentFriendlyNode (node:http) around @hono/node-server's listener, no middleware.
    const { getRequestListener } = await import('@hono/node-server');
    const { agentFriendlyNode } = await import('../src/site/node.js');
    return listen(createServer(agentFriendlyNode(getRequestListener(app.fetch))));
  }
  const server = await new Promise<Server>((resolve) => {
    const fetch = around.fetch ? around.fetch.around(app.fetch) : app.fetch;
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  return listen(server);
}

/** Starts one app on a free loopback port. */
export async function startApp(adapter: Adapter, variant: Variant): Promise<Running> {
  const around = await integration(variant, adapter);
  switch (adapter) {
    case 'node':
      return nodeApp(around);
    case 'express':
      return expressApp(around);
    case 'fastify':
      return fastifyApp(around);
    case 'hono':
    case 'fetch':
      return honoApp(around);
  }
}
