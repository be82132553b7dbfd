// The core every AgentFriendly adapter shares: who is an agent, and how an app's own error
// response becomes this contract for one, without changing what a browser sees.
import { CODES, EXAMPLE_BASE, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import { FORMAT_WORDS, isErrorFormat, isRetryByCode, RETRY_BY_CODE_WORDS, type ErrorFormat, type RetryByCode } from '../core/format.js';
import { augment, jsonObjectOf } from './augment.js';
import type { Code, Envelope } from '../../generated/types.js';
import { isKnownCode } from '../core/catalog.js';
import { fromResponseUnchecked, MAX_BODY_BYTES } from '../core/from-response.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { errorHeaders, markdownFrom, problemFrom } from '../core/render.js';
import { envelope as isEnvelope, problem as isProblem } from '../../generated/validators.js';
import { acceptsLikeAnAgent, errorBodyKind } from './accept.js';
import type { AgentError } from './agent-error.js';
import type { Page } from './brand.js';
import { utf8Length } from './body.js';
import { SITE_CODES } from './site-codes.js';
import { DELAY, isWhole, type Checks } from '../core/refuse.js';

/** Options every adapter takes. */
export interface AgentFriendlyOptions {
  /** The most bytes of an app's error body read for the conversion; the rest is not kept. @default 262144 */
  readonly bufferBytes?: number;
  /** The origin (and path prefix) problem type URIs start with. @default the request's own origin */
  readonly base?: string;
  /** Serve the page of each code at `{base path}/problems/{code}`. @default true */
  readonly docs?: boolean;
  /** Called with every thrown error that is not an AgentError, so the site can log what agents are never shown. */
  readonly onError?: (error: unknown) => void;
  /**
   * Seconds an agent is told to wait when the error it gets must say how long (its retry word requires
   * a delay) and the app's response named none, so that every wait the site sends says how long. A
   * word with a catalog default delay keeps that default. @default 60
   */
  readonly retryAfter?: number;
  /**
   * Where the app's own JSON error bodies keep each part, as JSON pointers (the lint config's
   * `format`): what an agent needs and a body lacks is added there. Without it, where the format
   * this package recognises in the body keeps it (at the top of the body for a format of its own).
   */
  readonly format?: ErrorFormat;
  /** The retry word of each of the app's own codes, for a body that says none (the lint config's `retryByCode`). */
  readonly retryByCode?: RetryByCode;
  /**
   * Who gets answers for agents: `'accept'`, a caller that signs its requests or whose Accept ranks
   * JSON, problem details or Markdown at least as high as HTML; `'signed'`, only a caller that signs
   * them (RFC 9421). An existing JSON client that counts as an agent still gets every status and
   * member it had. @default 'accept'
   */
  readonly agents?: 'accept' | 'signed';
}

/** A base problem type URIs can start with: an absolute http or https URL, without query or fragment. */
const isBase = (value: unknown): boolean => typeof value === 'string' && /^https?:\/\/[^\s?#]+$/i.test(value) && URL.canParse(value);

/** The checks of AgentFriendly's options, the same for every adapter. */
export const FRIENDLY_CHECKS: Checks<AgentFriendlyOptions> = {
  onError: [(value) => typeof value === 'function', 'a function'],
  base: [isBase, 'an absolute http or https URL, without query or fragment'],
  docs: [(value) => typeof value === 'boolean', 'true or false'],
  bufferBytes: [isWhole, 'a whole, non-negative number of bytes'],
  retryAfter: [isWhole, DELAY],
  format: [isErrorFormat, FORMAT_WORDS],
  retryByCode: [isRetryByCode, RETRY_BY_CODE_WORDS],
  agents: [(value) => value === 'accept' || value === 'signed', '"accept" or "signed"'],
};

/**
 * The delay of a converted wait whose page named none: a minute. Long enough that agents told
 * nothing more do not come back at a site that is down or limiting them within the same minute
 * (rate limits most often count per minute), and about the longest step of the backoff an agent
 * guesses with when told to wait without a delay (DEFAULT_BACKOFF on the agent side).
 */
export const DEFAULT_RETRY_AFTER = 60;

/** Anything with request headers: a Fetch Request, Headers, or node's IncomingHttpHeaders. */
export type RequestHeadersLike = Headers | Record<string, string | string[] | undefined>;

/** A request header by its lower-case name, in any case a record spells it: node lower-cases, a hand-built `{ Accept }` does not. */
function header(headers: RequestHeadersLike, name: string): string | null {
  // A Headers by its get method, not instanceof: on node:http nothing else reads the Headers
  // global, and its first read loads the fetch implementation into the server.
  if (typeof headers.get === 'function') return (headers as Headers).get(name);
  const record = headers as Record<string, string | string[] | undefined>;
  let value = Object.hasOwn(record, name) ? record[name] : undefined;
  if (value === undefined) {
    const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === name);
    value = key === undefined ? undefined : record[key];
  }
  return Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : null;
}

/** True when the request carries an HTTP Message Signature (RFC 9421; Web Bot Auth adds Signature-Agent). */
export function isSignedRequest(headers: RequestHeadersLike): boolean {
  return header(headers, 'signature') !== null && header(headers, 'signature-input') !== null;
}

/**
 * True when the caller is an agent: it signs its requests, or (unless `agents` is `'signed'`) its
 * Accept ranks JSON, problem details or Markdown at least as high as HTML. A signature only chooses
 * the error format; it grants nothing.
 */
export function isAgentRequest(request: Request | { headers: RequestHeadersLike }, options?: Pick<AgentFriendlyOptions, 'agents'>): boolean {
  const headers = request.headers;
  return isSignedRequest(headers) || (options?.agents !== 'signed' && acceptsLikeAnAgent(header(headers, 'accept')));
}

/** A response ready to send. */
export interface Rendered {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Renders an envelope for a caller. The body is Markdown when the caller ranks text/markdown above
 * JSON (its fields as YAML front matter, which fromResponse reads back), problem details when it
 * prefers them, else the envelope. A wait with no delay gets one: its word's default (retry-once),
 * else `retryAfter`.
 */
export function renderEnvelope(received: Envelope, status: number, accept: string | null, base: string, retryAfter = DEFAULT_RETRY_AFTER): Rendered {
  // Sending, the site fills the delay its word calls for, as agentError requires or fills it.
  const word: RetryWordEntry = RETRY_WORDS[received.error.retry];
  const delay = word.default_retry_after ?? (word.requires.includes('retry_after') ? retryAfter : undefined);
  const envelope: Envelope = received.error.retry_after === null && delay !== undefined ? { error: { ...received.error, retry_after: delay } } : received;
  const kind = errorBodyKind(accept);
  const body = kind === 'envelope' ? JSON.stringify(envelope) : kind === 'problem' ? JSON.stringify(problemFrom(envelope.error, status, { base })) : markdownFrom(problemFrom(envelope.error, status, { base }));
  return { status, headers: errorHeaders(kind, envelope.error.retry_after), body };
}

/**
 * Headers that describe the app's body, which an answer rendered or converted in its place replaces;
 * and Retry-After, which is the answer's own delay or absent, never one the body does not carry.
 */
export const ENTITY_HEADERS: ReadonlySet<string> = new Set([
  'content-type', 'content-length', 'content-encoding', 'content-language', 'content-range', 'content-md5',
  'content-disposition', 'etag', 'last-modified', 'transfer-encoding', 'vary', 'retry-after',
]);

/**
 * A Vary value with Accept in it, for an error response: the same URL answers agents with JSON and
 * browsers with a page, so a shared cache must not hand one the other's. The app's own value is
 * kept, Accept added once; `*` already covers it.
 */
export function varyAccept(value: unknown): string {
  // A repeated header (node gives an array) reads as its values joined by commas, as RFC 9110 combines them.
  const text = String(value ?? '').trim();
  return !text ? 'Accept' : /(^|,)\s*(accept|\*)\s*(,|$)/i.test(text) ? text : `${text}, Accept`;
}

/**
 * The page a browser gets for a thrown AgentError (its HTML when `body` resolves), its link under
 * the documentation pages' prefix (none with `docs: false`), and Accept merged into `vary`, the Vary
 * the app had set.
 */
export function pageOf(error: AgentError, options: AgentFriendlyOptions, vary?: unknown): Page {
  const page = error.toPage(options.docs === false ? null : docsPrefix(options.base));
  page.headers.vary = varyAccept(vary);
  return page;
}

/** True when a body already is this contract: a valid envelope, or valid problem details. */
export function alreadyInContract(contentType: string | null, body: Uint8Array | string | null): boolean {
  if (body === null || !contentType || !/json/i.test(contentType)) return false;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  // Both bodies require a member no other error body has: skip the parse and the schema without it.
  if (!text.includes('"retry_after"') && !text.includes('"next_step"')) return false;
  try {
    const value: unknown = JSON.parse(text);
    // The standalone validators themselves: a yes or no needs none of validate.ts's sentences.
    return /problem\+json/i.test(contentType) ? isProblem(value) : isEnvelope(value);
  } catch {
    return false;
  }
}

/** An app's error response, as an adapter captured it. */
export interface CapturedError {
  readonly status: number;
  /** The app's response headers: a Headers, or node's plain object of lower-case names. */
  readonly headers: HeadersInput;
  /** The first bufferBytes of the app's body, as bytes or as the text the app gave. */
  readonly body: Uint8Array | string | null;
}

/**
 * What to do to an app's error response for an agent: the new status and body, the headers that
 * described the app's body and go (`drop`), and the headers to set. Every other header of the
 * app's (Retry-After and rate-limit fields, Set-Cookie) stays as it was.
 */
export interface Conversion {
  readonly status: number;
  readonly body: string;
  readonly drop: ReadonlySet<string>;
  readonly set: Readonly<Record<string, string>>;
}

/** A response header of an app's, by its lower-case name: node's plain object read directly, anything else (a Headers among them) through toHeaders. */
function headerOf(headers: HeadersInput, name: string): string | null {
  if (headers && !Array.isArray(headers) && typeof headers === 'object' && !(Symbol.iterator in headers)) {
    const record = headers as Record<string, unknown>;
    let value = record[name];
    // Node lower-cases its names; a record an app or a framework built may not (Hono's { 'Content-Type': ... }).
    if (value === undefined) for (const key in record) if (key.toLowerCase() === name) value = record[key];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  }
  return toHeaders(headers).get(name);
}

/** What convertAppError needs of the site's options. */
export type ConvertOptions = Pick<AgentFriendlyOptions, 'retryAfter' | 'format' | 'retryByCode'>;

/** The headers an augmented body goes out without: those that described the bytes it had. */
const AUGMENT_DROP: ReadonlySet<string> = new Set(['content-length', 'content-md5', 'etag', 'transfer-encoding']);

const decoder = new TextDecoder();

/**
 * How an agent's answer differs from an app's own error response, or null when it goes out as the
 * app sent it. The status is the app's, always. An app's own JSON error (an object, in any format)
 * keeps every member and gets what the contract needs and it lacks in its own format's places
 * (augment), and the delay of a wait as Retry-After too; other JSON goes out as it is. A page (HTML,
 * text, a framework's default) is converted through fromResponse and negotiated, as is any error
 * for an agent that asks for problem details or Markdown by name.
 */
export function convertAppError(captured: CapturedError, accept: string | null, base: string, options: ConvertOptions = {}): Conversion | null {
  const contentType = headerOf(captured.headers, 'content-type');
  if (alreadyInContract(contentType, captured.body)) return null;
  const kind = errorBodyKind(accept);
  const isJson = contentType !== null && /json/i.test(contentType);
  const json = isJson ? jsonObjectOf(captured.body) : null;
  const retryAfter = options.retryAfter ?? DEFAULT_RETRY_AFTER;
  const added = json === null ? null : augment(json, captured.status, captured.headers, { format: options.format, retryByCode: options.retryByCode, retryAfter });
  if (isJson && (kind === 'envelope' || (kind === 'problem' && /problem\+json/i.test(contentType)))) {
    if (added === null) return null;
    const { body, delay } = added;
    const told = delay !== null && headerOf(captured.headers, 'retry-after') === null;
    if (body === null && !told) return null;
    const text = body !== null ? JSON.stringify(body) : typeof captured.body === 'string' ? captured.body : decoder.decode(captured.body!);
    const set: Record<string, string> = { 'content-type': contentType, vary: varyAccept(headerOf(captured.headers, 'vary')) };
    if (told) set['retry-after'] = String(delay);
    return { status: captured.status, body: text, drop: AUGMENT_DROP, set };
  }
  // An app's own JSON object is read as it reads augmented, so every kind of answer names the same code and word.
  const envelope = fromResponseUnchecked(captured.status, captured.headers, added?.body ?? json ?? captured.body, options);
  const rendered = renderEnvelope(envelope, captured.status, accept, base, options.retryAfter);
  return { status: captured.status, body: rendered.body, drop: ENTITY_HEADERS, set: rendered.headers };
}

/** The default cap on a buffered error body. */
export const DEFAULT_BUFFER_BYTES = MAX_BODY_BYTES;

/**
 * The base problem type URIs use for a request: `options.base`, else the origin the request names,
 * its Host (`host`, as the framework reads it: Fastify's and Koa's honour their proxy settings) on
 * http, or on https when the connection is `encrypted`. A Host with anything but host[:port]
 * characters is not reflected into a URI: it reads as localhost.
 */
export function baseOf(options: AgentFriendlyOptions, host: unknown, encrypted: boolean): string {
  return options.base ?? `${encrypted ? 'https' : 'http'}://${isHost(host) ? host : 'localhost'}`;
}

/** A Host value that may go into a URI: host[:port] characters only. */
export const isHost = (host: unknown): host is string => typeof host === 'string' && /^[A-Za-z0-9.\-[\]:]+$/.test(host);

/**
 * Writes the headers of an answer through `set`, with the Content-Length of its `body`, and removes
 * through `remove` each header of `drop` (the headers that described the body it replaces) it does
 * not overwrite: the one header writer of every adapter. Overwritten rather than removed where it
 * can: a removal deletes a property of the framework's headers object, which makes every function
 * that reads such objects slower, for the responses after it too (1 KB JSON replies after a few
 * converted errors measured about 10% slower on Fastify, in bench/explore/site-ab.ts), so `remove`
 * should touch only a header the response has.
 */
export function writeHeaders(headers: Readonly<Record<string, string>>, body: string, drop: Iterable<string>, set: (name: string, value: string) => unknown, remove: (name: string) => unknown): void {
  for (const name in headers) set(name, headers[name]!);
  set('content-length', String(utf8Length(body)));
  for (const name of drop) if (name !== 'content-length' && !Object.hasOwn(headers, name)) remove(name);
}

/** The path prefix documentation pages are served under: the pathname of `base`, if one is set. */
export function docsPrefix(base: string | undefined): string {
  if (!base) return '';
  try {
    return new URL(base).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/**
 * The documentation page for `GET {base path}/problems/{code}`, so every type URI a site emits
 * dereferences (RFC 9457 section 3.1.1): HTML for browsers, its example type URI on `base` (the
 * site's own origin), and the catalog entry as JSON for agents. Null for any other request, or a
 * code the catalog does not have.
 */
export async function renderProblemPage(
  method: string,
  pathname: string,
  headers: RequestHeadersLike,
  options: AgentFriendlyOptions,
  base?: string,
): Promise<Rendered | null> {
  base ??= baseOf(options, header(headers, 'host'), false);
  if (options.docs === false || (method !== 'GET' && method !== 'HEAD')) return null;
  const prefix = `${docsPrefix(options.base)}/problems/`;
  if (!pathname.startsWith(prefix)) return null;
  const code = pathname.slice(prefix.length);
  // A site's own code registered with defineSiteCodes has its page too, as its type URI promises.
  const site = SITE_CODES.get(code);
  if (!isKnownCode(code) && site?.page === undefined) return null;
  // Loaded only when a page is asked for, so the pages weigh nothing in an app that never serves them.
  const { docsPage } = await import('./page.js');
  const { page, ...entry } = site ?? {};
  return docsPage(code, isAgentRequest({ headers }) ? (site ? entry : CODES[code as Code]) : null, EXAMPLE_BASE, base, page);
}
