// AgentFriendly for node:http (and Express, which runs on it): captures an app's error response
// for an agent, converts it, and lets every other response through untouched and unbuffered.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { isAgentError } from './agent-error.js';
import {
  convertAppError,
  DEFAULT_BUFFER_BYTES,
  ENTITY_HEADERS,
  docsResponse,
  isAgentRequest,
  originOf,
  renderThrown,
  type AgentFriendlyOptions,
  type Rendered,
} from './friendly.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;
type Callback = (error?: Error | null) => void;

/** The base problem type URIs use for this request. */
export function baseFor(req: IncomingMessage, options: AgentFriendlyOptions): string {
  return options.base ?? originOf(req.headers, Boolean((req.socket as { encrypted?: boolean }).encrypted));
}

/** Sends a rendered response on a node response whose headers are not sent yet. */
export function sendRendered(req: IncomingMessage, res: ServerResponse, rendered: Rendered): void {
  res.statusCode = rendered.status;
  for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(rendered.body));
  res.end(req.method === 'HEAD' ? undefined : rendered.body);
}

/** Whether a request could be for a documentation page at all: a cheap test before the real one. */
export function mayBeDocs(req: IncomingMessage, options: AgentFriendlyOptions): boolean {
  return options.docs !== false && (req.url ?? '').includes('/problems/');
}

/** Serves a documentation page when the request asks for one; true when it did. */
export async function serveDocs(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): Promise<boolean> {
  const pathname = (req.url ?? '/').split('?', 1)[0]!;
  const page = await docsResponse(req.method ?? 'GET', pathname, req.headers, options);
  if (!page) return false;
  sendRendered(req, res, page);
  return true;
}

/** Applies writeHead's optional headers argument (an object or a flat or paired raw array) with setHeader. */
function applyHeaders(res: ServerResponse, headers: unknown): void {
  if (!headers || typeof headers !== 'object') return;
  if (!Array.isArray(headers)) {
    for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) if (value !== undefined) res.setHeader(name, value);
    return;
  }
  const pairs: [string, string][] = Array.isArray(headers[0])
    ? (headers as [string, string][])
    : Array.from({ length: headers.length / 2 }, (_, i) => [String(headers[2 * i]), String(headers[2 * i + 1])] as [string, string]);
  const grouped = new Map<string, string[]>();
  for (const [name, value] of pairs) grouped.set(name, [...(grouped.get(name) ?? []), value]);
  for (const [name, values] of grouped) res.setHeader(name, values.length === 1 ? values[0]! : values);
}

// How a response is watched. The state of one response lives in one object under a symbol, and
// the wrappers of writeHead, write and end are shared functions that find it there: no closures
// per request. Where the response's prototype belongs to one app (Express gives every app its own,
// app.response), the wrappers go on that prototype once, and each agent's response costs one
// property store; elsewhere (node's own ServerResponse.prototype, shared by every server in the
// process, is never changed) they are set on the response itself.
const CAPTURE = Symbol('agentFriendly.capture');

type Method = (this: ServerResponse, ...args: unknown[]) => unknown;
type Watched = ServerResponse & { [CAPTURE]?: Capture };

/** What a response's writeHead, write and end were before they were wrapped. */
interface Originals {
  readonly writeHead: Method;
  readonly write: Method;
  readonly end: Method;
}

/** One response an agent is waiting for: undecided until its status is known, then let through or held. */
class Capture {
  readonly chunks: Buffer[] = [];
  kept = 0;
  /** undefined until the first writeHead, write or end; then true for an error (held), false for anything else (let through). */
  capturing: boolean | undefined = undefined;
  constructor(
    readonly req: IncomingMessage,
    readonly options: AgentFriendlyOptions,
    readonly original: Originals,
    readonly cap: number,
    /** True when the wrappers were set on the response itself, rather than on its app's prototype. */
    readonly own: boolean,
  ) {}

  /** Stops watching: on a response that carries the wrappers itself, its own methods go back, so later writes call them directly. */
  letThrough(res: ServerResponse): void {
    this.capturing = false;
    if (!this.own) return;
    const target = res as unknown as Record<keyof Originals, Method>;
    target.writeHead = this.original.writeHead;
    target.write = this.original.write;
    target.end = this.original.end;
  }

  decide(res: ServerResponse): boolean {
    if (this.capturing === undefined && res.statusCode < 400) this.letThrough(res);
    else if (this.capturing === undefined) this.capturing = true;
    return this.capturing === true;
  }

  keep(chunk: unknown, encoding: unknown): void {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || this.kept >= this.cap) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    const part = buffer.subarray(0, this.cap - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }
}

/** The capture still watching this response, or undefined once it let the response through. */
function watching(res: Watched): Capture | undefined {
  const capture = res[CAPTURE];
  return capture !== undefined && capture.capturing !== false ? capture : undefined;
}

/**
 * The method a wrapper stands in front of: on a prototype, what that prototype had (`before`); on
 * a response itself, what that response had, which its capture keeps.
 */
function originalOf(res: Watched, name: keyof Originals, before: Originals | undefined): Method {
  return before ? before[name] : res[CAPTURE]!.original[name];
}

function wrappers(before: Originals | undefined): Originals {
  return {
    // Three named parameters, not a rest parameter: writeHead runs on every response, and node's
    // own takes (statusCode, reason, headers) too.
    writeHead(this: Watched, status: unknown, reason?: unknown, headers?: unknown) {
      const capture = watching(this);
      if (capture === undefined || (status as number) < 400) {
        const original = originalOf(this, 'writeHead', before);
        capture?.letThrough(this);
        return original.call(this, status, reason, headers);
      }
      this.statusCode = status as number;
      if (typeof reason === 'string') this.statusMessage = reason;
      applyHeaders(this, typeof reason === 'string' ? headers : reason);
      capture.capturing = true;
      return this;
    },
    write(this: Watched, chunk: unknown, encoding?: unknown, callback?: unknown) {
      const capture = watching(this);
      const original = originalOf(this, 'write', before);
      if (capture === undefined || !capture.decide(this)) return original.call(this, chunk, encoding, callback);
      capture.keep(chunk, encoding);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as Callback)());
      return true;
    },
    end(this: Watched, chunk?: unknown, encoding?: unknown, callback?: unknown) {
      const capture = watching(this);
      const original = originalOf(this, 'end', before);
      if (capture === undefined || !capture.decide(this)) return original.call(this, chunk, encoding, callback);
      capture.keep(chunk, encoding);
      capture.letThrough(this);
      return finish(this, capture, [chunk, encoding, callback].find((a) => typeof a === 'function') as Callback | undefined);
    },
  };
}

/** Converts a held error at its end and sends it, through the methods the app's response had. */
function finish(res: ServerResponse, capture: Capture, done: Callback | undefined): unknown {
  const { req, options, chunks, original } = capture;
  const body = chunks.length === 0 ? null : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const headers = res.getHeaders() as Record<string, string | string[]>;
  const converted = convertAppError({ status: res.statusCode, headers, body }, req.headers.accept ?? null, baseFor(req, options));
  if (converted === null) {
    // Already this contract: out as the app wrote it.
    return original.end.call(res, body ?? undefined, done);
  }
  // Only the headers the app did set: removeHeader validates its argument, a dozen calls add up.
  for (const name in headers) if (converted.drop.has(name)) res.removeHeader(name);
  res.statusCode = converted.status;
  for (const [name, value] of Object.entries(converted.set)) res.setHeader(name, value);
  res.setHeader('content-length', Buffer.byteLength(converted.body));
  return original.end.call(res, req.method === 'HEAD' ? undefined : converted.body, done);
}

/** The wrappers set on a response itself: they stand in front of what the response had. */
const OWN = wrappers(undefined);
/** Prototypes that carry the wrappers, each with what it had before. */
const patched = new WeakMap<object, Originals>();

/** Puts the wrappers on a prototype that belongs to one app, once; false for node's own prototype. */
function patchPrototype(prototype: object | null): Originals | undefined {
  if (prototype === null || prototype === ServerResponse.prototype || !(prototype instanceof ServerResponse)) return undefined;
  const known = patched.get(prototype);
  if (known) return known;
  const target = prototype as unknown as Record<keyof Originals, Method>;
  const before: Originals = { writeHead: target.writeHead, write: target.write, end: target.end };
  const own = wrappers(before);
  // A prototype above this one may carry the wrappers already (a sub-app's inherits its parent's): they pass through without a capture of their own.
  target.writeHead = own.writeHead;
  target.write = own.write;
  target.end = own.end;
  patched.set(prototype, before);
  return before;
}

/**
 * Watches one response for an agent. A success is let through at its first write, untouched; an
 * error (status >= 400) is held, at most `bufferBytes` of its body kept, and converted at its end.
 */
export function captureErrors(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): void {
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  const watched = res as Watched;
  const shared = patchPrototype(Object.getPrototypeOf(res));
  if (shared && !Object.hasOwn(res, 'end') && !Object.hasOwn(res, 'write') && !Object.hasOwn(res, 'writeHead')) {
    watched[CAPTURE] = new Capture(req, options, shared, cap, false);
    return;
  }
  const target = res as unknown as Record<keyof Originals, Method>;
  watched[CAPTURE] = new Capture(req, options, { writeHead: target.writeHead, write: target.write, end: target.end }, cap, true);
  target.writeHead = OWN.writeHead;
  target.write = OWN.write;
  target.end = OWN.end;
}

/** Answers a thrown error, unless the response has already begun (then it is cut off, as node would). */
export function answerThrown(req: IncomingMessage, res: ServerResponse, error: unknown, options: AgentFriendlyOptions): void {
  if (res.headersSent) {
    if (!isAgentError(error)) options.onError?.(error);
    res.destroy();
    return;
  }
  // The thrown error is the answer: an error page the app had begun (held for an agent) is dropped,
  // and so are the headers it set for that page's body (a Content-Encoding would garble ours).
  const capture = (res as Watched)[CAPTURE];
  if (capture !== undefined) {
    capture.letThrough(res);
    capture.chunks.length = 0;
  }
  for (const name of ENTITY_HEADERS) res.removeHeader(name);
  sendRendered(req, res, renderThrown(error, req.headers.accept ?? null, baseFor(req, options), options));
}

/**
 * Wraps a node:http request listener: agents get this contract for the app's error responses and
 * thrown errors; browsers get the app's own pages, byte for byte.
 * @example http.createServer(agentFriendly(app)).listen(3000);
 */
export function agentFriendly(handler: Listener, options: AgentFriendlyOptions = {}): Listener {
  const handle = (req: IncomingMessage, res: ServerResponse): unknown => {
    if (!isAgentRequest(req)) return handler(req, res);
    captureErrors(req, res, options);
    const fail = (error: unknown): void => answerThrown(req, res, error, options);
    // Synchronous unless the app is: an await per request costs a plain listener a tenth of its speed.
    try {
      const result = handler(req, res);
      if (result instanceof Promise) return result.then(undefined, fail);
      return result;
    } catch (error) {
      return fail(error);
    }
  };
  return (req, res) => {
    if (!mayBeDocs(req, options)) return handle(req, res);
    return serveDocs(req, res, options).then((served) => (served ? undefined : handle(req, res)));
  };
}
