// AgentFriendly for Fastify 5: a plugin whose onSend hook converts the app's error responses for
// agents and whose error handler renders thrown errors. Fastify is only a type here, so importing
// this package never requires it.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import type { AgentError } from './agent-error.js';
import { isAgentError } from './brand.js';
import { heldBytes, readCapped, type BodyStream } from './body.js';
import { baseOf, convertAppError, DEFAULT_BUFFER_BYTES, ENTITY_HEADERS, docsPrefix, renderProblemPage, isAgentRequest, varyAccept, writeHeaders, type AgentFriendlyOptions } from './friendly.js';
import { answer, checkOptions, report, type Answers, type Log } from './policy.js';

/** The base problem type URIs use for this request: Fastify's protocol and host, which honour trustProxy. */
const baseFor = (request: FastifyRequest, options: AgentFriendlyOptions): string => baseOf(options, request.host, request.protocol === 'https');

/** Fastify's own log of a failure, as its default error handler writes it. */
const logOf =
  (request: FastifyRequest): Log =>
  (error) =>
    request.log.error({ err: error }, (error as Error | null)?.message);

/** Writes an answer's headers on a reply (writeHeaders), removing only headers the reply has. */
function replaceHeaders(reply: FastifyReply, drop: ReadonlySet<string>, headers: Readonly<Record<string, string>>, body: string): void {
  writeHeaders(headers, body, drop, (name, value) => reply.header(name, value), (name) => reply.hasHeader(name) && reply.removeHeader(name));
}

/** An onSend payload that is a stream this hook reads (a node stream, a web ReadableStream); not a Fetch Response, which carries its own status and headers. */
const isStream = (payload: unknown): payload is BodyStream =>
  typeof payload === 'object' && payload !== null && (typeof (payload as { pipe?: unknown }).pipe === 'function' || typeof (payload as { getReader?: unknown }).getReader === 'function');

/** A client error (4xx) Fastify or a plugin raised: validation, a body too large, a rate limit. It keeps its status. */
function clientStatus(error: unknown): number | null {
  if (error === null || typeof error !== 'object') return null;
  const { statusCode, status } = error as { statusCode?: unknown; status?: unknown };
  const code = typeof statusCode === 'number' && statusCode >= 400 && statusCode <= 599 ? statusCode : typeof status === 'number' ? status : null;
  return code !== null && code >= 400 && code <= 499 ? code : null;
}

/** Fastify's own JSON error body, {statusCode, error, message}, for an error whose message no one sees. */
const GENERIC = JSON.stringify({ statusCode: UNKNOWN_STATUS, error: STATUS_CODES[UNKNOWN_STATUS], message: UNKNOWN_STATUS_TEXT });

const plugin: FastifyPluginAsync<AgentFriendlyOptions> = async (fastify, options) => {
  checkOptions('agentFriendlyFastify', options);
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  // Replies the error handler rendered in this contract already: onSend lets them through unread.
  const rendered = new WeakSet<FastifyReply>();
  // The AgentError each reply answers, whichever error handler renders it: an app's own page gets its
  // status and Retry-After for a browser, and an agent gets the error itself rather than that page.
  const thrown = new WeakMap<FastifyReply, AgentError>();

  // Fastify runs onError hooks before any error handler, the app's own (set after this plugin, in any
  // scope) included: the one place that hears of every thrown error, whichever handler renders it.
  fastify.addHook('onError', (request, reply, error, done) => {
    if (isAgentError(error)) thrown.set(reply, error);
    report(error, options, logOf(request), clientStatus(error));
    done();
  });

  if (options.docs !== false) {
    // One parametric route for the pages (HEAD as Fastify adds it to every GET): Fastify's router
    // finds it, so no other request pays anything for it, as it would for a hook. One route, not a
    // route a code: about forty more routes left some processes' other replies measurably slower
    // (bench/explore/site-spread.ts). An app's own route for one of these paths comes first, as a static
    // route does in Fastify; a code the catalog does not have falls through to the app's 404.
    // `docs: false` leaves the paths to the app.
    const prefix = `${docsPrefix(options.base)}/problems/`;
    fastify.get(`${prefix}:code`, async (request, reply) => {
      const page = await renderProblemPage(request.method, prefix + (request.params as { code: string }).code, request.headers, options, baseFor(request, options));
      if (page === null) return reply.callNotFound();
      rendered.add(reply);
      return reply.code(page.status).headers(page.headers).send(Buffer.from(page.body));
    });
  }

  fastify.addHook('onSend', (request, reply, payload, done) => {
    // Hooks that finish at once for what they leave alone: a success, a rendered reply, a browser.
    if (reply.statusCode < 400 || rendered.has(reply)) return done(null, payload);
    const error = thrown.get(reply);
    if (!isAgentRequest({ headers: request.headers }, options)) {
      // A browser's error page as the app made it, with Accept in its Vary, and a thrown AgentError's status and page headers.
      if (error) reply.code(error.status).headers(error.pageHeaders());
      reply.header('vary', varyAccept(reply.getHeader('vary')));
      return done(null, payload);
    }
    if (error) {
      // The app's error handler made a page of a thrown AgentError: an agent gets the error itself.
      (payload as { destroy?: () => void } | null)?.destroy?.();
      const { status, headers, body } = error.render(request.headers.accept ?? null, baseFor(request, options), { format: options.format });
      replaceHeaders(reply.code(status), ENTITY_HEADERS, headers, body);
      return done(null, body);
    }
    const bytes = heldBytes(payload, cap);
    if (bytes !== undefined) {
      // A body in memory (Fastify's own 404 and error replies are strings) is converted at once, as
      // a success is let through: the hook finishes in the same turn either way.
      let body: unknown;
      try {
        body = convert(request, reply, bytes) ?? payload;
      } catch (error) {
        return done(error as Error);
      }
      return done(null, body);
    }
    if (!isStream(payload)) return done(null, payload);
    readCapped(payload, cap)
      .then((read) => {
        // A stream that failed: the conversion uses what was read, and the site hears of the failure.
        if (read.failure !== undefined) report(read.failure, options, logOf(request));
        const body = convert(request, reply, read.head);
        if (body !== null) {
          read.cancel();
          return body;
        }
        // Already this contract: the stream, read to tell, whole (a payload Fastify takes: a Buffer, not bare bytes).
        const whole = read.whole();
        return whole instanceof Uint8Array ? Buffer.from(whole.buffer, whole.byteOffset, whole.byteLength) : whole;
      })
      .then((body) => done(null, body), done);
  });

  /** The body of an app's error reply, of which `head` is the first bytes, as this contract for an agent; null when it already is one, and goes out as the app sent it. */
  function convert(request: FastifyRequest, reply: FastifyReply, head: Uint8Array | string | null): string | null {
    const converted = convertAppError(
      { status: reply.statusCode, headers: reply.getHeaders() as Record<string, string | string[]>, body: head },
      request.headers.accept ?? null,
      baseFor(request, options),
      options,
    );
    if (converted === null) return null;
    reply.code(converted.status);
    replaceHeaders(reply, converted.drop, converted.set, converted.body);
    // node sends no body for HEAD.
    return converted.body;
  }

  fastify.setErrorHandler(function agentFriendlyErrorHandler(error: FastifyError, request, reply) {
    const agent = isAgentRequest({ headers: request.headers }, options);
    const status = clientStatus(error);
    // The onError hook has told the site of the error: the answers here carry no log.
    const a: Answers<void> = {
      agent,
      accept: request.headers.accept ?? null,
      base: baseFor(request, options),
      vary: reply.getHeader('vary'),
      send: ({ status, headers, body }) => {
        rendered.add(reply);
        // Headers the app set for the body it never sent (a Content-Encoding would garble this one) go.
        replaceHeaders(reply, ENTITY_HEADERS, headers, body);
        // A Buffer goes out as it is: Fastify adds no charset to its type and runs no reply serializer on it.
        reply.code(status).send(Buffer.from(body));
      },
      // Fastify's own 4xx (a 404 from callNotFound, a body too large, @fastify/rate-limit): its
      // default handler renders it with its status and headers, and onSend converts that for an agent.
      status,
      own: () => void reply.send(error),
      // Fastify's shape, without the message.
      failed: () => a.send({ status: UNKNOWN_STATUS, headers: { 'content-type': 'application/json; charset=utf-8', vary: varyAccept(a.vary) }, body: GENERIC }),
    };
    if (isAgentError(error) || !agent || status !== 400 || !Array.isArray(error.validation)) return void answer(error, a, options);
    // A schema validation failure, for an agent: the AgentError it is, read by a module loaded on the first one.
    import('./fastify-validation.js').then(
      (module) => answer(module.validationError(error) ?? error, a, options),
      () => answer(error, a, options),
    );
  });
  // This handler is a default, as Fastify's own is: an app that sets its own in the same scope
  // replaces it, without Fastify's warning that a handler was overridden (FSTWRN004), and without a
  // refusal where the app chose allowErrorHandlerOverride: false. Its own handler then gets every
  // thrown error as it was thrown, and its answers are converted for agents like any error reply.
  const set = Object.getOwnPropertySymbols(fastify).find((symbol) => symbol.description === 'fastify.errorHandlerAlreadySet');
  if (set !== undefined) (fastify as unknown as Record<symbol, unknown>)[set] = false;
};

/**
 * Fastify 5 plugin (not encapsulated, so it covers every route): agents get this contract for the app's error responses and thrown errors.
 * @example await app.register(agentFriendlyFastify, { onError: (e) => app.log.error(e) });
 */
export const agentFriendlyFastify: FastifyPluginAsync<AgentFriendlyOptions> = Object.assign(plugin, {
  // What fastify-plugin sets, without depending on it: no encapsulation, a name, the Fastify it needs.
  [Symbol.for('skip-override')]: true,
  [Symbol.for('fastify.display-name')]: 'agent-friendly',
  [Symbol.for('plugin-meta')]: { name: '@agent-index/errors', fastify: '5.x' },
});
