// AgentFriendly for Koa 3: one middleware, mounted first, that converts the app's error responses
// for agents after the rest of the app has answered, and renders what the app throws. Koa is only
// a type here, so importing this package never requires it.
import { STATUS_CODES } from 'node:http';
import type { Context, Middleware, Next } from 'koa';
import { heldBytes, readCapped, type BodyStream, type CappedBody } from './body.js';
import { baseOf, convertAppError, DEFAULT_BUFFER_BYTES, ENTITY_HEADERS, renderProblemPage, isAgentRequest, varyAccept, writeHeaders, type AgentFriendlyOptions, type Rendered } from './friendly.js';
import { answer, checkOptions, mayBeDocs, PLAIN, report, type Log } from './policy.js';

const NO_HEADERS: ReadonlySet<string> = new Set();

/** The base problem type URIs use for this request: Koa's protocol and host, which honour app.proxy. */
const baseFor = (ctx: Context, options: AgentFriendlyOptions): string => baseOf(options, ctx.host, ctx.protocol === 'https');

/** Koa's own log: the app's `error` event, whose default listener prints what is not a client error. */
const logOf =
  (ctx: Context): Log =>
  (error) =>
    ctx.app.emit('error', error, ctx);

/** Sends a rendered answer in place of whatever the app had, without the app's headers of `drop`. */
function send(ctx: Context, { status, headers, body }: Rendered, drop: ReadonlySet<string>): void {
  // The body first: Koa's body setter turns a status no one set explicitly into 200, and guesses a type, which the headers then replace.
  ctx.body = body;
  ctx.status = status;
  writeHeaders(headers, body, drop, (name, value) => ctx.set(name, value), (name) => ctx.remove(name));
}

/** Removes every header the app had set, as Koa's own error answer does: they were for the response that failed. */
function clear(ctx: Context): void {
  for (const name of Object.keys(ctx.response.headers)) ctx.remove(name);
}

/** An error of the http-errors kind, as ctx.throw() and koa's own helpers make: its status, 400 to 599; null for any other error. */
function httpStatus(error: unknown): number | null {
  if (error === null || typeof error !== 'object' || typeof (error as { expose?: unknown }).expose !== 'boolean') return null;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  const code = typeof status === 'number' ? status : statusCode;
  return typeof code === 'number' && Number.isInteger(code) && code >= 400 && code <= 599 ? code : null;
}

/** The stream a streamed or deferred body sends (a node stream, a web stream, a Blob's, a Response's; null for none), or undefined for a body that is no stream. */
function streamOf(body: unknown): BodyStream | null | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  if (typeof (body as { pipe?: unknown }).pipe === 'function' || typeof (body as { getReader?: unknown }).getReader === 'function') return body as BodyStream;
  if (body instanceof Blob) return body.stream();
  return body instanceof Response ? body.body : undefined;
}

/**
 * Koa 3 middleware, mounted first (`app.use(agentFriendlyKoa())` before anything else): agents get
 * this contract for the app's error responses and thrown errors; browsers get the app's own pages.
 * Every thrown error but an AgentError and a client error of Koa's goes to onError, else to Koa's
 * `error` event, whose default listener logs it.
 * @example app.use(agentFriendlyKoa({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyKoa(options: AgentFriendlyOptions = {}): Middleware {
  checkOptions('agentFriendlyKoa', options);
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;

  /** The app's error response, as this contract for an agent; left as it is when it already is one. */
  async function convert(ctx: Context): Promise<void> {
    const body: unknown = ctx.body;
    let head = heldBytes(body, cap);
    let read: CappedBody | undefined;
    if (head === undefined) {
      const stream = streamOf(body);
      // A stream is read up to the cap (a failure goes to the site, what was read is converted); anything else Koa sends as JSON.
      if (stream === undefined) head = heldBytes(JSON.stringify(body), cap);
      else {
        read = await readCapped(stream, cap);
        if (read.failure !== undefined) report(read.failure, options, logOf(ctx));
        head = read.head;
      }
    }
    const converted = convertAppError(
      { status: ctx.status, headers: ctx.response.headers as Record<string, string | string[]>, body: head ?? null },
      ctx.get('accept') || null,
      baseFor(ctx, options),
      options,
    );
    if (converted !== null) {
      read?.cancel();
      return send(ctx, { status: converted.status, headers: converted.set, body: converted.body }, converted.drop);
    }
    // Already this contract: out as the app sent it; a stream, read to tell, whole.
    if (read !== undefined) {
      const status = ctx.status;
      const whole = read.whole();
      ctx.body = whole instanceof Uint8Array ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength) : whole;
      ctx.status = status;
    }
  }

  /** An error response of the app's, once it is made: converted for an agent, Accept merged into its Vary for a browser. */
  async function answered(ctx: Context, agent: boolean): Promise<void> {
    if (ctx.status < 400 || ctx.respond === false || ctx.headerSent) return;
    if (agent) return convert(ctx);
    ctx.set('vary', varyAccept(ctx.response.get('vary')));
  }

  /** Answers what the app threw, here, so that it never reaches Koa's own handler (see answer). */
  function thrown(ctx: Context, error: unknown, agent: boolean): unknown {
    const status = httpStatus(error);
    const log = logOf(ctx);
    // Koa fires its error event for every error it catches; its listener logs no client error, nor does report.
    if (status !== null && status < 500) log(error);
    return answer<void | Promise<void>>(
      error,
      {
        agent,
        accept: ctx.get('accept') || null,
        base: baseFor(ctx, options),
        log,
        sent: ctx.headerSent || !ctx.writable,
        cut: () => void ctx.res.destroy(),
        send: (rendered) => send(ctx, rendered, ENTITY_HEADERS),
        vary: ctx.response.get('vary'),
        status,
        own: () => {
          // ctx.throw(429) and the like: Koa's own answer (its status, the error's headers, its message
          // when exposed, though never a server error's), made here rather than by Koa so that an agent
          // gets it converted and a browser its Vary.
          const { expose, message, headers } = error as { expose: boolean; message?: unknown; headers?: Record<string, string> };
          clear(ctx);
          ctx.body = expose && status! < 500 && typeof message === 'string' ? message : (STATUS_CODES[status!] ?? String(status));
          ctx.status = status!;
          for (const [name, value] of Object.entries(headers ?? {})) if (!/^content-(type|length)$/i.test(name)) ctx.set(name, value);
          ctx.type = 'text';
          return answered(ctx, agent);
        },
        // Koa's own 500, which never shows the message (nor one the app marked as exposed).
        failed: () => {
          clear(ctx);
          send(ctx, PLAIN, NO_HEADERS);
        },
      },
      options,
    );
  }

  return async function agentFriendlyKoa(ctx: Context, next: Next): Promise<void> {
    if (mayBeDocs(options, ctx.path)) {
      const page = await renderProblemPage(ctx.method, ctx.path, ctx.headers, options, baseFor(ctx, options));
      if (page !== null) return send(ctx, page, NO_HEADERS);
    }
    const agent = isAgentRequest({ headers: ctx.headers }, options);
    try {
      await next();
    } catch (error) {
      return void (await thrown(ctx, error, agent));
    }
    return answered(ctx, agent);
  };
}
