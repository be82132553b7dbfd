// AgentFriendly for NestJS 12, on its Express and its Fastify platform: a global exception filter
// that renders what controllers throw (AgentErrors, Nest's HttpExceptions, ValidationPipe failures,
// anything else), and a middleware that converts the pages the app writes itself. The filter replies
// through Nest's HTTP adapter, so neither platform is loaded here. The repository compiles without
// experimentalDecorators, so Nest's decorators are applied as the functions they are.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Catch, Inject, Module, type ArgumentsHost, type DynamicModule, type ExceptionFilter, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { UNKNOWN_STATUS } from '../core/catalog.js';
import { isAgentError } from './agent-error.js';
import {
  checkOptions,
  convertAppError,
  docsResponse,
  ENTITY_HEADERS,
  isAgentRequest,
  originOf,
  pageOf,
  renderThrown,
  varyAccept,
  type AgentFriendlyOptions,
  type Rendered,
} from './friendly.js';

/** The text of Nest's own 500 body, as its BaseExceptionFilter sends it. */
const NEST_UNKNOWN = 'Internal server error';

/** What the filter needs of a request on either platform: Express's and Fastify's both have these. */
interface PlatformRequest {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly protocol?: string;
}

/** What the filter needs of a response on either platform: an Express response or a Fastify reply. */
interface PlatformResponse {
  getHeader(name: string): unknown;
  removeHeader(name: string): unknown;
  /** A Fastify reply's node response: a reply is sent through reply.send, which writes its headers. */
  readonly raw?: unknown;
}

/** An HttpException of Nest's, read by its shape, so that this module loads nothing of Nest's at run time for it. */
interface HttpExceptionLike {
  getStatus(): number;
  getResponse(): string | object;
}

function isHttpException(error: unknown): error is HttpExceptionLike {
  return (
    error instanceof Error &&
    typeof (error as Partial<HttpExceptionLike>).getStatus === 'function' &&
    typeof (error as Partial<HttpExceptionLike>).getResponse === 'function'
  );
}

/** A client error of the platform's own (Fastify's body too large, an http-errors error): its status, else null. */
function clientStatus(error: unknown): number | null {
  if (error === null || typeof error !== 'object') return null;
  const { statusCode, expose, code } = error as { statusCode?: unknown; expose?: unknown; code?: unknown };
  if (typeof statusCode !== 'number' || statusCode < 400 || statusCode > 499) return null;
  return typeof expose === 'boolean' || typeof code === 'string' ? statusCode : null;
}

/** Nest's own body for an HttpException, as its BaseExceptionFilter sends it: the exception's response object, or one around its string. */
function nestBody(error: HttpExceptionLike): object {
  const response = error.getResponse();
  return typeof response === 'object' && response !== null ? response : { statusCode: error.getStatus(), message: response };
}

/** What the filter answers on: Nest's HTTP adapter, the platform's request and response, and the base of type URIs. */
interface Reply {
  readonly adapter: HttpAdapterHost['httpAdapter'];
  readonly request: PlatformRequest;
  readonly response: PlatformResponse;
  readonly base: string;
}

const NO_HEADERS: ReadonlySet<string> = new Set();

/** Sends a rendered answer in place of whatever the app had begun, without the app's headers of `drop`, through Nest's HTTP adapter. */
function send({ adapter, response }: Reply, { status, headers, body }: Rendered, drop: ReadonlySet<string>): void {
  for (const name of drop) if (!Object.hasOwn(headers, name) && response.getHeader(name) !== undefined) response.removeHeader(name);
  for (const [name, value] of Object.entries(headers)) adapter.setHeader(response, name, value);
  adapter.setHeader(response, 'content-length', String(Buffer.byteLength(body)));
  // A Fastify reply sends a Buffer as it is (a string would get a charset added to its type); on
  // Express, whose send adds one either way, the body goes out through the node response's own end.
  if (response.raw !== undefined) return void adapter.reply(response, Buffer.from(body), status);
  adapter.status(response, status);
  adapter.end(response, body);
}

/**
 * The global exception filter: `@Catch()` of everything. Agents get this contract for every
 * exception: a thrown AgentError as it is; an HttpException (a ValidationPipe failure among them)
 * read through fromResponse, as the catalog code for it; anything else the unknown-code error, with
 * a generic message, the exception handed to `onError`. A browser gets Nest's own JSON for an
 * HttpException, the catalog's page for an AgentError, and Nest's generic 500 for anything else.
 * Registered by AgentErrorsModule.forRoot, or `app.useGlobalFilters(new AgentErrorsFilter(options, app.get(HttpAdapterHost)))`.
 */
export class AgentErrorsFilter implements ExceptionFilter {
  constructor(
    private readonly options: AgentFriendlyOptions = {},
    private readonly adapterHost?: HttpAdapterHost,
  ) {
    checkOptions(options);
  }

  catch(exception: unknown, host: ArgumentsHost): void | Promise<void> {
    // Only HTTP requests have a page to answer; anything else (a microservice, a gateway) is rethrown to its own handling.
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<PlatformRequest>();
    const response = http.getResponse<PlatformResponse>();
    const adapter = this.adapterHost?.httpAdapter;
    if (adapter === undefined) throw new TypeError('AgentErrorsFilter: Nest HttpAdapterHost is required (use AgentErrorsModule.forRoot, or pass app.get(HttpAdapterHost))');
    const { options } = this;
    if (adapter.isHeadersSent(response)) {
      // Too late to answer: the response is cut off; the site still hears of the error.
      if (!isAgentError(exception)) options.onError?.(exception);
      return void adapter.end(response);
    }
    const reply: Reply = { adapter, request, response, base: options.base ?? originOf(request.headers, request.protocol === 'https') };
    // The documentation pages are no route of the app's: Nest's 404 for one of their paths serves the page instead.
    const path = String(adapter.getRequestUrl?.(request) ?? '').split('?', 1)[0]!;
    if (options.docs === false || !path.includes('/problems/') || !isHttpException(exception) || exception.getStatus() !== 404) return this.answer(exception, reply);
    return docsResponse(String(adapter.getRequestMethod?.(request) ?? 'GET'), path, request.headers, options, reply.base).then((page) =>
      page === null ? this.answer(exception, reply) : send(reply, page, NO_HEADERS),
    );
  }

  /** Answers an exception: in this contract for an agent; as Nest would, or as the catalog's page of an AgentError, for a browser. */
  private answer(exception: unknown, reply: Reply): void | Promise<void> {
    const { options } = this;
    const { adapter, request, response, base } = reply;
    const agent = isAgentRequest(request);
    const accept = [request.headers.accept].flat()[0] ?? null;
    /** Sends Nest's own JSON body, as its BaseExceptionFilter would, Accept merged into its Vary. */
    const sendNest = (body: object, status: number): void => {
      adapter.setHeader(response, 'vary', varyAccept(response.getHeader('vary')));
      adapter.reply(response, body, status);
    };

    if (isAgentError(exception)) {
      // An expected outcome, not a failure: nothing logs it and onError does not hear of it.
      if (agent) return send(reply, exception.render(accept, base), ENTITY_HEADERS);
      const page = pageOf(exception, options, response.getHeader('vary'));
      return page.body.then((body) => send(reply, { ...page, body }, ENTITY_HEADERS));
    }
    const client = isHttpException(exception) ? null : clientStatus(exception);
    if (isHttpException(exception) || client !== null) {
      const status = isHttpException(exception) ? exception.getStatus() : client!;
      const body = isHttpException(exception) ? nestBody(exception) : { statusCode: status, message: (exception as Error).message };
      // A server error an HttpException names is a failure all the same: the site hears of it.
      if (status >= 500) options.onError?.(exception);
      if (!agent) return sendNest(body, status);
      // Nest's own JSON, read as any app's error body is: a ValidationPipe's list of sentences names the fields.
      const text = JSON.stringify(body);
      const converted = convertAppError({ status, headers: { 'content-type': 'application/json' }, body: text }, accept, base, options.retryAfter);
      if (converted === null) return send(reply, { status, headers: { 'content-type': 'application/json', vary: 'Accept' }, body: text }, ENTITY_HEADERS);
      return send(reply, { status: converted.status, headers: converted.set, body: converted.body }, converted.drop);
    }
    if (agent) return send(reply, renderThrown(exception, accept, base, options), ENTITY_HEADERS);
    options.onError?.(exception);
    // Nest's own 500 body, which never shows the exception's message.
    sendNest({ statusCode: UNKNOWN_STATUS, message: NEST_UNKNOWN }, UNKNOWN_STATUS);
  }
}
Catch()(AgentErrorsFilter);

/**
 * The middleware for the pages an app writes itself (a controller with `@Res()`), on either platform:
 * Nest hands middleware the node request and response on both. An agent's error page is converted
 * at its end; a browser's gets Accept in its Vary. The filter serves the documentation pages, which no route of the app's matches.
 */
export function agentErrorsMiddleware(options: AgentFriendlyOptions = {}) {
  checkOptions(options);
  // node.ts is loaded with the first request rather than with the app: it keeps the filter, which
  // every Nest app of the site loads, within its size budget.
  let capture: typeof import('./node.js').captureErrors | undefined;
  return function agentErrors(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void {
    if (capture !== undefined) {
      capture(req, res, options, false);
      return next();
    }
    import('./node.js').then((node) => {
      capture = node.captureErrors;
      capture(req, res, options, false);
      next();
    }, next);
  };
}

/** The token of the module's options, which its middleware is made with. */
const OPTIONS = Symbol('AgentErrorsModule.options');

/**
 * The module that sets AgentFriendly up in a Nest app: AgentErrorsFilter as the app's global filter
 * (APP_FILTER), and agentErrorsMiddleware for every route.
 * @example Module({ imports: [AgentErrorsModule.forRoot({ onError: (e) => logger.error(e) })] })(AppModule);
 */
export class AgentErrorsModule implements NestModule {
  constructor(private readonly options: AgentFriendlyOptions = {}) {}

  static forRoot(options: AgentFriendlyOptions = {}): DynamicModule {
    checkOptions(options);
    return {
      module: AgentErrorsModule,
      providers: [
        { provide: OPTIONS, useValue: options },
        { provide: APP_FILTER, useFactory: (host: HttpAdapterHost) => new AgentErrorsFilter(options, host), inject: [HttpAdapterHost] },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(agentErrorsMiddleware(this.options)).forRoutes('{*path}');
  }
}
Module({ providers: [{ provide: OPTIONS, useValue: {} }] })(AgentErrorsModule);
Inject(OPTIONS)(AgentErrorsModule, undefined, 0);
