// AgentFriendly for Fetch API apps, anything shaped (Request) => Response: Hono's app.fetch,
// Deno.serve, Bun.serve, Cloudflare Workers, route handlers. An agent gets this contract for the
// app's error Responses and thrown errors; every other Response goes out as the app made it.
import type { AgentError } from './agent-error.js';
import { pageResponse } from './brand.js';
import { heldBytes, readCapped, utf8Length } from './body.js';
import { baseOf, convertAppError, DEFAULT_BUFFER_BYTES, renderProblemPage, isAgentRequest, pageOf, varyAccept, type AgentFriendlyOptions, type Rendered, type Conversion } from './friendly.js';
import { answer, checkOptions, mayBeDocs, report, type Answers } from './policy.js';

/** A Fetch API app; extra arguments (a Worker's env and ctx, Hono's bindings) are passed through. */
export type FetchHandler<A extends unknown[] = []> = (request: Request, ...rest: A) => Response | Promise<Response>;

/** The base problem type URIs use for this request: options.base, else the origin its URL names (baseOf). */
export function fetchBase(request: Request, options: AgentFriendlyOptions): string {
  if (options.base !== undefined) return options.base;
  const url = new URL(request.url);
  return baseOf(options, url.host, url.protocol === 'https:');
}

/** A rendered response as a Fetch Response; a HEAD request gets its headers only. */
export function renderedResponse(rendered: Rendered, method: string): Response {
  const headers: Record<string, string> = { ...rendered.headers, 'content-length': String(utf8Length(rendered.body)) };
  return new Response(method === 'HEAD' ? null : rendered.body, { status: rendered.status, headers });
}

/** The documentation page when the request asks for one (see renderProblemPage), else null. */
export async function docsPage(request: Request, options: AgentFriendlyOptions): Promise<Response | null> {
  const page = await renderProblemPage(request.method, new URL(request.url).pathname, request.headers, options, fetchBase(request, options));
  return page && renderedResponse(page, request.method);
}

/** The log of a runtime that runs Fetch handlers (workerd, Deno, Bun, node): console.error. */
const consoleLog = (error: unknown): void => console.error(error);

/** What an adapter knows of the request a response answers. */
export interface RequestFacts {
  readonly method: string;
  readonly accept: string | null;
  readonly base: string;
}

// @hono/node-server's Response keeps [status, body, headers] under a symbol of its own until
// something reads it as a Fetch Response; reading `body` there builds an undici Response and a
// stream (several microseconds). A string or byte body found in that tuple is read as it is. The
// symbol is private, so it is recognised by its description and its tuple's shape; any other
// Response (a materialised one, another runtime's) takes the stream path.
let cacheSymbol: symbol | undefined;

type Parts = readonly [number, string | Uint8Array | null, Headers | Record<string, string> | [string, string][] | undefined];

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

/** The agent's answer for an error still in node-server's tuple, or undefined when it is not in one. */
export function convertCached(response: Response, facts: RequestFacts, options: AgentFriendlyOptions): Response | undefined {
  const parts = cachedParts(response);
  if (parts === undefined) return undefined;
  const [status, body, headers] = parts;
  const converted = convertAppError({ status, headers, body: heldBytes(body, options.bufferBytes ?? DEFAULT_BUFFER_BYTES) ?? null }, facts.accept, facts.base, options);
  return converted === null ? response : conversionResponse(converted, headers, facts.method);
}

/** The Response for a conversion: the app's headers, less those that described its body, plus the answer's. */
function conversionResponse(converted: Conversion, init: HeadersInit | undefined, method: string): Response {
  const length = { 'content-length': String(utf8Length(converted.body)) };
  let headers: Headers | Record<string, string>;
  if (init instanceof Headers || Array.isArray(init)) {
    headers = new Headers(init);
    for (const name of converted.drop) headers.delete(name);
    for (const [name, value] of Object.entries({ ...converted.set, ...length })) headers.set(name, value);
  } else {
    // A plain record (node-server's tuple holds one) stays one: a Headers costs microseconds a response.
    headers = {};
    for (const [name, value] of Object.entries(init ?? {})) if (!converted.drop.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
    Object.assign(headers, converted.set, length);
  }
  return new Response(method === 'HEAD' ? null : converted.body, { status: converted.status, headers });
}

/**
 * The Response an agent gets for an app's error Response (status >= 400): at most `bufferBytes`
 * of its body are read and converted through convertAppError, and the rest of the stream is
 * cancelled. A body already in this contract goes out as the app sent it, every byte.
 */
export async function convertErrorResponse(response: Response, request: RequestFacts, options: AgentFriendlyOptions): Promise<Response> {
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  // A body already read or locked by someone else cannot be read again: then the status alone speaks.
  const readable = response.body !== null && !response.bodyUsed && !response.body.locked;
  const read = await readCapped(readable ? response.body : null, cap);
  if (read.failure !== undefined) report(read.failure, options, consoleLog);
  const converted = convertAppError({ status: response.status, headers: response.headers, body: read.head }, request.accept, request.base, options);
  if (converted === null) {
    // Only a valid envelope or problem parses as one, so this is the rare case of a contract body;
    // if the cap cut it, its unread rest follows what was read: nothing is dropped and nothing re-read.
    return new Response(read.whole() as ConstructorParameters<typeof Response>[0], { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  read.cancel();
  return conversionResponse(converted, response.headers, request.method);
}

/** The agent's answer for an app's error Response: from node-server's tuple when it is in one, else read from its body. */
export function convertAnyResponse(response: Response, facts: RequestFacts, options: AgentFriendlyOptions): Response | Promise<Response> {
  return convertCached(response, facts, options) ?? convertErrorResponse(response, facts, options);
}

/**
 * A browser's error Response as the app made it, its body streamed on, with Accept merged into its
 * Vary; for the page of a thrown AgentError, that error's status and page headers. A copy: the headers
 * of a Response may not change (a fetch() response's).
 */
export function browserError(response: Response, error?: AgentError): Response {
  const headers = new Headers(response.headers);
  headers.set('vary', varyAccept(headers.get('vary')));
  for (const [name, value] of Object.entries(error?.pageHeaders() ?? {})) headers.set(name, value);
  return new Response(response.body, { status: error?.status ?? response.status, statusText: error ? undefined : response.statusText, headers });
}

/** What the adapter needs of a request to answer it with an error: read only when it does. */
function factsOf(request: Request, options: AgentFriendlyOptions): RequestFacts {
  return { method: request.method, accept: request.headers.get('accept'), base: fetchBase(request, options) };
}

/**
 * How a Fetch handler answers a thrown error (see answer): the runtime's log is console.error, and
 * a browser's failure is a plain 500 (PLAIN), as bare as a runtime's own, rather than a request that
 * fails: @hono/node-server answers that with an empty 500 and logs nothing.
 */
export function fetchAnswers(request: Request, options: AgentFriendlyOptions): Answers<Response> {
  const { method, accept, base } = factsOf(request, options);
  return {
    agent: isAgentRequest(request, options),
    accept,
    base,
    log: consoleLog,
    send: (rendered) => renderedResponse(rendered, method),
    page: (error) => pageResponse(pageOf(error, options), method === 'HEAD'),
  };
}

/**
 * Wraps a Fetch API app: agents get this contract for its error Responses and thrown errors;
 * browsers get its own Responses (an error's with Accept in its Vary), a thrown AgentError's page,
 * and a plain 500 for any other thrown error, which goes to onError, else to console.error.
 * Successes are never buffered.
 *
 * A success costs one status read: the request's headers are read only when the app answers with
 * an error or throws (on @hono/node-server, the first read of `request.headers` builds a Headers),
 * and an app that answers synchronously is answered synchronously (a Promise costs node-server its
 * fast path). Only a request whose URL has `/problems/` in it is checked for a documentation page
 * before the app runs.
 * @example export default { fetch: agentFriendlyFetch(app.fetch) };
 */
export function agentFriendlyFetch<A extends unknown[] = []>(
  handler: FetchHandler<A>,
  options: AgentFriendlyOptions = {},
): (request: Request, ...rest: A) => Response | Promise<Response> {
  checkOptions('agentFriendlyFetch', options);
  const respond = (request: Request, response: Response): Response | Promise<Response> =>
    response.status < 400 ? response : isAgentRequest(request, options) ? convertAnyResponse(response, factsOf(request, options), options) : browserError(response);
  const fail = (request: Request, error: unknown): Response | Promise<Response> => answer(error, fetchAnswers(request, options), options);
  const run = (request: Request, rest: A): Response | Promise<Response> => {
    let result: Response | Promise<Response>;
    try {
      result = handler(request, ...rest);
    } catch (error) {
      return fail(request, error);
    }
    if (typeof (result as Promise<Response>).then === 'function')
      return (result as Promise<Response>).then((response) => respond(request, response), (error: unknown) => fail(request, error));
    return respond(request, result as Response);
  };
  return (request, ...rest) => {
    if (!mayBeDocs(options, request.url)) return run(request, rest);
    return docsPage(request, options).then((page) => page ?? run(request, rest));
  };
}
