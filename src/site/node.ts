// AgentFriendly for node:http (and Express, which runs on it): captures an app's error response
// for an agent, converts it, and lets every other response through untouched and unbuffered.
import { ServerResponse, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { baseOf, convertAppError, DEFAULT_BUFFER_BYTES, ENTITY_HEADERS, renderProblemPage, isAgentRequest, varyAccept, writeHeaders, type AgentFriendlyOptions, type Rendered } from './friendly.js';
import { answer, checkOptions, mayBeDocs, type Answers } from './policy.js';

type Listener = (req: IncomingMessage, res: ServerResponse) => unknown;
type Callback = (error?: Error | null) => void;

/** The base problem type URIs use for this request (baseOf). */
const baseFor = (req: IncomingMessage, options: AgentFriendlyOptions): string => baseOf(options, req.headers.host, Boolean((req.socket as { encrypted?: boolean }).encrypted));

/**
 * Writes `headers` and the Content-Length of `body` on a response (writeHeaders), removing only the
 * headers of `drop` the app set (`present`): a removal deletes a property of the response's header
 * object, which makes every function of node's that reads such objects slower.
 */
function replaceHeaders(res: ServerResponse, present: object, drop: ReadonlySet<string>, headers: Readonly<Record<string, string>>, body: string): void {
  writeHeaders(headers, body, drop, (name, value) => res.setHeader(name, value), (name) => name in present && res.removeHeader(name));
}

const NO_HEADERS: ReadonlySet<string> = new Set();

/** Sends a rendered response on a node response whose headers are not sent yet, without the app's headers of `drop`. */
export function sendRendered(req: IncomingMessage, res: ServerResponse, rendered: Rendered, drop: ReadonlySet<string> = NO_HEADERS): void {
  res.statusCode = rendered.status;
  replaceHeaders(res, res.getHeaders(), drop, rendered.headers, rendered.body);
  res.end(req.method === 'HEAD' ? undefined : rendered.body);
}

/** Serves a documentation page when the request asks for one; true when it did. */
export async function serveDocs(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): Promise<boolean> {
  const pathname = (req.url ?? '/').split('?', 1)[0]!;
  const page = await renderProblemPage(req.method ?? 'GET', pathname, req.headers, options, baseFor(req, options));
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

/** Sends the head of an error response that goes out as the app wrote it (a browser's page), with Accept merged into its Vary. */
function errorHead(res: ServerResponse, original: Method, status: number, reason: unknown, headers: unknown): unknown {
  // The app's headers first, so that a Vary among them is merged too.
  applyHeaders(res, typeof reason === 'string' ? headers : reason);
  res.setHeader('vary', varyAccept(res.getHeader('vary')));
  return original.call(res, status, typeof reason === 'string' ? reason : undefined);
}

/**
 * Watches a browser's response where no prototype of the app's does (node's own, a middleware
 * mounted on a path): only its head, which node sends through writeHead even when the app never
 * calls it, so that an error page gets its Vary.
 */
function watchHead(res: ServerResponse): void {
  const original = res.writeHead as unknown as Method;
  (res as unknown as Record<string, Method>).writeHead = function writeHead(this: ServerResponse, status: unknown, reason?: unknown, headers?: unknown) {
    return (status as number) < 400 ? original.call(this, status, reason, headers) : errorHead(this, original, status as number, reason, headers);
  };
}

// How a response is watched. Where the response's prototype belongs to one app or server (Express
// gives every app its own, app.response; agentFriendlyNode gives a node:http server a class of its
// own), the wrappers of writeHead, write and end go on that prototype once, and a response costs
// nothing until its status is known: a success goes straight to the method it stands in front of,
// and only an agent's error gets a capture. Nothing is stored on a success, so it keeps the shape
// node's and the framework's own code saw when they built it (a property added to each response
// costs every later access in that code a few microseconds a request). Elsewhere (node's own
// ServerResponse.prototype, shared by every server in the process, is never changed) an agent's
// response gets the wrappers as its own methods, watched from the start.
type Method = (this: ServerResponse, ...args: unknown[]) => unknown;

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
  capturing: boolean | undefined;
  constructor(
    readonly req: IncomingMessage,
    readonly options: AgentFriendlyOptions,
    readonly original: Originals,
    /** True when the wrappers were set on the response itself, rather than on its app's prototype. */
    readonly own: boolean,
    capturing: boolean | undefined,
  ) {
    this.capturing = capturing;
  }

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
    const cap = this.options.bufferBytes ?? DEFAULT_BUFFER_BYTES;
    if (chunk === undefined || chunk === null || typeof chunk === 'function' || this.kept >= cap) return;
    const buffer = Buffer.isBuffer(chunk)
      ? chunk
      : typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    const part = buffer.subarray(0, cap - this.kept);
    this.chunks.push(part);
    this.kept += part.length;
  }
}

/** Where a wrapper finds a response's capture: on a prototype it may make one, for an agent's error. */
interface Watch {
  /** The capture still watching `res` (status is the one about to be sent), or undefined when `res` goes out as the app writes it. */
  watching(res: ServerResponse, status: number): Capture | undefined;
  /** The method a wrapper stands in front of. */
  original(res: ServerResponse, name: keyof Originals): Method;
}

/**
 * The capture of a response: set when an agent's request came in, on a response that carries the
 * wrappers itself; set when it turns out to be an agent's error, on one whose prototype carries
 * them (a success never gets it). A property rather than an entry in a WeakMap: an entry costs
 * node's garbage collector more than the property does, about 3 us of a converted 404 on node:http.
 */
const CAPTURE = Symbol('agentFriendlyNode.capture');
type Watched = ServerResponse & { [CAPTURE]?: Capture };

const OWN_WATCH: Watch = {
  watching(res) {
    const capture = (res as Watched)[CAPTURE];
    return capture !== undefined && capture.capturing !== false ? capture : undefined;
  },
  original: (res, name) => (res as Watched)[CAPTURE]!.original[name],
};

/** The capture of a response, however it is watched. */
function captureOf(res: ServerResponse): Capture | undefined {
  return (res as Watched)[CAPTURE];
}

/** A capture made the first time an app's response, not yet sent, turns out to be an error for an agent. */
function prototypeWatch(before: Originals, options: AgentFriendlyOptions): Watch {
  return {
    watching(res, status) {
      if (res.headersSent) return undefined;
      const known = captureOf(res);
      if (known !== undefined) return known.capturing === true ? known : undefined;
      if (status < 400 || !isAgentRequest(res.req, optionsOf.get(res) ?? options)) return undefined;
      const capture = new Capture(res.req, optionsOf.get(res) ?? options, before, false, true);
      (res as Watched)[CAPTURE] = capture;
      return capture;
    },
    original: (_res, name) => before[name],
  };
}

function wrappers(watch: Watch): Originals {
  return {
    // Three named parameters, not a rest parameter: writeHead runs on every response, and node's
    // own takes (statusCode, reason, headers) too.
    writeHead(this: ServerResponse, status: unknown, reason?: unknown, headers?: unknown) {
      const capture = watch.watching(this, status as number);
      if (capture === undefined || (status as number) < 400) {
        const original = watch.original(this, 'writeHead');
        capture?.letThrough(this);
        return (status as number) < 400 ? original.call(this, status, reason, headers) : errorHead(this, original, status as number, reason, headers);
      }
      this.statusCode = status as number;
      if (typeof reason === 'string') this.statusMessage = reason;
      applyHeaders(this, typeof reason === 'string' ? headers : reason);
      capture.capturing = true;
      return this;
    },
    write(this: ServerResponse, chunk: unknown, encoding?: unknown, callback?: unknown) {
      const capture = watch.watching(this, this.statusCode);
      const original = watch.original(this, 'write');
      if (capture === undefined || !capture.decide(this)) return original.call(this, chunk, encoding, callback);
      capture.keep(chunk, encoding);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') queueMicrotask(() => (done as Callback)());
      return true;
    },
    end(this: ServerResponse, chunk?: unknown, encoding?: unknown, callback?: unknown) {
      const capture = watch.watching(this, this.statusCode);
      const original = watch.original(this, 'end');
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
  const converted = convertAppError({ status: res.statusCode, headers, body }, req.headers.accept ?? null, baseFor(req, options), options);
  if (converted === null) {
    // Already this contract: out as the app wrote it.
    return original.end.call(res, body ?? undefined, done);
  }
  res.statusCode = converted.status;
  replaceHeaders(res, headers, converted.drop, converted.set, converted.body);
  return original.end.call(res, req.method === 'HEAD' ? undefined : converted.body, done);
}

/** The wrappers set on a response itself: they stand in front of what the response had. */
const OWN = wrappers(OWN_WATCH);
/** Prototypes that carry the wrappers, each with the options of the middleware that put them there. */
const patched = new WeakMap<object, AgentFriendlyOptions>();
/** A response whose middleware has options other than its prototype's (one app, two mounts): the middleware's hold. */
const optionsOf = new WeakMap<ServerResponse, AgentFriendlyOptions>();

/**
 * Puts the wrappers on a prototype that belongs to one app, once; false for node's own prototype,
 * which every server in the process shares.
 */
function patchPrototype(prototype: object | null, options: AgentFriendlyOptions): boolean {
  if (prototype === null || prototype === ServerResponse.prototype || !(prototype instanceof ServerResponse)) return false;
  if (patched.has(prototype)) return true;
  const target = prototype as unknown as Record<keyof Originals, Method>;
  // A prototype above this one may carry the wrappers already (a sub-app's inherits its parent's):
  // they stand behind these, and let through what these have decided.
  const before: Originals = { writeHead: target.writeHead, write: target.write, end: target.end };
  const own = wrappers(prototypeWatch(before, options));
  // A response whose status is below 400 goes straight to the method the wrapper stands in front
  // of, with the arguments it was given: no lookup, and node's own methods see the calls they would
  // without the wrapper. Only a status of 400 or more can have a capture, which keeps that status
  // while it holds the response.
  const { writeHead: head, write: chunk, end: last } = before;
  target.writeHead = function writeHead(this: ServerResponse, status: unknown): unknown {
    return Reflect.apply((status as number) < 400 ? head : own.writeHead, this, arguments);
  };
  target.write = function write(this: ServerResponse): unknown {
    return Reflect.apply(this.statusCode < 400 ? chunk : own.write, this, arguments);
  };
  target.end = function end(this: ServerResponse): unknown {
    return Reflect.apply(this.statusCode < 400 ? last : own.end, this, arguments);
  };
  patched.set(prototype, options);
  return true;
}

/** The prototype patched last, and the options it was patched with: most servers run one app, one mount. */
let lastPrototype: object | null = null;
let lastOptions: AgentFriendlyOptions | null = null;

/**
 * Watches a response for an agent. A success is let through at its first write, untouched; an
 * agent's error (status >= 400) is held, at most `bufferBytes` of its body kept, and converted at
 * its end. With `wholeApp` (a middleware every request of the app passes) and a prototype of the
 * app's own (Express), the wrappers there watch every response of the app, deciding when the status
 * is known, and a response costs nothing until it turns out to be an agent's error. Otherwise (node's
 * own prototype, a middleware mounted on a path, or a response whose methods another middleware has
 * set on it) an agent's response gets the wrappers as its own.
 */
export function captureErrors(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions, wholeApp: boolean): void {
  if (wholeApp && !Object.hasOwn(res, 'end') && !Object.hasOwn(res, 'write') && !Object.hasOwn(res, 'writeHead')) {
    const prototype = Object.getPrototypeOf(res) as object | null;
    if (prototype === lastPrototype && options === lastOptions) return;
    if (patchPrototype(prototype, options)) {
      if (patched.get(prototype!) === options) [lastPrototype, lastOptions] = [prototype, options];
      else optionsOf.set(res, options);
      return;
    }
  }
  if (isAgentRequest(req, options)) watchResponse(req, res, options);
  else watchHead(res);
}

/** Sets the wrappers on one agent's response itself, watching it from the start. */
function watchResponse(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): void {
  const target = res as unknown as Record<keyof Originals, Method>;
  (res as Watched)[CAPTURE] = new Capture(req, options, { writeHead: target.writeHead, write: target.write, end: target.end }, true, undefined);
  target.writeHead = OWN.writeHead;
  target.write = OWN.write;
  target.end = OWN.end;
}

/**
 * How a node response answers a thrown error (see answer): node's own log is console.error, a begun
 * response is cut off as node would, and an answer replaces whatever the app had begun: an error
 * page held for an agent is dropped, and so are the headers it set for that page's body (a
 * Content-Encoding would garble this one).
 */
export function nodeAnswers(req: IncomingMessage, res: ServerResponse, options: AgentFriendlyOptions): Answers<void> {
  return {
    agent: isAgentRequest(req, options),
    accept: req.headers.accept ?? null,
    base: baseFor(req, options),
    log: (error) => console.error(error),
    sent: res.headersSent,
    cut: () => void res.destroy(),
    vary: res.getHeader('vary'),
    send: (rendered) => {
      const capture = captureOf(res);
      if (capture !== undefined) {
        capture.letThrough(res);
        capture.chunks.length = 0;
      }
      sendRendered(req, res, rendered, ENTITY_HEADERS);
    },
  };
}

/** Servers given a response class of their own, or found without one to swap. */
const ownClass = new WeakSet<object>();

/**
 * Gives the node:http server of `res` a response class of its own (a subclass of the one it
 * uses), so that the wrappers can go on a prototype no other server shares, as Express gives each
 * app one: from the next request on, a success costs one status check, as on Express. node keeps
 * the class under a symbol of the server's named "ServerResponse" (what the ServerResponse option
 * of http.createServer sets); where there is none, responses keep being watched one by one.
 */
function giveOwnClass(req: IncomingMessage, res: ServerResponse): void {
  const server = (req.socket as { server?: object } | undefined)?.server;
  if (server === undefined || server === null || ownClass.has(server)) return;
  ownClass.add(server);
  const key = Object.getOwnPropertySymbols(server).find((symbol) => symbol.description === 'ServerResponse');
  const Base = key === undefined ? undefined : (server as Record<symbol, unknown>)[key];
  if (typeof Base !== 'function' || !(res instanceof Base) || !(Base === ServerResponse || Base.prototype instanceof ServerResponse)) return;
  (server as Record<symbol, unknown>)[key!] = class AgentFriendlyResponse extends (Base as typeof ServerResponse) {};
}

/**
 * Wraps a node:http request listener: agents get this contract for the app's error responses and
 * thrown errors; browsers get the app's own pages, byte for byte, and a thrown AgentError's page;
 * any other thrown error goes to onError, else to console.error, and then, for a browser, on to
 * the server as it would without the wrapper (its last resort answers it). After the first request, the
 * server's responses are of a class of its own whose prototype carries the wrappers (see
 * giveOwnClass); node's own ServerResponse.prototype is never changed.
 * @example http.createServer(agentFriendlyNode(app)).listen(3000);
 */
export function agentFriendlyNode(handler: Listener, options: AgentFriendlyOptions = {}): Listener {
  checkOptions('agentFriendlyNode', options);
  // A browser's failure goes on to the server's own last resort, as it would without the wrapper (told to the site first).
  const failed = (req: IncomingMessage, res: ServerResponse, error: unknown): unknown =>
    answer(
      error,
      {
        ...nodeAnswers(req, res, options),
        failed: () => {
          throw error;
        },
      },
      options,
    );
  const handle = (req: IncomingMessage, res: ServerResponse): unknown => {
    giveOwnClass(req, res);
    captureErrors(req, res, options, true);
    // Synchronous unless the app is: an await per request costs a plain listener a tenth of its speed.
    try {
      const result = handler(req, res);
      if (result instanceof Promise) return result.then(undefined, (error: unknown) => failed(req, res, error));
      return result;
    } catch (error) {
      return failed(req, res, error);
    }
  };
  return (req, res) => {
    if (!mayBeDocs(options, req.url ?? '')) return handle(req, res);
    return serveDocs(req, res, options).then((served) => (served ? undefined : handle(req, res)));
  };
}
