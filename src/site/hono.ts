// AgentFriendly for Hono 4: one middleware, mounted first, for an app's error responses and its
// thrown errors; or, on node with no middleware, an error handler for its thrown errors while
// node:http's agentFriendly converts its error responses. Only types come from 'hono', so importing
// this package never requires Hono.
import type { Context, MiddlewareHandler } from 'hono';
import { convertErrorResponse, docsPage, fetchBase, renderedResponse, utf8Length, type RequestFacts } from './fetch.js';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import { isAgentError } from './agent-error.js';
import { convertAppError, isAgentRequest, originOf, renderThrown, type AgentFriendlyOptions, type RequestHeadersLike } from './friendly.js';

/** Hono's HTTPException, by the shape Hono's own error handler checks: an error that carries its response. */
function isHttpException(error: Error): boolean {
  return typeof (error as { getResponse?: unknown }).getResponse === 'function';
}

/** Replaces the response: cleared first, since Hono's setter would copy the old headers onto the new one. */
function replace(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/** The node request @hono/node-server passes as `c.env.incoming`, when the app runs on it. */
interface Incoming {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly socket?: { readonly encrypted?: boolean };
}

function incomingOf(c: Context): Incoming | undefined {
  const incoming = (c.env as { incoming?: Incoming } | undefined)?.incoming;
  return incoming && typeof incoming.headers === 'object' && incoming.headers !== null ? incoming : undefined;
}

// @hono/node-server's Response keeps [status, body, headers] under a symbol of its own until
// something reads it as a Fetch Response; reading `body` there builds an undici Response and a
// stream (several microseconds). A string or byte body found in that tuple is read as it is. The
// symbol is private, so it is recognised by its description and its tuple's shape; any other
// Response (a materialised one, another runtime's) takes the stream path.
let cacheSymbol: symbol | undefined;

type Parts = readonly [number, string | Uint8Array | null, RequestHeadersLike | [string, string][] | undefined];

function isParts(value: unknown): value is Parts {
  return Array.isArray(value) && value.length === 3 && typeof value[0] === 'number' && (value[1] === null || typeof value[1] === 'string' || value[1] instanceof Uint8Array);
}

function cachedParts(response: Response): Parts | undefined {
  if (cacheSymbol !== undefined) {
    const parts = (response as unknown as Record<symbol, unknown>)[cacheSymbol];
    return isParts(parts) ? parts : undefined;
  }
  for (const symbol of Object.getOwnPropertySymbols(response)) {
    const parts = (response as unknown as Record<symbol, unknown>)[symbol];
    if (symbol.description === 'cache' && isParts(parts)) {
      cacheSymbol = symbol;
      return parts;
    }
  }
  return undefined;
}

/**
 * The tuple's headers as one plain object of lower-case names (the form node-server writes without
 * copying), or undefined when they hold several Set-Cookie lines, which cannot be joined into one.
 */
function plainHeaders(input: Parts[2]): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  if (input === undefined) return out;
  const entries = input instanceof Headers || Array.isArray(input) ? input : Object.entries(input);
  for (const [name, value] of entries as Iterable<[string, string | string[] | undefined]>) {
    if (value === undefined) continue;
    const key = String(name).toLowerCase();
    if (key === 'set-cookie' && (key in out || (Array.isArray(value) && value.length > 1))) return undefined;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    out[key] = key in out ? `${out[key]}, ${text}` : text;
  }
  return out;
}

/** The agent's answer for an error response still in node-server's tuple, or undefined when it is not in one. */
function convertCached(response: Response, facts: RequestFacts, options: AgentFriendlyOptions): Response | undefined {
  const parts = cachedParts(response);
  if (parts === undefined) return undefined;
  const [status, body] = parts;
  const headers = plainHeaders(parts[2]);
  if (headers === undefined) return undefined;
  const cap = options.bufferBytes ?? Infinity;
  const head = body === null ? null : typeof body === 'string' ? (body.length > cap ? body.slice(0, cap) : body) : body.subarray(0, cap);
  const converted = convertAppError({ status, headers, body: head }, facts.accept, facts.base);
  if (converted === null) return response;
  for (const name of converted.drop) delete headers[name];
  Object.assign(headers, converted.set);
  headers['content-length'] = String(utf8Length(converted.body));
  return new Response(facts.method === 'HEAD' ? null : converted.body, { status: converted.status, headers });
}

/**
 * Hono middleware, mounted before the routes. For an agent: a thrown AgentError is rendered; any
 * other thrown error becomes `internal` with a generic message (and goes to onError); an
 * HTTPException and every other error response (status >= 400: Hono's 404, a rate limiter's 429)
 * is converted. Browsers get the app's responses untouched; successes are never buffered.
 * @example app.use(agentFriendlyHono({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyHono(options: AgentFriendlyOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    if (options.docs !== false && c.req.path.includes('/problems/')) {
      const page = await docsPage(request, options);
      if (page) return page;
    }
    // On @hono/node-server the raw node headers are at hand; reading request.headers would build a Headers per request.
    const incoming = incomingOf(c);
    if (!isAgentRequest({ headers: incoming?.headers ?? request.headers })) return next();
    try {
      await next();
    } catch (error) {
      // What Hono's compose does not catch: a thrown non-Error, or an error handler that threw.
      return answerThrown(c, incoming, error, options);
    }
    // A success stays as it is, even one an inner middleware made of a caught error.
    if (c.res.status < 400) return;
    // Hono caught a thrown Error into c.error and c.res holds its error handler's answer. An
    // HTTPException's response is meant for callers, so it is converted like any error response;
    // for anything else that answer may carry the error's text, so it is replaced.
    if (c.error && !isHttpException(c.error)) {
      void c.res.body?.cancel().catch(() => undefined);
      return answerThrown(c, incoming, c.error, options);
    }
    const f = factsOf(c, incoming, options);
    replace(c, convertCached(c.res, f, options) ?? (await convertErrorResponse(c.res, f, options)));
  };
}

/**
 * Hono's error handler (`app.onError`), for an app whose error responses AgentFriendly converts
 * without the middleware: node:http's `agentFriendly` around @hono/node-server's listener, which
 * costs a success nothing in Hono. An agent gets a thrown AgentError rendered, and any other thrown
 * error (not an HTTPException) as the unknown-code error with a generic message; a browser gets
 * what Hono's own handler gives. Every thrown error that is not an AgentError or an HTTPException
 * goes to `onError` (else to console.error, as Hono's handler logs it), never to a caller.
 * @example app.onError(agentErrorHandlerHono()); http.createServer(agentFriendly(getRequestListener(app.fetch)));
 */
export function agentErrorHandlerHono(options: AgentFriendlyOptions = {}): (error: Error, c: Context) => Response {
  return (error, c) => {
    // An HTTPException's response is meant for callers: out as it is, converted for an agent like any error response.
    if (isHttpException(error)) return (error as unknown as { getResponse(): Response }).getResponse();
    if (!isAgentError(error)) (options.onError ?? console.error)(error);
    const incoming = incomingOf(c);
    if (!isAgentRequest({ headers: incoming?.headers ?? c.req.raw.headers })) return new Response(UNKNOWN_STATUS_TEXT, { status: UNKNOWN_STATUS, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
    const f = factsOf(c, incoming, options);
    // renderThrown hands a non-AgentError to onError itself: it has been heard above.
    return renderedResponse(renderThrown(error, f.accept, f.base, { ...options, onError: undefined }), f.method);
  };
}

/** What the adapter needs to know of the request, read only when an error is answered (no closure per request). */
function factsOf(c: Context, incoming: Incoming | undefined, options: AgentFriendlyOptions): RequestFacts {
  const request = c.req.raw;
  return incoming
    ? { method: request.method, accept: (incoming.headers.accept as string | undefined) ?? null, base: options.base ?? originOf(incoming.headers, Boolean(incoming.socket?.encrypted)) }
    : { method: request.method, accept: request.headers.get('accept'), base: fetchBase(request, options) };
}

/** Replaces the response with this contract's answer to a thrown error. */
function answerThrown(c: Context, incoming: Incoming | undefined, error: unknown, options: AgentFriendlyOptions): void {
  const f = factsOf(c, incoming, options);
  replace(c, renderedResponse(renderThrown(error, f.accept, f.base, options), f.method));
}
