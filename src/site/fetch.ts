// AgentFriendly for Fetch API apps, anything shaped (Request) => Response: Hono's app.fetch,
// Deno.serve, Bun.serve, Cloudflare Workers, route handlers. An agent gets this contract for the
// app's error Responses and thrown errors; every other Response goes out as the app made it.
import { isAgentError, pageResponse, type AgentError } from './agent-error.js';
import {
  checkOptions,
  convertAppError,
  DEFAULT_BUFFER_BYTES,
  docsResponse,
  isAgentRequest,
  pageOf,
  renderThrown,
  varyAccept,
  type AgentFriendlyOptions,
  type Rendered,
  type Conversion,
} from './friendly.js';

/** A Fetch API app; extra arguments (a Worker's env and ctx, Hono's bindings) are passed through. */
export type FetchHandler<A extends unknown[] = []> = (request: Request, ...rest: A) => Response | Promise<Response>;

/** The base problem type URIs use for this request: options.base, else the request's own origin. */
export function fetchBase(request: Request, options: AgentFriendlyOptions): string {
  return options.base ?? new URL(request.url).origin;
}

/** The length of a string in UTF-8 bytes; without encoding it when it is ASCII, as rendered bodies nearly always are. */
export function utf8Length(text: string): number {
  return /^[\x00-\x7f]*$/.test(text) ? text.length : new TextEncoder().encode(text).byteLength;
}

/** A rendered response as a Fetch Response; a HEAD request gets its headers only. */
export function renderedResponse(rendered: Rendered, method: string): Response {
  const headers: Record<string, string> = { ...rendered.headers, 'content-length': String(utf8Length(rendered.body)) };
  return new Response(method === 'HEAD' ? null : rendered.body, { status: rendered.status, headers });
}

/** The documentation page when the request asks for one (see docsResponse), else null. */
export async function docsPage(request: Request, options: AgentFriendlyOptions): Promise<Response | null> {
  const page = await docsResponse(request.method, new URL(request.url).pathname, request.headers, options, fetchBase(request, options));
  return page && renderedResponse(page, request.method);
}

/** The first bytes of a body stream, and what is needed to give the body back whole or stop it. */
export interface CappedBody {
  /** The first `cap` bytes of the body (fewer when it is shorter); null when it has none. */
  readonly head: Uint8Array | null;
  /** True when the whole body was read; false when the stream was left at the cap with more to come. */
  readonly complete: boolean;
  /** The body as it was, every byte: what was read, then the unread rest, streamed and not buffered. Once only. */
  readonly whole: () => Uint8Array | ReadableStream<Uint8Array> | null;
  /** Stops the unread rest of the stream, so its source is not pulled any further. */
  readonly cancel: () => void;
  /** What the stream failed with, when it failed before its end or the cap. */
  readonly failure?: unknown;
}

/** A stream chunk as bytes: a stream built by an app may carry strings or any buffer view. */
function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('a response body chunk is not bytes');
}

/** The first `length` bytes of the chunks, as one array. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= length) break;
    const part = chunk.subarray(0, length - at);
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/**
 * Reads a body stream up to `cap` bytes with a reader loop, and stops there without reading the
 * rest: a 10 MB error page costs `cap` bytes (plus the one chunk that crossed it), never 10 MB.
 * The stream is left open, so the caller chooses: `cancel()` it, or send it on `whole()`.
 */
export async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<CappedBody> {
  if (body === null) return { head: null, complete: true, whole: () => null, cancel: () => undefined };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let complete = false;
  let failure: unknown;
  try {
    while (total < cap) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      const bytes = asBytes(value);
      chunks.push(bytes);
      total += bytes.byteLength;
    }
  } catch (error) {
    // The app's stream failed: what was read is all there is, as a client reading it would have found.
    complete = true;
    failure = error ?? new Error('the response body stream failed');
  }
  if (complete) {
    reader.releaseLock();
    const all = concat(chunks, total);
    return { head: total === 0 ? null : all.subarray(0, cap), complete, whole: () => all, cancel: () => undefined, ...(failure === undefined ? {} : { failure }) };
  }
  const head = total === 0 ? null : concat(chunks, Math.min(total, cap));
  return {
    head,
    complete,
    whole: () =>
      new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            // What was read goes first, let go of as it is sent; then the rest, a chunk per pull.
            if (chunks.length > 0) return controller.enqueue(chunks.shift()!);
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(asBytes(value));
          },
          cancel: (reason) => reader.cancel(reason),
        },
        { highWaterMark: 0 },
      ),
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}

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
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  const head = body === null ? null : typeof body === 'string' ? (body.length > cap ? body.slice(0, cap) : body) : body.subarray(0, cap);
  const converted = convertAppError({ status, headers, body: head }, facts.accept, facts.base, options.retryAfter);
  return converted === null ? response : answer(converted, headers, facts.method);
}

/** The Response for a conversion: the app's headers, less those that described its body, plus the answer's. */
function answer(converted: Conversion, init: HeadersInit | undefined, method: string): Response {
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
  if (read.failure !== undefined) options.onError?.(read.failure);
  const converted = convertAppError({ status: response.status, headers: response.headers, body: read.head }, request.accept, request.base, options.retryAfter);
  if (converted === null) {
    // Only a valid envelope or problem parses as one, so this is the rare case of a contract body;
    // if the cap cut it, its unread rest follows what was read: nothing is dropped and nothing re-read.
    return new Response(read.whole() as ConstructorParameters<typeof Response>[0], { status: response.status, statusText: response.statusText, headers: response.headers });
  }
  read.cancel();
  return answer(converted, response.headers, request.method);
}

/** The agent's answer for an app's error Response: from node-server's tuple when it is in one, else read from its body. */
export function convertAnyResponse(response: Response, facts: RequestFacts, options: AgentFriendlyOptions): Response | Promise<Response> {
  return convertCached(response, facts, options) ?? convertErrorResponse(response, facts, options);
}

/**
 * A browser's error Response as the app made it, its body streamed on, with Accept merged into its
 * Vary; for the page of a thrown AgentError, that error's status and Retry-After. A copy: the headers
 * of a Response may not change (a fetch() response's).
 */
export function browserError(response: Response, error?: AgentError): Response {
  const headers = new Headers(response.headers);
  headers.set('vary', varyAccept(headers.get('vary')));
  if (error?.retryAfter != null) headers.set('retry-after', String(error.retryAfter));
  return new Response(response.body, { status: error?.status ?? response.status, statusText: error ? undefined : response.statusText, headers });
}

/** What the adapter needs of a request to answer it with an error: read only when it does. */
function factsOf(request: Request, options: AgentFriendlyOptions): RequestFacts {
  return { method: request.method, accept: request.headers.get('accept'), base: fetchBase(request, options) };
}

/**
 * Wraps a Fetch API app: agents get this contract for its error Responses and thrown errors;
 * browsers get its own Responses (an error's with Accept in its Vary), a thrown AgentError's page, and
 * any other error as it would leave the app without the wrapper. Successes are never buffered.
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
  checkOptions(options);
  const respond = (request: Request, response: Response): Response | Promise<Response> =>
    response.status < 400 ? response : isAgentRequest(request) ? convertAnyResponse(response, factsOf(request, options), options) : browserError(response);
  const fail = (request: Request, error: unknown): Response => {
    const agent = isAgentRequest(request);
    // A browser's thrown AgentError gets its page, an expected outcome and never logged; any other error fails as it would without the wrapper.
    if (!agent && !isAgentError(error)) throw error;
    const facts = factsOf(request, options);
    if (agent) return renderedResponse(renderThrown(error, facts.accept, facts.base, options), facts.method);
    return pageResponse(pageOf(error as AgentError, options), facts.method === 'HEAD');
  };
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
    if (options.docs === false || !request.url.includes('/problems/')) return run(request, rest);
    return docsPage(request, options).then((page) => page ?? run(request, rest));
  };
}
