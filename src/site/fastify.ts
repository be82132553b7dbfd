// AgentFriendly for Fastify 5: a plugin whose onSend hook converts the app's error responses for
// agents and whose error handler renders thrown errors. Fastify is only a type here, so importing
// this package never requires it.
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { READERS } from '../../generated/catalog.js';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import { AgentError, isAgentError } from './agent-error.js';
import { readCapped } from './fetch.js';
import {
  checkOptions,
  convertAppError,
  DEFAULT_BUFFER_BYTES,
  ENTITY_HEADERS,
  docsPrefix,
  docsResponse,
  isAgentRequest,
  originOf,
  pageOf,
  renderThrown,
  varyAccept,
  type AgentFriendlyOptions,
  type Rendered,
} from './friendly.js';

/** The base problem type URIs use for this request: Fastify's protocol and host, which honour trustProxy. */
function baseFor(request: FastifyRequest, options: AgentFriendlyOptions): string {
  return options.base ?? originOf({ host: request.host }, request.protocol === 'https');
}

/** At most `cap` bytes of a node stream, which is destroyed once read or past the cap. */
async function readNodeStream(stream: NodeJS.ReadableStream & { destroy?: () => void }, cap: number, failed: (error: unknown) => void): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let kept = 0;
  try {
    for await (const chunk of stream) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
      const part = buffer.subarray(0, cap - kept);
      chunks.push(part);
      kept += part.length;
      if (kept >= cap) break;
    }
  } catch (error) {
    // A stream that failed: the conversion uses what was read, and the site hears of the failure.
    failed(error);
  } finally {
    stream.destroy?.();
  }
  return Buffer.concat(chunks);
}

/** At most `cap` bytes of a web ReadableStream, which is cancelled once read. */
async function readWebStream(stream: ReadableStream<Uint8Array>, cap: number, failed: (error: unknown) => void): Promise<Buffer> {
  const body = await readCapped(stream, cap);
  if (body.failure !== undefined) failed(body.failure);
  body.cancel();
  return body.head ? Buffer.from(body.head.buffer, body.head.byteOffset, Math.min(body.head.byteLength, cap)) : Buffer.alloc(0);
}

/** The first `cap` bytes of an onSend payload held in memory: null for no body, undefined for a payload that is not (a stream, a Response). */
function payloadBytes(payload: unknown, cap: number): Buffer | null | undefined {
  if (payload === null || payload === undefined) return null;
  if (typeof payload === 'string') return Buffer.from(payload).subarray(0, cap);
  if (payload instanceof Uint8Array) return Buffer.from(payload.buffer, payload.byteOffset, Math.min(payload.byteLength, cap));
  return undefined;
}

/**
 * The first `cap` bytes of an onSend payload that is a stream, read: undefined for a payload this
 * hook does not read (a Fetch Response, which carries its own status and headers).
 */
async function readStreamPayload(payload: unknown, cap: number, failed: (error: unknown) => void): Promise<Buffer | undefined> {
  if (typeof payload !== 'object' || payload === null) return undefined;
  if (typeof (payload as { pipe?: unknown }).pipe === 'function') return readNodeStream(payload as NodeJS.ReadableStream, cap, failed);
  if (typeof (payload as { getReader?: unknown }).getReader === 'function') return readWebStream(payload as ReadableStream<Uint8Array>, cap, failed);
  return undefined;
}

/**
 * Sets `set` and the Content-Length of `body` on a reply, and removes the headers of `drop` the app
 * set that neither overwrites. Overwritten rather than removed where it can: a removal deletes a
 * property of the reply's headers object, which makes every function of Fastify's that reads such
 * objects slower, for the replies after it too (1 KB JSON replies after a few converted errors
 * measured about 10% slower in bench/explore/site-ab.ts).
 */
function replaceHeaders(reply: FastifyReply, drop: ReadonlySet<string>, set: Readonly<Record<string, string>>, body: string): void {
  reply.headers(set);
  reply.header('content-length', String(Buffer.byteLength(body)));
  for (const name of drop) if (name !== 'content-length' && !Object.hasOwn(set, name) && reply.hasHeader(name)) reply.removeHeader(name);
}

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
  checkOptions(options);
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  // Replies the error handler rendered in this contract already: onSend lets them through unread.
  const rendered = new WeakSet<FastifyReply>();
  // The AgentError each reply answers, whichever error handler renders it: an app's own page gets its
  // status and Retry-After for a browser, and an agent gets the error itself rather than that page.
  const thrown = new WeakMap<FastifyReply, AgentError>();

  // Fastify runs onError hooks before any error handler, the app's own (set after this plugin, in any
  // scope) included. An AgentError is an expected outcome, not a failure: onError never hears of it,
  // nor of Fastify's own client errors (a 404, a failed validation, a rate limit).
  fastify.addHook('onError', (_request, reply, error, done) => {
    if (isAgentError(error)) thrown.set(reply, error);
    else if (clientStatus(error) === null) options.onError?.(error);
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
      const page = await docsResponse(request.method, prefix + (request.params as { code: string }).code, request.headers, options, baseFor(request, options));
      if (page === null) return reply.callNotFound();
      rendered.add(reply);
      return reply.code(page.status).headers(page.headers).send(Buffer.from(page.body));
    });
  }

  fastify.addHook('onSend', (request, reply, payload, done) => {
    // Hooks that finish at once for what they leave alone: a success, a rendered reply, a browser.
    if (reply.statusCode < 400 || rendered.has(reply)) return done(null, payload);
    const error = thrown.get(reply);
    if (!isAgentRequest({ headers: request.headers })) {
      // A browser's error page as the app made it, with Accept in its Vary, and a thrown AgentError's status and Retry-After.
      if (error) reply.code(error.status).headers(error.retryAfter === null ? {} : { 'retry-after': String(error.retryAfter) });
      reply.header('vary', varyAccept(reply.getHeader('vary')));
      return done(null, payload);
    }
    if (error) {
      // The app's error handler made a page of a thrown AgentError: an agent gets the error itself.
      (payload as { destroy?: () => void } | null)?.destroy?.();
      const { status, headers, body } = error.render(request.headers.accept ?? null, baseFor(request, options));
      replaceHeaders(reply.code(status), ENTITY_HEADERS, headers, body);
      return done(null, body);
    }
    const bytes = payloadBytes(payload, cap);
    if (bytes !== undefined) {
      // A body in memory (Fastify's own 404 and error replies are strings) is converted at once, as
      // a success is let through: the hook finishes in the same turn either way.
      let body: unknown;
      try {
        body = convert(request, reply, payload, bytes);
      } catch (error) {
        return done(error as Error);
      }
      return done(null, body);
    }
    readStreamPayload(payload, cap, (error) => options.onError?.(error))
      .then((read) => (read === undefined ? payload : convert(request, reply, payload, read)))
      .then((body) => done(null, body), done);
  });

  /** The app's error payload, of which `body` is the first bytes, as this contract for an agent, or as it was when it already is. */
  function convert(request: FastifyRequest, reply: FastifyReply, payload: unknown, body: Buffer | null): unknown {
    const converted = convertAppError(
      { status: reply.statusCode, headers: reply.getHeaders() as Record<string, string | string[]>, body: body === null ? null : new Uint8Array(body.buffer, body.byteOffset, body.byteLength) },
      request.headers.accept ?? null,
      baseFor(request, options),
      options.retryAfter,
    );
    if (converted === null) {
      // Already this contract: out as the app sent it (a stream, read whole to tell, as its bytes).
      return typeof payload === 'string' || payload instanceof Uint8Array ? payload : body;
    }
    reply.code(converted.status);
    replaceHeaders(reply, converted.drop, converted.set, converted.body);
    // node sends no body for HEAD.
    return converted.body;
  }

  fastify.setErrorHandler(function agentFriendlyErrorHandler(error: FastifyError, request, reply) {
    const agent = isAgentRequest({ headers: request.headers });
    /** Sends an agent's error in this contract, or a browser's AgentError as its page. */
    const send = ({ status, headers, body }: Rendered): void => {
      rendered.add(reply);
      // Headers the app set for the body it never sent (a Content-Encoding would garble this one) go.
      replaceHeaders(reply, ENTITY_HEADERS, headers, body);
      // A Buffer goes out as it is: Fastify adds no charset to its type and runs no reply serializer on it.
      reply.code(status).send(Buffer.from(body));
    };
    /** Answers the error, `known` the AgentError it is (null for none). A handler that returns nothing leaves the reply to it. */
    const answer = (known: AgentError | null): void => {
      if (known === null && clientStatus(error) !== null) {
        // Fastify's own 4xx (a 404 from callNotFound, a body too large, @fastify/rate-limit): its
        // default handler renders it with its status and headers, and onSend converts that for an agent.
        return void reply.send(error);
      }
      // Anything but an AgentError is logged; the onError hook has told onError of it, so renderThrown does not again.
      if (known === null) request.log.error({ err: error }, UNKNOWN_STATUS_TEXT);
      if (agent) return send(renderThrown(known ?? error, request.headers.accept ?? null, baseFor(request, options), {}));
      // A browser's AgentError gets its page, sent once rendered.
      if (known !== null) {
        const page = pageOf(known, options, reply.getHeader('vary'));
        return void page.body.then((body) => send({ ...page, body }));
      }
      // Anything else: a browser sees Fastify's shape without its message.
      reply.code(UNKNOWN_STATUS).type('application/json; charset=utf-8').send(Buffer.from(GENERIC));
    };
    if (isAgentError(error) || !agent || clientStatus(error) !== 400 || !Array.isArray(error.validation)) return answer(isAgentError(error) ? error : null);
    // A schema validation failure, for an agent: the AgentError it is, read by a module loaded on the first one.
    import('./fastify-validation.js').then(
      (module) => answer(module.validationError(error, READERS.validation_keyword, AgentError)),
      () => answer(null),
    );
  });
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
