// AgentFriendly for node:http (and Express, which runs on it): captures an app's error response
// for an agent, converts it, and lets every other response through untouched and unbuffered.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import {
  convertAppError,
  DEFAULT_BUFFER_BYTES,
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

/**
 * Watches one response for an agent. A success is let through at its first write, untouched; an
 * error (status >= 400) is held, at most `bufferBytes` of its body kept, and converted at its end.
 */
export function captureErrors(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): void {
  const original = { writeHead: res.writeHead, write: res.write, end: res.end };
  const cap = options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
  const chunks: Buffer[] = [];
  let kept = 0;
  let capturing: boolean | undefined;
  const restore = (): void => {
    res.writeHead = original.writeHead;
    res.write = original.write;
    res.end = original.end;
  };
  const decide = (): boolean => {
    if (capturing === undefined) {
      capturing = res.statusCode >= 400;
      if (!capturing) restore();
    }
    return capturing;
  };
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || kept >= cap) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    const part = buffer.subarray(0, cap - kept);
    chunks.push(part);
    kept += part.length;
  };

  res.writeHead = function writeHead(this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status < 400 || capturing === false) {
      restore();
      return original.writeHead.call(this, status, ...(rest as []));
    }
    res.statusCode = status;
    if (typeof rest[0] === 'string') res.statusMessage = rest[0];
    applyHeaders(res, typeof rest[0] === 'string' ? rest[1] : rest[0]);
    capturing = true;
    return this;
  } as ServerResponse['writeHead'];

  res.write = function write(this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
    if (!decide()) return original.write.call(this, chunk as never, encoding as never, callback as never);
    keep(chunk, encoding);
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(() => (done as Callback)());
    return true;
  } as ServerResponse['write'];

  res.end = function end(this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
    if (!decide()) return original.end.call(this, chunk as never, encoding as never, callback as never);
    keep(chunk, encoding);
    restore();
    const done = [chunk, encoding, callback].find((a) => typeof a === 'function') as Callback | undefined;
    const body = chunks.length ? new Uint8Array(Buffer.concat(chunks)) : null;
    const converted = convertAppError({ status: res.statusCode, headers: res.getHeaders() as Record<string, string | string[]>, body }, req.headers.accept ?? null, baseFor(req, options));
    if (converted === null) {
      // Already this contract: out as the app wrote it.
      return res.end(body ? Buffer.from(body) : undefined, done);
    }
    for (const name of converted.drop) res.removeHeader(name);
    res.statusCode = converted.status;
    for (const [name, value] of Object.entries(converted.set)) res.setHeader(name, value);
    res.setHeader('content-length', Buffer.byteLength(converted.body));
    return res.end(req.method === 'HEAD' ? undefined : converted.body, done);
  } as ServerResponse['end'];
}

/** Answers a thrown error, unless the response has already begun (then it is cut off, as node would). */
export function answerThrown(req: IncomingMessage, res: ServerResponse, error: unknown, options: AgentFriendlyOptions): void {
  if (res.headersSent) {
    options.onError?.(error);
    res.destroy();
    return;
  }
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
