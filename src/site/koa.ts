// AgentFriendly for Koa 3: one middleware, mounted first, that converts the app's error responses
// for agents after the rest of the app has answered, and renders what the app throws. Koa is only
// a type here, so importing this package never requires it.
import { STATUS_CODES } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { isAgentError } from './agent-error.js';
import {
  checkOptions,
  convertAppError,
  DEFAULT_BUFFER_BYTES,
  ENTITY_HEADERS,
  docsResponse,
  isAgentRequest,
  originOf,
  pageOf,
  renderThrown,
  varyAccept,
  type AgentFriendlyOptions,
  type Rendered,
} from './friendly.js';

const NO_HEADERS: ReadonlySet<string> = new Set();

/** The base problem type URIs use for this request: Koa's protocol and host, which honour app.proxy. */
function baseFor(ctx: Context, options: AgentFriendlyOptions): string {
  return options.base ?? originOf({ host: ctx.host }, ctx.protocol === 'https');
}

/** Sends a rendered answer in place of whatever the app had, without the app's headers of `drop`. */
function send(ctx: Context, { status, headers, body }: Rendered, drop: ReadonlySet<string>): void {
  for (const name of drop) if (!Object.hasOwn(headers, name)) ctx.remove(name);
  // The body first: Koa's body setter turns a status no one set explicitly into 200, and guesses a type, which the headers then replace.
  ctx.body = body;
  ctx.status = status;
  ctx.set(headers);
}

/** An error of the http-errors kind, as ctx.throw() and koa's own helpers make: its status, 400 to 599; null for any other error. */
function httpStatus(error: unknown): number | null {
  if (error === null || typeof error !== 'object' || typeof (error as { expose?: unknown }).expose !== 'boolean') return null;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  return typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599 ? code : null;
}

/** The body a streamed or deferred response would send: a node stream, a web stream, a Blob or a Response; null for anything else. */
function streamOf(body: unknown): AsyncIterable<Uint8Array | string> | null {
  if (typeof body !== 'object' || body === null) return null;
  if (typeof (body as { pipe?: unknown }).pipe === 'function' || typeof (body as { getReader?: unknown }).getReader === 'function') {
    return body as AsyncIterable<Uint8Array>;
  }
  if (body instanceof Blob) return body.stream() as unknown as AsyncIterable<Uint8Array>;
  if (body instanceof Response) return (body.body ?? []) as unknown as AsyncIterable<Uint8Array>;
  return null;
}

/** At most `cap` bytes of a stream; leaving the loop early destroys a node stream and cancels a web one, so the rest is never read. */
async function readCapped(stream: AsyncIterable<Uint8Array | string>, cap: number, failed: (error: unknown) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of stream) {
      const part = (typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)).subarray(0, cap - kept);
      chunks.push(part);
      kept += part.length;
      if (kept >= cap) break;
    }
  } catch (error) {
    // A stream that failed: the conversion uses what was read, and the site hears of the failure.
    failed(error);
  }
  return Buffer.concat(chunks);
}

/**
 * Koa 3 middleware, mounted first (`app.use(agentFriendlyKoa())` before anything else): agents get
 * this contract for the app's error responses and thrown errors; browsers get the app's own pages.
 * @example app.use(agentFriendlyKoa({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyKoa(options: AgentFriendlyOptions = {}): Middleware {
  checkOptions(options);
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;

  /** The app's error response, as this contract for an agent; left as it is when it already is one. */
  async function convert(ctx: Context): Promise<void> {
    const body: unknown = ctx.body;
    const stream = streamOf(body);
    let bytes: Buffer | null;
    if (body === null || body === undefined) bytes = null;
    else if (typeof body === 'string') bytes = Buffer.from(body).subarray(0, cap);
    else if (body instanceof Uint8Array) bytes = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, cap));
    else if (stream !== null) bytes = await readCapped(stream, cap, (error) => options.onError?.(error));
    // Anything else Koa sends as JSON.
    else bytes = Buffer.from(JSON.stringify(body)).subarray(0, cap);
    const converted = convertAppError(
      { status: ctx.status, headers: ctx.response.headers as Record<string, string | string[]>, body: bytes },
      ctx.get('accept') || null,
      baseFor(ctx, options),
      options.retryAfter,
    );
    if (converted !== null) return send(ctx, { status: converted.status, headers: converted.set, body: converted.body }, converted.drop);
    // Already this contract: out as the app sent it; a stream, read whole to tell, as its bytes.
    if (stream !== null) {
      const status = ctx.status;
      ctx.body = bytes;
      ctx.status = status;
    }
  }

  /** An error response of the app's, once it is made: converted for an agent, Accept merged into its Vary for a browser. */
  async function answered(ctx: Context, agent: boolean): Promise<void> {
    if (ctx.status < 400 || ctx.respond === false || ctx.headerSent) return;
    if (agent) return convert(ctx);
    ctx.set('vary', varyAccept(ctx.response.get('vary')));
  }

  /** Answers what the app threw; rethrows what Koa itself should answer for a browser. */
  async function thrown(ctx: Context, error: unknown, agent: boolean): Promise<void> {
    if (ctx.headerSent || !ctx.writable) {
      // Too late to answer: Koa cuts the response off and logs; the site still hears of the error.
      if (!isAgentError(error)) options.onError?.(error);
      throw error;
    }
    if (isAgentError(error)) {
      // An expected outcome, not a failure: answered here, so Koa never logs it and onError never hears of it.
      if (agent) return send(ctx, error.render(ctx.get('accept') || null, baseFor(ctx, options)), ENTITY_HEADERS);
      const page = pageOf(error, options, ctx.response.get('vary'));
      return send(ctx, { ...page, body: await page.body }, ENTITY_HEADERS);
    }
    const status = httpStatus(error);
    if (status !== null) {
      // ctx.throw(429) and the like: Koa's own answer (its status, the error's headers, its message when
      // exposed, though never a server error's), made here rather than by Koa so that an agent gets it converted and a browser its Vary.
      // The app's error listeners hear of it as from Koa, whose own logs no exposed client error.
      ctx.app.emit('error', error, ctx);
      if (status >= 500) options.onError?.(error);
      const { expose, message, headers } = error as { expose: boolean; message?: unknown; headers?: Record<string, string> };
      for (const name of ctx.response.headers ? Object.keys(ctx.response.headers) : []) ctx.remove(name);
      ctx.body = expose && status < 500 && typeof message === 'string' ? message : (STATUS_CODES[status] ?? String(status));
      ctx.status = status;
      for (const [name, value] of Object.entries(headers ?? {})) if (!/^content-(type|length)$/i.test(name)) ctx.set(name, value);
      ctx.type = 'text';
      return answered(ctx, agent);
    }
    options.onError?.(error);
    if (!agent) {
      // A browser gets Koa's own 500 page, which never shows an unexposed error's message; one the
      // app marked as exposed goes to Koa as a generic error, so that its message is not shown either.
      if ((error as { expose?: unknown } | null)?.expose !== true) throw error;
      throw Object.assign(new Error(STATUS_CODES[500]), { status: 500, expose: false, cause: error });
    }
    // The app's error listeners hear of the failure as Koa would tell them; the agent never sees it.
    ctx.app.emit('error', error, ctx);
    send(ctx, renderThrown(error, ctx.get('accept') || null, baseFor(ctx, options), {}), ENTITY_HEADERS);
  }

  return async function agentFriendly(ctx: Context, next: Next): Promise<void> {
    if (options.docs !== false && ctx.path.includes('/problems/')) {
      const page = await docsResponse(ctx.method, ctx.path, ctx.headers, options, baseFor(ctx, options));
      if (page !== null) return send(ctx, page, NO_HEADERS);
    }
    const agent = isAgentRequest({ headers: ctx.headers });
    try {
      await next();
    } catch (error) {
      return thrown(ctx, error, agent);
    }
    return answered(ctx, agent);
  };
}
