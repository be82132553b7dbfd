// The conformance table of AgentFriendly: one app, described once in neutral terms (ROUTES), built on
// every adapter and every documented setup (SETUPS), and one list of cases (CASES) every one of them
// must pass. test/site/conformance.test.ts runs each case against each setup. A new adapter is one
// entry of ADAPTERS: a function that builds the app from the routes and serves it on 127.0.0.1.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify, { LogController } from 'fastify';
import { Controller, Get, Module, Res, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Hono } from 'hono';
import Koa from 'koa';
import { expect } from 'vitest';
import { CODES, validateEnvelope, validateProblem } from '../../src/index.js';
import { fromResponse } from '../../src/core/from-response.js';
import { base64Json, x402RequirementsOf } from '../../src/core/payment.js';
import type { Payment } from '../../src/index.js';
import { agentError, isAgentError, type AgentError } from '../../src/site/agent-error.js';
import { agentFriendlyExpressErrorHandler, agentFriendlyExpress } from '../../src/site/express.js';
import { agentFriendlyFastify } from '../../src/site/fastify.js';
import { agentFriendlyFetch } from '../../src/site/fetch.js';
import { DEFAULT_RETRY_AFTER, type AgentFriendlyOptions } from '../../src/site/friendly.js';
import { agentFriendlyHonoErrorHandler, agentFriendlyHono } from '../../src/site/hono.js';
import { agentFriendlyKoa } from '../../src/site/koa.js';
import { AgentFriendlyModule } from '../../src/site/nest.js';
import { agentFriendlyNode } from '../../src/site/node.js';
import { escapeHtml } from '../../src/site/page.js';
import '../../src/tools/vitest.js';
import { AGENT, ANY, BROWSER, MARKDOWN, PROBLEM, SIGNED, expectDocsPages, expectEnvelope, expectHeadersOnly, expectNoLeak, expectProblemOnOrigin, expectSoldOut, expectSuccessUntouched, expectThrownAgentErrors } from './agents.js';
import { serve } from './server.js';

// ---- the app, in neutral terms ----

/** A response the app writes itself: a page (any status, success or error), its body at once. */
export interface PageRoute {
  readonly path: string;
  readonly kind: 'page';
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A response the app streams, a chunk at a time. */
export interface StreamRoute {
  readonly path: string;
  readonly kind: 'stream';
  readonly status: number;
  readonly contentType: string;
  readonly chunks: readonly string[];
}

/** A handler that throws what `error` builds. */
export interface ThrowRoute {
  readonly path: string;
  readonly kind: 'throw';
  readonly error: () => unknown;
}

export type Route = PageRoute | StreamRoute | ThrowRoute;

/** What the setups build: the routes, the adapter's options, and whether the app has an error page of its own. */
export interface SiteSpec {
  readonly routes: readonly Route[];
  /** The adapter's options; a misconfiguration row gives values of the wrong kind on purpose, which the adapter must refuse as it is made. */
  readonly options: AgentFriendlyOptions;
  /** The app renders its own error page (APP_PAGE, with status 500) for every thrown error, where its framework lets it. */
  readonly ownPage: boolean;
  /**
   * Where the framework's own logger writes its errors, for a setup whose log is not console.error
   * (Fastify's logger, Nest's Logger): each call's arguments. console.error is captured by the test.
   */
  readonly log: (...args: unknown[]) => void;
}

/** A site running on loopback. */
export interface Site {
  readonly url: string;
  readonly close: () => Promise<void>;
}

/** The error page of an app that has one: the same for every error, and sent with a status of its own choosing. */
export const APP_PAGE = '<!doctype html><title>Shop error</title><h1>Sorry, that did not work</h1>';

/** The message of /bug's plain Error, which the site's log must show (its message and stack, not a 500 stand-in). */
export const REAL_BUG = 'the real bug';

/** The message of /client-error's http-errors error: the framework may show it (Koa does, for an exposed client error); it is no failure. */
export const CLIENT_ERROR = 'No such order';

/** The message of /gone's AgentError: markup and quotes a page must escape. */
export const GONE_MESSAGE = 'Sold <b>out</b> & "gone"';

const chunked = (text: string, size: number): string[] => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));

/** What /pay-page and /pay-thrown ask to be paid: 0.01 USDC on Base Sepolia, as x402 clients sign it. */
export const PAYMENT: Payment = {
  protocol: 'x402',
  version: 2,
  resource: { url: 'https://shop.example/report', description: 'The sales report', mime_type: 'application/json' },
  options: [{ scheme: 'exact', network: 'eip155:84532', asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', amount: '10000', pay_to: '0x209693Bc6afc0C5328bA36FaF03C514EF312287C', max_timeout_seconds: 300, extra: { name: 'USDC', version: '2' } }],
};
/** The PAYMENT-REQUIRED header an app's x402 middleware sends for PAYMENT (base64 of x402's PaymentRequired). */
const PAYMENT_REQUIRED = base64Json(x402RequirementsOf(PAYMENT, 'Payment required'));

/** A contract body the app sends itself. */
const ALREADY = JSON.stringify({ error: { code: 'out_of_stock', message: 'Gone', field: null, retry: 'no', retry_after: null } });

export const ROUTES: readonly Route[] = [
  { path: '/ok', kind: 'page', status: 200, contentType: 'application/json', body: JSON.stringify({ items: Array.from({ length: 20 }, (_, i) => ({ id: i, name: `item ${i}` })) }) },
  { path: '/stream', kind: 'stream', status: 200, contentType: 'application/octet-stream', chunks: chunked('0123456789abcdef'.repeat(16 * 1024), 16 * 1024) },
  { path: '/sold-out', kind: 'page', status: 404, contentType: 'text/html', body: '<html><head><title>Sold out</title></head><body><h1>Sold out</h1></body></html>', headers: { vary: 'Origin' } },
  { path: '/page-503', kind: 'page', status: 503, contentType: 'text/html', body: '<!doctype html><title>Down for maintenance</title><h1>Down for maintenance</h1>' },
  { path: '/page-429', kind: 'page', status: 429, contentType: 'text/html', body: '<!doctype html><title>Slow down</title>', headers: { 'retry-after': '12' } },
  { path: '/page-400', kind: 'page', status: 400, contentType: 'text/html', body: '<!doctype html><title>Bad request</title>' },
  { path: '/json-409', kind: 'page', status: 409, contentType: 'application/json', body: JSON.stringify({ message: 'Order changed' }) },
  { path: '/text-403', kind: 'page', status: 403, contentType: 'text/plain', body: 'Members only' },
  { path: '/stray', kind: 'page', status: 404, contentType: 'text/html', body: '<title>Withdrawn</title>', headers: { 'retry-after': '5' } },
  { path: '/already', kind: 'page', status: 409, contentType: 'application/json', body: ALREADY },
  { path: '/stream-error', kind: 'stream', status: 500, contentType: 'text/html', chunks: ['<html><head><title>Broken stream</title></head><body>', ...chunked('x'.repeat(64 * 1024), 8 * 1024), '</body></html>'] },
  { path: '/pay-page', kind: 'page', status: 402, contentType: 'application/json', body: '{}', headers: { 'payment-required': PAYMENT_REQUIRED } },
  { path: '/slow-down', kind: 'throw', error: () => agentError('rate_limited', { retryAfter: 30, message: 'Slow down' }) },
  { path: '/pay-thrown', kind: 'throw', error: () => agentError('payment_required', { payment: PAYMENT }) },
  { path: '/fix', kind: 'throw', error: () => agentError('missing_field', { field: 'currency' }) },
  { path: '/gone', kind: 'throw', error: () => agentError('out_of_stock', { message: GONE_MESSAGE }) },
  { path: '/boom', kind: 'throw', error: () => new TypeError('secret db password') },
  { path: '/bug', kind: 'throw', error: () => new Error(REAL_BUG) },
  // A client error as http-errors makes one (createError(404, ...): status, statusCode, expose), as body-parser, Koa's ctx.throw and Fastify's plugins do.
  { path: '/client-error', kind: 'throw', error: () => Object.assign(new Error(CLIENT_ERROR), { status: 404, statusCode: 404, expose: true }) },
];

const routeAt = (routes: readonly Route[], url: string): Route | undefined => routes.find((route) => route.path === url.split('?', 1)[0]);
const webStream = (chunks: readonly string[]): ReadableStream<Uint8Array> => Readable.toWeb(Readable.from(chunks.map((c) => Buffer.from(c)))) as ReadableStream<Uint8Array>;

// ---- the adapters ----

/**
 * One way to run AgentFriendly; `ownPage` when its framework has an error page an app configures;
 * `httpErrors` when its framework answers an http-errors error (status, statusCode, expose) with
 * that status (Express's final handler, Fastify's and Koa's, Nest's on either platform), where a
 * thrown client error of that kind is the framework's answer, not a failure.
 */
export interface Adapter {
  readonly name: string;
  readonly ownPage?: boolean;
  readonly httpErrors?: boolean;
  readonly start: (spec: SiteSpec) => Promise<Site>;
}

/** The same routes as a Fetch API app: a switch over the path, the app's own 404 for any other. */
function fetchApp(routes: readonly Route[]) {
  return (request: Request): Response => {
    const route = routeAt(routes, new URL(request.url).pathname);
    if (route === undefined) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });
    if (route.kind === 'throw') throw route.error();
    const body = route.kind === 'page' ? route.body : webStream(route.chunks);
    return new Response(body, { status: route.status, headers: { 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) } });
  };
}

/** The same routes on Hono, after what `app` has already (a middleware). */
function honoApp(routes: readonly Route[], app = new Hono()): Hono {
  for (const route of routes) {
    app.get(route.path, (c) => {
      if (route.kind === 'throw') throw route.error();
      const headers = { 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) };
      return c.body(route.kind === 'page' ? route.body : webStream(route.chunks), route.status as 200, headers);
    });
  }
  return app;
}

/** The little a route uses of a Fastify reply (`raw`, code, headers, send) or an Express response (status, set, send). */
interface PlatformResponse {
  readonly raw?: unknown;
  code(status: number): PlatformResponse;
  status(status: number): PlatformResponse;
  headers(headers: Record<string, string>): PlatformResponse;
  set(headers: Record<string, string>): PlatformResponse;
  send(body: unknown): unknown;
}

/**
 * The same routes as a NestJS module: a controller with a method a route, each writing its page
 * through the platform's own response (`@Res()`), after the module `imports`. Nest's decorators are
 * applied as functions, since the repository compiles without experimentalDecorators.
 */
function nestModule(routes: readonly Route[], imports: DynamicModule[]): object {
  class RoutesController {}
  const prototype = RoutesController.prototype as Record<string, unknown>;
  routes.forEach((route, i) => {
    const key = `route${i}`;
    prototype[key] = (res: PlatformResponse) => {
      if (route.kind === 'throw') throw route.error();
      const headers = { 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) };
      const body = route.kind === 'page' ? route.body : Readable.from(route.chunks);
      // A Fastify reply sends a string or a stream; an Express response sends a string, and is piped a stream.
      if (res.raw !== undefined) return void res.code(route.status).headers(headers).send(body);
      res.status(route.status).set(headers);
      if (typeof body === 'string') return void res.send(body);
      body.pipe(res as unknown as NodeJS.WritableStream);
    };
    Get(route.path)(prototype, key, Object.getOwnPropertyDescriptor(prototype, key)!);
    Res()(prototype, key, 0);
  });
  Controller()(RoutesController);
  class AppModule {}
  Module({ imports, controllers: [RoutesController] })(AppModule);
  return AppModule;
}

/** A Nest app of the routes on a platform, listening on loopback, its Logger's errors going to `log` (Nest's other messages to nothing). */
async function startNest({ routes, options, log }: SiteSpec, platform: ExpressAdapter | FastifyAdapter): Promise<Site> {
  const quiet = () => undefined;
  const logger = { log: quiet, warn: quiet, debug: quiet, verbose: quiet, fatal: quiet, error: log };
  const app = await NestFactory.create(nestModule(routes, [AgentFriendlyModule.forRoot(options)]) as never, platform, { logger, forceCloseConnections: true });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

const ADAPTERS: readonly Adapter[] = [
  {
    name: 'node:http',
    async start({ routes, options }) {
      const listener = agentFriendlyNode((req, res) => {
        const route = routeAt(routes, req.url ?? '/');
        if (route === undefined) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        if (route.kind === 'throw') throw route.error();
        res.writeHead(route.status, { 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) });
        if (route.kind === 'page') return void res.end(route.body);
        void (async () => {
          for (const chunk of route.chunks) await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
          res.end();
        })();
      }, options);
      // The app's last resort for what its listener throws, as a node:http app has one.
      const lastResort = (res: ServerResponse): void => {
        if (res.headersSent) return void res.destroy();
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
      };
      return serve((req, res) => {
        try {
          const result = listener(req, res);
          if (result instanceof Promise) result.catch(() => lastResort(res));
        } catch {
          lastResort(res);
        }
      });
    },
  },
  {
    name: 'Express',
    httpErrors: true,
    ownPage: true,
    async start({ routes, options, ownPage }) {
      const app = express();
      // Express logs a failure (its final handler's console.error) in any env but 'test', which vitest sets.
      app.set('env', 'production');
      app.use(agentFriendlyExpress(options));
      for (const route of routes) {
        app.get(route.path, (_req, res) => {
          if (route.kind === 'throw') throw route.error();
          res.status(route.status).set({ 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) });
          if (route.kind === 'page') return void res.send(route.body);
          void (async () => {
            for (const chunk of route.chunks) await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
            res.end();
          })();
        });
      }
      app.use(agentFriendlyExpressErrorHandler(options));
      if (ownPage) app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.status(500).type('html').send(APP_PAGE));
      return serve(app);
    },
  },
  {
    name: 'Fastify',
    httpErrors: true,
    ownPage: true,
    async start({ routes, options, ownPage, log }) {
      // Fastify's logger, its errors going to `log` (a request's own lines are left out: through a
      // LogController, as the top-level disableRequestLogging option is deprecated, FSTDEP023).
      const quiet = () => undefined;
      const logger = { level: 'info', info: quiet, warn: quiet, debug: quiet, trace: quiet, fatal: quiet, error: log, child: () => logger };
      const app = Fastify({ loggerInstance: logger as never, logController: new LogController({ disableRequestLogging: true }) });
      await app.register(agentFriendlyFastify, options);
      // The app's routes in a scope of their own, with its error handler there when it has one, as a Fastify app sets one.
      await app.register(async (scope) => {
        if (ownPage) scope.setErrorHandler((_error, _request, reply) => reply.code(500).type('text/html; charset=utf-8').send(APP_PAGE));
        for (const route of routes) {
          scope.get(route.path, (_request, reply) => {
            if (route.kind === 'throw') throw route.error();
            reply.code(route.status).headers({ 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) });
            return reply.send(route.kind === 'page' ? route.body : Readable.from(route.chunks));
          });
        }
      });
      const url = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url, close: () => app.close() };
    },
  },
  {
    name: 'Hono, with agentFriendlyHono',
    ownPage: true,
    async start({ routes, options, ownPage }) {
      const app = honoApp(routes, new Hono().use(agentFriendlyHono(options)));
      if (ownPage) app.onError((_error, c) => c.html(APP_PAGE, 500));
      return serve(getRequestListener(app.fetch));
    },
  },
  {
    name: 'Hono, agentFriendlyFetch around app.fetch and agentFriendlyHonoErrorHandler',
    async start({ routes, options }) {
      const app = honoApp(routes);
      app.onError(agentFriendlyHonoErrorHandler(options));
      return serve(getRequestListener(agentFriendlyFetch(app.fetch, options)));
    },
  },
  {
    name: "Hono, node:http's agentFriendlyNode around @hono/node-server's listener and agentFriendlyHonoErrorHandler",
    async start({ routes, options }) {
      const app = honoApp(routes);
      app.onError(agentFriendlyHonoErrorHandler(options));
      return serve(agentFriendlyNode(getRequestListener(app.fetch), options));
    },
  },
  {
    name: 'Fetch handler',
    async start({ routes, options }) {
      return serve(getRequestListener(agentFriendlyFetch(fetchApp(routes), options), { overrideGlobalObjects: false }));
    },
  },
  {
    name: 'Koa',
    httpErrors: true,
    async start({ routes, options }) {
      const app = new Koa();
      app.use(agentFriendlyKoa(options));
      // The routes as one middleware; a path it does not know falls through to Koa's own 404.
      app.use(async (ctx, next) => {
        const route = routeAt(routes, ctx.path);
        if (route === undefined) return next();
        if (route.kind === 'throw') throw route.error();
        ctx.status = route.status;
        ctx.set({ 'content-type': route.contentType, ...(route.kind === 'page' ? route.headers : {}) });
        ctx.body = route.kind === 'page' ? route.body : Readable.from(route.chunks);
      });
      return serve(app.callback());
    },
  },
  {
    name: 'NestJS, Express platform',
    httpErrors: true,
    start: (spec) => startNest(spec, new ExpressAdapter()),
  },
  {
    name: 'NestJS, Fastify platform',
    httpErrors: true,
    start: (spec) => startNest(spec, new FastifyAdapter()),
  },
];

/** Every adapter, and again with the app's own error page where its framework has one. */
export const SETUPS: readonly (Adapter & { readonly label: string; readonly ownPage: boolean; readonly httpErrors: boolean })[] = ADAPTERS.flatMap((adapter) => [
  { ...adapter, label: adapter.name, ownPage: false, httpErrors: adapter.httpErrors === true },
  ...(adapter.ownPage ? [{ ...adapter, label: `${adapter.name}, with the app's own error page`, ownPage: true, httpErrors: adapter.httpErrors === true }] : []),
]);

// ---- the cases ----

/** A running setup, as the cases see it. */
export interface Running {
  readonly url: string;
  readonly ownPage: boolean;
  /** The framework answers an http-errors error with its status (Adapter.httpErrors). */
  readonly httpErrors: boolean;
  readonly get: (path: string, headers: Record<string, string>, method?: string) => Promise<Response>;
  /** What onError was handed. */
  readonly heard: readonly unknown[];
  /** What the setup's log was given (console.error, and the framework's own logger: SiteSpec.log), a list of arguments per call. */
  readonly logged: () => readonly (readonly unknown[])[];
  /** The same setup made again (its routes, its own page or not) with other options: the site, which the case closes, or what its set-up failed with. */
  readonly start: (options: Record<string, unknown>) => Promise<Site>;
}

export interface Case {
  readonly name: string;
  readonly run: (site: Running) => Promise<void>;
}

/** The Vary tokens of a response, lower case. */
export const varyOf = (res: Response): string[] => (res.headers.get('vary') ?? '').split(',').map((t) => t.trim().toLowerCase()).filter(Boolean);

/** A browser's error page: Accept in its Vary, once, beside what the app set. */
function expectVaried(res: Response, ...also: string[]): void {
  expect(varyOf(res).sort()).toEqual(['accept', ...also].sort());
}

/**
 * An agent's answer that keeps the whole contract (content type, body, Retry-After, violations), with
 * the app's own status: AgentFriendly never renumbers an app's response (a sold-out 404 page is
 * out_of_stock, still 404).
 */
async function expectContract(res: Response, code?: string): Promise<void> {
  await expect(res).toSatisfyAgentContract(code === undefined ? { status: 'any' } : { code: code as never, status: 'any' });
}

/** True when every member `original` has is in `after` with the same value, at any depth. */
export function keeps(original: unknown, after: unknown): boolean {
  if (original === null || typeof original !== 'object') return Object.is(original, after);
  if (Array.isArray(original)) return Array.isArray(after) && after.length === original.length && original.every((item, i) => keeps(item, after[i]));
  if (after === null || typeof after !== 'object' || Array.isArray(after)) return false;
  return Object.entries(original).every(([key, value]) => Object.hasOwn(after, key) && keeps(value, (after as Record<string, unknown>)[key]));
}

/**
 * An agent's answer to an app's own error response, with the app's status: in this contract
 * (envelope, problem details, Markdown) for a page, or, for the app's own JSON error (`original`, as
 * a browser gets it), that JSON with every member kept and what the contract needs added. Either way
 * fromResponse reads it as `expected`.
 */
async function expectAgentAnswer(res: Response, status: number, expected: Record<string, unknown>, original?: Response): Promise<void> {
  expect(res.status).toBe(status);
  const text = await res.clone().text();
  expect(fromResponse(res.status, Object.fromEntries(res.headers), text).error).toMatchObject(expected);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const own = original !== undefined && /json/.test(original.headers.get('content-type') ?? '') && /json/.test(res.headers.get('content-type') ?? '');
  if (validateEnvelope(json).valid || validateProblem(json).valid || json === undefined || !own) return expectContract(res, expected.code as string | undefined);
  // The app's own media type (a framework may add a charset of its own to what it sends).
  expect(res.headers.get('content-type')?.split(';')[0]).toBe(original!.headers.get('content-type')?.split(';')[0]);
  expect(keeps(await original!.json(), json), `${text} keeps the app's own members`).toBe(true);
}

/** Everything a log entry shows: an Error's stack, an object's values, anything else as text. */
const shown = (value: unknown): string =>
  value instanceof Error ? (value.stack ?? value.message) : typeof value === 'object' && value !== null ? Object.values(value).map(shown).join(' ') : String(value);

/** Lets what a framework logs after its answer (Express's final handler logs on setImmediate) be logged. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 10));

/** What a case asks a site started for it, closed after. */
async function using(site: Site, use: (get: (path: string, headers: Record<string, string>) => Promise<Response>) => Promise<void>): Promise<void> {
  try {
    await use((path, headers) => fetch(`${site.url}${path}`, { headers }));
  } finally {
    await site.close();
  }
}

/** A stack trace, in any of the shapes a page could show one. */
const STACK = /\n\s*at |node_modules|\.[cm]?[jt]s:\d+|AgentError|TypeError/;

/** The route's AgentError, built again to compare with. */
const thrownAt = (path: string): AgentError => (ROUTES.find((r) => r.path === path) as ThrowRoute).error() as AgentError;

/** A browser's page for a thrown AgentError: its status, Retry-After and Vary, HTML, the app's own page or the catalog's, and no stack. */
async function expectPage(res: Response, path: string, ownPage: boolean, method = 'GET'): Promise<void> {
  const error = thrownAt(path);
  expect(res.status).toBe(CODES[error.code as keyof typeof CODES].status);
  expect(res.headers.get('retry-after')).toBe(error.retryAfter === null ? null : String(error.retryAfter));
  expectVaried(res);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const text = await res.text();
  if (method === 'HEAD') return void expect(text).toBe('');
  expect(text).not.toMatch(STACK);
  if (ownPage) return void expect(text).toBe(APP_PAGE);
  const entry = CODES[error.code as keyof typeof CODES];
  expect(text).toContain(`<title>${escapeHtml(entry.title)}</title>`);
  expect(text).toContain(escapeHtml(entry.advice));
  expect(text).toContain(`href="/problems/${error.code}"`);
  if (error.message !== entry.title) expect(text).toContain(escapeHtml(error.message));
  if (error.field !== null) expect(text).toContain(`<code>${error.field}</code>`);
}

/** The app's page for `path`, as it wrote it, Accept merged into its Vary. */
async function expectAppPage(res: Response, path: string): Promise<void> {
  const route = ROUTES.find((r) => r.path === path) as PageRoute | StreamRoute;
  expect(res.status).toBe(route.status);
  expect(res.headers.get('content-type')?.split(';')[0]).toBe(route.contentType);
  expectVaried(res, ...(route.kind === 'page' && route.headers?.vary ? [route.headers.vary.toLowerCase()] : []));
  expect(await res.text()).toBe(route.kind === 'page' ? route.body : route.chunks.join(''));
}

export const CASES: readonly Case[] = [
  {
    name: 'a success reaches an agent exactly as a browser, and gets no Vary',
    async run({ get }) {
      await expectSuccessUntouched(get);
      for (const headers of [AGENT, BROWSER]) expect((await get('/ok', headers)).headers.get('vary')).toBeNull();
    },
  },
  {
    name: 'a streamed success reaches an agent and a browser whole',
    async run({ get }) {
      const route = ROUTES.find((r) => r.path === '/stream') as StreamRoute;
      for (const headers of [AGENT, BROWSER]) expect(await (await get('/stream', headers)).text()).toBe(route.chunks.join(''));
    },
  },
  {
    name: "the framework's own 404: not_found for an agent (its page converted, its JSON kept with the contract added, problem details on the site's origin when asked), its own page for a browser, with Vary: Accept",
    async run({ url, get }) {
      // The framework's own 404 page is converted; its own JSON 404 (Fastify's, Nest's) keeps its members, the contract added.
      await expectAgentAnswer(await get('/nowhere', AGENT), 404, { code: 'not_found', retry: 'no' }, await get('/nowhere', BROWSER));
      await expectProblemOnOrigin(get, url);
      for (const headers of [BROWSER, ANY]) {
        const browser = await get('/nowhere', headers);
        expect(browser.status).toBe(404);
        expectVaried(browser);
      }
    },
  },
  {
    name: 'an agent that ranks Markdown first gets its errors as Markdown, front matter and prose, that reads back to the envelope; a browser still gets the page',
    async run({ get }) {
      for (const [path, code] of [['/nowhere', 'not_found'], ['/page-503', 'temporarily_unavailable'], ['/sold-out', 'out_of_stock']] as const) {
        const agent = await get(path, MARKDOWN);
        expect(agent.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        expectVaried(agent);
        const text = await agent.clone().text();
        expect(text).toMatch(/^---\n[^]*\n---\n\n# /);
        expect(text).toContain('## What you should do');
        await expectContract(agent, code);
        const json = await get(path, AGENT);
        const headersOf = (res: Response) => Object.fromEntries(res.headers);
        expect(fromResponse(agent.status, headersOf(agent), text)).toEqual(fromResponse(json.status, headersOf(json), await json.text()));
      }
      const browser = await get('/nowhere', BROWSER);
      expect(browser.headers.get('content-type') ?? '').not.toMatch(/markdown/);
    },
  },
  {
    name: "a 402 that says what to pay (an app's x402 answer, a thrown payment_required): the agent gets the payment, in PAYMENT-REQUIRED always and in every body this package renders (the app's own JSON keeps its members, the contract added); a browser, the header too",
    async run({ get }) {
      for (const path of ['/pay-page', '/pay-thrown']) {
        for (const headers of [AGENT, PROBLEM, MARKDOWN]) {
          const agent = await get(path, headers);
          const read = fromResponse(agent.status, Object.fromEntries(agent.headers), await agent.clone().text());
          expect(read.error).toMatchObject({ code: 'payment_required', retry: 'pay', payment: PAYMENT });
          // The header alone says it, as @x402/fetch reads a version 2 price.
          expect(fromResponse(402, { 'payment-required': agent.headers.get('payment-required') ?? '' }, '').error.payment, `${path} ${headers.accept}`).toEqual(PAYMENT);
          await expectAgentAnswer(agent, 402, { code: 'payment_required', retry: 'pay' }, path === '/pay-page' ? await get(path, BROWSER) : undefined);
        }
        const browser = await get(path, BROWSER);
        expect([browser.status, fromResponse(402, { 'payment-required': browser.headers.get('payment-required') ?? '' }, '').error.payment]).toEqual([402, PAYMENT]);
      }
    },
  },
  {
    name: "an app's HTML error page: converted for an agent, with the app's status; the same bytes for a browser, Accept merged into its Vary",
    async run({ get }) {
      await expectContract(await expectSoldOut(get), 'out_of_stock');
      for (const headers of [BROWSER, ANY]) await expectAppPage(await get('/sold-out', headers), '/sold-out');
    },
  },
  {
    name: `a 503 page that names no delay: temporarily_unavailable, waiting the default ${DEFAULT_RETRY_AFTER} s in the body and in Retry-After`,
    async run({ get }) {
      const agent = await get('/page-503', AGENT);
      expect(agent.headers.get('retry-after')).toBe(String(DEFAULT_RETRY_AFTER));
      await expectContract(agent, 'temporarily_unavailable');
      await expectEnvelope(agent, 503, { code: 'temporarily_unavailable', retry: 'after_delay', retry_after: DEFAULT_RETRY_AFTER, message: 'Down for maintenance' });
      const problem = await get('/page-503', PROBLEM);
      await expectContract(problem, 'temporarily_unavailable');
      expect(await problem.json()).toMatchObject({ retry_after_seconds: DEFAULT_RETRY_AFTER });
      await expectAppPage(await get('/page-503', BROWSER), '/page-503');
    },
  },
  {
    name: "a 429 page's own Retry-After is the delay",
    async run({ get }) {
      const agent = await get('/page-429', AGENT);
      expect(agent.headers.get('retry-after')).toBe('12');
      await expectContract(agent, 'rate_limited');
      await expectEnvelope(agent, 429, { code: 'rate_limited', retry_after: 12 });
      const browser = await get('/page-429', BROWSER);
      expect(browser.headers.get('retry-after')).toBe('12');
      await expectAppPage(browser, '/page-429');
    },
  },
  {
    name: "an app's own JSON error keeps its status and every member for an agent, the contract added in its own format (problem details when asked by name); a plain-text page is converted",
    async run({ get }) {
      const json = await get('/json-409', AGENT);
      expect([json.status, await json.clone().json()]).toEqual([409, { message: 'Order changed', code: 'conflict', retry: 'refetch' }]);
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expectVaried(json);
      await expectAgentAnswer(json, 409, { code: 'conflict', message: 'Order changed', retry: 'refetch' }, await get('/json-409', BROWSER));
      await expectContract(await get('/json-409', PROBLEM), 'conflict');
      for (const headers of [AGENT, PROBLEM]) await expectContract(await get('/text-403', headers), 'not_allowed');
      await expectEnvelope(await get('/text-403', AGENT), 403, { code: 'not_allowed', message: 'Members only' });
      for (const path of ['/json-409', '/text-403']) await expectAppPage(await get(path, BROWSER), path);
    },
  },
  {
    name: 'a 400 page that names no field: invalid_input, valid as received (validateEnvelope with { received: true }), since no field can be named',
    async run({ get }) {
      const res = await get('/page-400', AGENT);
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'invalid_input', field: null, retry: 'fix_input' });
      expect(validateEnvelope(body, { received: true }).errors).toEqual([]);
      await expectAppPage(await get('/page-400', BROWSER), '/page-400');
    },
  },
  {
    name: "an error that does not wait loses the app's stray Retry-After for an agent, so the answer keeps the contract; a browser's page keeps it",
    async run({ get }) {
      const agent = await get('/stray', AGENT);
      expect(agent.headers.get('retry-after')).toBeNull();
      await expectContract(agent, 'not_found');
      const browser = await get('/stray', BROWSER);
      expect(browser.headers.get('retry-after')).toBe('5');
      await expectAppPage(browser, '/stray');
    },
  },
  {
    name: 'a body already in this contract goes out as the app sent it',
    async run({ get }) {
      const agent = await get('/already', AGENT);
      await expectContract(agent, 'out_of_stock');
      expect([agent.status, await agent.text()]).toEqual([409, ALREADY]);
      await expectAppPage(await get('/already', BROWSER), '/already');
    },
  },
  {
    name: 'a streamed error page: converted from what was read for an agent, streamed whole to a browser',
    async run({ get }) {
      const agent = await get('/stream-error', AGENT);
      await expectContract(agent, 'internal');
      await expectEnvelope(agent, 500, { code: 'internal', message: 'Broken stream' });
      await expectAppPage(await get('/stream-error', BROWSER), '/stream-error');
    },
  },
  {
    name: 'a thrown AgentError (a wait, a fix_input with its field, a no) reaches an agent as that error, in the contract',
    async run({ get }) {
      await expectThrownAgentErrors(get);
      for (const [path, code] of [['/slow-down', 'rate_limited'], ['/fix', 'missing_field'], ['/gone', 'out_of_stock']] as const) {
        for (const headers of [AGENT, PROBLEM, SIGNED]) await expectContract(await get(path, headers), code);
      }
      expect((await (await get('/gone', AGENT)).json()).error.message).toBe(GONE_MESSAGE);
    },
  },
  {
    name: "a thrown AgentError reaches a browser with its status, Retry-After and Vary: Accept, as the app's own error page or the catalog's, escaped and without a stack",
    async run({ get, ownPage }) {
      for (const path of ['/slow-down', '/fix', '/gone']) for (const headers of [BROWSER, ANY]) await expectPage(await get(path, headers), path, ownPage);
      if (!ownPage) expect(await (await get('/gone', BROWSER)).text()).not.toContain('<b>');
    },
  },
  {
    name: 'a thrown error that is not an AgentError: internal for an agent, handed to onError, its text shown to no one',
    async run({ get, heard }) {
      const before = heard.length;
      for (const headers of [AGENT, PROBLEM, SIGNED]) {
        const res = await get('/boom', headers);
        await expectContract(res, 'internal');
        await expectNoLeak(res);
      }
      for (const headers of [BROWSER, ANY]) expect(await expectNoLeak(await get('/boom', headers))).not.toMatch(STACK);
      // Once a request, an agent's and a browser's alike.
      expect(heard.slice(before).filter((e) => e instanceof TypeError && e.message === 'secret db password')).toHaveLength(5);
    },
  },
  {
    name: "a thrown client error of the framework's own kind (http-errors: status 404, exposed) keeps its status for a browser and an agent (not_found), with Vary: Accept, and is no failure: neither onError nor the log hears of it; the app's own error page answers it its own way (APP_PAGE, 500); where the framework has no such kind, it is a failure like any thrown error",
    async run({ get, heard, logged, httpErrors, ownPage }) {
      const before = [heard.length, logged().length];
      const kept = httpErrors && !ownPage;
      // What a browser gets, first: the app's own answer, which an agent's keeps the members of where it is JSON.
      const browsers = [await get('/client-error', BROWSER), await get('/client-error', ANY)];
      for (const headers of [AGENT, PROBLEM, MARKDOWN]) {
        const agent = await get('/client-error', headers);
        await expectAgentAnswer(agent, kept ? 404 : 500, { code: kept ? 'not_found' : 'internal' }, headers === AGENT ? browsers[0]!.clone() : undefined);
        expectVaried(agent);
      }
      for (const [i, headers] of [BROWSER, ANY].entries()) {
        const browser = browsers[i]!;
        expect(browser.status, headers.accept).toBe(kept ? 404 : 500);
        expectVaried(browser);
        const text = await browser.text();
        expect(text).not.toMatch(STACK);
        if (ownPage) expect(text).toBe(APP_PAGE);
      }
      await settle();
      if (!httpErrors) return void expect(heard.slice(before[0]).filter((e) => (e as Error).message === CLIENT_ERROR)).toHaveLength(5);
      expect([heard.length, logged().length]).toEqual(before);
    },
  },
  {
    name: "a thrown Error reaches onError exactly once, for a browser and for an agent alike, as itself",
    async run({ get, heard }) {
      for (const headers of [AGENT, BROWSER, PROBLEM, ANY]) {
        const before = heard.length;
        await (await get('/bug', headers)).arrayBuffer();
        await settle();
        expect(heard.slice(before)).toEqual([expect.objectContaining({ message: REAL_BUG })]);
      }
    },
  },
  {
    name: "without onError, a thrown Error goes to the framework's own log exactly once, with its message and stack, for a browser and for an agent; an AgentError to no log",
    async run({ start, logged }) {
      await using(await start({}), async (get) => {
        for (const headers of [AGENT, BROWSER]) {
          const before = logged().length;
          await (await get('/bug', headers)).arrayBuffer();
          await settle();
          const entries = logged().slice(before);
          expect(entries).toHaveLength(1);
          expect(shown(entries[0])).toContain(REAL_BUG);
          expect(shown(entries[0])).toMatch(/\n\s*at /);
        }
        const before = logged().length;
        for (const path of ['/slow-down', '/fix', '/gone']) for (const headers of [AGENT, BROWSER]) await (await get(path, headers)).arrayBuffer();
        await settle();
        expect(logged().slice(before)).toEqual([]);
      });
    },
  },
  {
    name: "a misconfiguration fails at set-up, never on a request: a TypeError naming the function called, the option, what it takes and the value received (onError: 'log', base: 'not a url', an unknown retryAfter)",
    async run({ start }) {
      const refusals: [Record<string, unknown>, RegExp][] = [
        [{ onError: 'log' }, /^\w[\w.]*: onError must be a function \(got "log"\)$/],
        [{ base: 'not a url' }, /^\w[\w.]*: base must be an absolute http or https URL\b.* \(got "not a url"\)$/],
        [{ retryAfter: '30' }, /^\w[\w.]*: retryAfter must be a whole, non-negative number of seconds\b.* \(got "30"\)$/],
        [{ retryAfter: { seconds: 30 } }, /^\w[\w.]*: retryAfter must be .* \(got {"seconds":30}\)$/],
      ];
      for (const [options, message] of refusals) {
        const outcome = await start(options).then(
          (site) => site.close().then(() => 'started'),
          (error: unknown) => error,
        );
        expect(outcome).toBeInstanceOf(TypeError);
        expect((outcome as Error).message).toMatch(message);
      }
    },
  },
  {
    name: 'a thrown AgentError is an expected outcome: neither onError nor the log hears of it',
    async run({ get, heard, logged }) {
      for (const path of ['/slow-down', '/fix', '/gone']) for (const headers of [AGENT, PROBLEM, BROWSER]) await (await get(path, headers)).arrayBuffer();
      expect(heard.filter(isAgentError)).toEqual([]);
      expect(logged().filter((args) => args.some((a) => isAgentError(a) || String(a).includes('AgentError')))).toEqual([]);
    },
  },
  {
    name: "HEAD gets headers only: an agent's converted and thrown errors, a browser's AgentError page, a documentation page",
    async run({ get, ownPage }) {
      await expectHeadersOnly(await get('/nowhere', AGENT, 'HEAD'), 404);
      await expectHeadersOnly(await get('/boom', AGENT, 'HEAD'), 500);
      const wait = await get('/slow-down', AGENT, 'HEAD');
      expect(wait.headers.get('retry-after')).toBe('30');
      await expectHeadersOnly(wait, 429);
      await expectPage(await get('/slow-down', BROWSER, 'HEAD'), '/slow-down', ownPage, 'HEAD');
      const docs = await get('/problems/rate_limited', BROWSER, 'HEAD');
      expect([docs.status, docs.headers.get('content-type'), await docs.text()]).toEqual([200, 'text/html; charset=utf-8', '']);
    },
  },
  {
    name: "the documentation pages: HTML with the site's own origin in its example for a browser, the catalog entry for an agent, both with Vary: Accept; an unknown code is the app's 404",
    async run({ url, get }) {
      await expectDocsPages(get);
      const html = await get('/problems/rate_limited', BROWSER);
      expectVaried(html);
      const page = await html.text();
      expect(page).toContain(`&quot;type&quot;: &quot;${url}/problems/rate_limited&quot;`);
      expect(page).not.toContain('api.example.com');
      const json = await get('/problems/rate_limited', AGENT);
      expectVaried(json);
      const entry = await json.text();
      expect(JSON.parse(entry)).toEqual({ code: 'rate_limited', ...CODES.rate_limited });
      expect(entry).not.toContain('api.example.com');
      expectVaried(await get('/problems/not_a_code', BROWSER));
    },
  },
];
