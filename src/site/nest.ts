// AgentFriendly for NestJS 12, on its Express and its Fastify platform: a global exception filter
// that renders what controllers throw (AgentErrors, Nest's HttpExceptions, ValidationPipe failures,
// anything else), and a middleware that converts the pages the app writes itself. The filter replies
// through Nest's HTTP adapter, so neither platform is loaded here. The repository compiles without
// experimentalDecorators, so Nest's decorators are applied as the functions they are.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Catch, Inject, IntrinsicException, Logger, Module, type ArgumentsHost, type DynamicModule, type ExceptionFilter, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER, HttpAdapterHost } from '@nestjs/core';
import { UNKNOWN_STATUS } from '../core/catalog.js';
import { baseOf, convertAppError, renderProblemPage, ENTITY_HEADERS, isAgentRequest, varyAccept, writeHeaders, type AgentFriendlyOptions, type Rendered } from './friendly.js';
import { answer, checkOptions, mayBeDocs, type Answers } from './policy.js';

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

/** The content type Nest sends its own JSON bodies with, on Express and on Fastify. */
const NEST_JSON = 'application/json; charset=utf-8';

/** Sends a rendered answer in place of whatever the app had begun, without the app's headers of `drop`, through Nest's HTTP adapter. */
function send({ adapter, response }: Reply, { status, headers, body }: Rendered, drop: ReadonlySet<string>): void {
  writeHeaders(headers, body, drop, (name, value) => adapter.setHeader(response, name, value), (name) => response.getHeader(name) !== undefined && response.removeHeader(name));
  // A Fastify reply sends a Buffer as it is (a string would get a charset added to its type); on
  // Express, whose send adds one either way, the body goes out through the node response's own end.
  if (response.raw !== undefined) return void adapter.reply(response, Buffer.from(body), status);
  adapter.status(response, status);
  adapter.end(response, body);
}

/** Nest's own log of a failure, as its BaseExceptionFilter writes it: its Logger, in the context ExceptionsHandler, none for an IntrinsicException. */
const LOGGER = new Logger('ExceptionsHandler');

/**
 * The global exception filter: `@Catch()` of everything. Agents get this contract for every
 * exception: a thrown AgentError as it is; an HttpException (a ValidationPipe failure among them)
 * read through fromResponse, as the catalog code for it; anything else the unknown-code error, with
 * a generic message. A browser gets Nest's own JSON for an HttpException, the catalog's page for an
 * AgentError, and Nest's generic 500 for anything else. Every exception but an AgentError and a
 * client error (an HttpException or a platform's error of 4xx) goes to `onError`, else to Nest's
 * Logger, as Nest's BaseExceptionFilter logs it.
 * Registered by AgentFriendlyModule.forRoot, or `app.useGlobalFilters(new AgentFriendlyFilter(options, app.get(HttpAdapterHost)))`:
 * Nest gives a filter made with `new` no HttpAdapterHost of its own, so one made without it is refused.
 */
export class AgentFriendlyFilter implements ExceptionFilter {
  constructor(
    private readonly options: AgentFriendlyOptions = {},
    private readonly adapterHost?: HttpAdapterHost,
  ) {
    checkOptions('AgentFriendlyFilter', options);
    if (typeof adapterHost?.httpAdapter !== 'object') {
      throw new TypeError('AgentFriendlyFilter: needs the app\'s HttpAdapterHost: new AgentFriendlyFilter(options, app.get(HttpAdapterHost)), or import AgentFriendlyModule.forRoot(options)');
    }
  }

  catch(exception: unknown, host: ArgumentsHost): void | Promise<void> {
    // Only HTTP requests have a page to answer; anything else (a microservice, a gateway) is rethrown to its own handling.
    if (host.getType() !== 'http') throw exception;
    const http = host.switchToHttp();
    const request = http.getRequest<PlatformRequest>();
    const response = http.getResponse<PlatformResponse>();
    const adapter = this.adapterHost!.httpAdapter;
    const { options } = this;
    const reply: Reply = { adapter, request, response, base: baseOf(options, request.headers.host, request.protocol === 'https') };
    // The documentation pages are no route of the app's: Nest's 404 for one of their paths serves the page instead.
    const path = String(adapter.getRequestUrl?.(request) ?? '').split('?', 1)[0]!;
    if (!mayBeDocs(options, path) || !isHttpException(exception) || exception.getStatus() !== 404 || adapter.isHeadersSent(response)) return this.answer(exception, reply);
    return renderProblemPage(String(adapter.getRequestMethod?.(request) ?? 'GET'), path, request.headers, options, reply.base).then((page) =>
      page === null ? this.answer(exception, reply) : send(reply, page, NO_HEADERS),
    );
  }

  /** Answers an exception (see answer): in this contract for an agent; as Nest would, or as the catalog's page of an AgentError, for a browser. */
  private answer(exception: unknown, reply: Reply): void | Promise<void> {
    const { options } = this;
    const { adapter, request, response, base } = reply;
    const agent = isAgentRequest(request, options);
    const accept = [request.headers.accept].flat()[0] ?? null;
    /** Sends Nest's own JSON body, as its BaseExceptionFilter would, Accept merged into its Vary. */
    const sendNest = (body: object, status: number): void => {
      adapter.setHeader(response, 'vary', varyAccept(response.getHeader('vary')));
      adapter.reply(response, body, status);
    };
    const http = isHttpException(exception);
    const status = http ? exception.getStatus() : clientStatus(exception);
    const a: Answers<void> = {
      agent,
      accept,
      base,
      log: (error) => error instanceof IntrinsicException || LOGGER.error(error),
      sent: adapter.isHeadersSent(response),
      cut: () => adapter.end(response),
      send: (rendered) => send(reply, rendered, ENTITY_HEADERS),
      vary: response.getHeader('vary'),
      status,
      own: () => {
        const body = http ? nestBody(exception) : { statusCode: status, message: (exception as Error).message };
        if (!agent) return sendNest(body, status!);
        // Nest's own JSON, read as any app's error body is: a ValidationPipe's list of sentences names the fields.
        const converted = convertAppError({ status: status!, headers: { 'content-type': NEST_JSON }, body: JSON.stringify(body) }, accept, base, options);
        if (converted === null) return sendNest(body, status!);
        // Nest's own JSON with the contract added goes out as Nest sends its own; problem details or Markdown as rendered.
        if (converted.set['content-type'] !== NEST_JSON) return send(reply, { status: converted.status, headers: converted.set, body: converted.body }, converted.drop);
        if (converted.set['retry-after'] !== undefined) adapter.setHeader(response, 'retry-after', converted.set['retry-after']);
        sendNest(JSON.parse(converted.body) as object, status!);
      },
      // Nest's own 500 body, which never shows the exception's message.
      failed: () => sendNest({ statusCode: UNKNOWN_STATUS, message: NEST_UNKNOWN }, UNKNOWN_STATUS),
    };
    return answer(exception, a, options);
  }
}
Catch()(AgentFriendlyFilter);

/**
 * The middleware for the pages an app writes itself (a controller with `@Res()`), on either platform:
 * Nest hands middleware the node request and response on both. An agent's error page is converted
 * at its end; a browser's gets Accept in its Vary. The filter serves the documentation pages, which no route of the app's matches.
 */
export function agentFriendlyNest(options: AgentFriendlyOptions = {}) {
  checkOptions('agentFriendlyNest', options);
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
const OPTIONS = Symbol('AgentFriendlyModule.options');

/**
 * The module that sets AgentFriendly up in a Nest app: AgentFriendlyFilter as the app's global filter
 * (APP_FILTER), and agentFriendlyNest for every route.
 * @example Module({ imports: [AgentFriendlyModule.forRoot({ onError: (e) => logger.error(e) })] })(AppModule);
 */
export class AgentFriendlyModule implements NestModule {
  constructor(private readonly options: AgentFriendlyOptions = {}) {}

  static forRoot(options: AgentFriendlyOptions = {}): DynamicModule {
    checkOptions('AgentFriendlyModule.forRoot', options);
    return {
      module: AgentFriendlyModule,
      providers: [
        { provide: OPTIONS, useValue: options },
        { provide: APP_FILTER, useFactory: (host: HttpAdapterHost) => new AgentFriendlyFilter(options, host), inject: [HttpAdapterHost] },
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(agentFriendlyNest(this.options)).forRoutes('{*path}');
  }
}
Module({ providers: [{ provide: OPTIONS, useValue: {} }] })(AgentFriendlyModule);
Inject(OPTIONS)(AgentFriendlyModule, undefined, 0);
