// agentUndici: the client's rules as an undici interceptor, so one line gives every
// fetch of a process (Node's own included, and the SDKs that call it) what agentFetch gives
// one SDK:
//
//   setGlobalDispatcher(new Agent().compose(agentUndici()));
//
// A success passes through as it arrives. An error response is held while at most MAX_BODY_BYTES
// of its body are read and classified; then it is either sent again after the wait the rules allow
// (the held response dropped), or handed to the caller whole: the bytes held, then the rest as it
// arrives. Only undici's types are imported: the module loads without undici installed.
import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import type { EnvelopeError } from '../../generated/types.js';
import { fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
import { readable } from './inflate.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { headerRecord, keptAnswer, memoryAnswer } from './answers.js';
import { admit, allowance, drawRetry, freshAttempts, isIdempotent, maySayError, nextWait, payWith, PLUGIN_CHECKS, resolveOptions, saysError, settle, type AgentClientOptions, type Allowance, type Pass, type PaymentHeaders, type Resolved } from './policy.js';
import type { KeptAnswer, Learnt } from './store.js';

/**
 * Options of agentUndici: the client's, less the fetch to call and the Accept to send. With
 * errorsIn2xx (default false), a success that may carry an error (maySayError) is held and read
 * like an error response, and handed over byte for byte when it carries none.
 */
export type AgentUndiciOptions = Omit<AgentClientOptions, 'fetch' | 'accept'>;

type Handler = Dispatcher.DispatchHandler;
type Controller = Dispatcher.DispatchController;
type Options = Dispatcher.DispatchOptions;
/** How a response ended: its trailers, or an error. */
type Ending = { readonly trailers: IncomingHttpHeaders } | { readonly error: Error };

/**
 * The most bytes of a streamed request body kept to send it again. fetch hands undici every body,
 * a string's included, as an async iterable; a longer one is sent once and never repeated.
 */
const MAX_REPLAY_BYTES = 8 * 1024 * 1024;

/** undici's request headers as isIdempotent reads them: a flat list [name, value, ...] made pairs; a record or pairs as they are. */
function fieldsOf(headers: Options['headers']): HeadersInput {
  if (!Array.isArray(headers) || headers.every(Array.isArray)) return headers as HeadersInput;
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < headers.length; i += 2) pairs.push([String(headers[i]), String(headers[i + 1])]);
  return pairs;
}

/** Request headers with the payment hook's set on them (replacing any of the same name), as the flat list undici takes. */
function withPaid(headers: Options['headers'], paid: PaymentHeaders): string[] {
  const replaced = new Set(Object.keys(paid).map((name) => name.toLowerCase()));
  const flat: string[] = [];
  const source = fieldsOf(headers);
  if (source !== null && source !== undefined && typeof source === 'object') {
    const entries: Iterable<readonly [unknown, unknown]> = Symbol.iterator in source ? (source as Iterable<readonly [unknown, unknown]>) : Object.entries(source);
    for (const [name, value] of entries) {
      if (replaced.has(String(name).toLowerCase())) continue;
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined && one !== null) flat.push(String(name), String(one));
    }
  }
  for (const [name, value] of Object.entries(paid)) flat.push(name, value);
  return flat;
}

/** The body of a request and how to send it again: as it is (none, a string, bytes), as recorded (an async iterable, fetch's), or never (a stream, a form). */
function replayable(body: Options['body']): { first: Options['body']; again: () => Options['body'] | undefined } {
  // No body is sent again as null: `again` answers undefined only for a body that cannot be repeated.
  if (body === null || body === undefined) return { first: body, again: () => null };
  if (typeof body === 'string' || body instanceof Uint8Array) return { first: body, again: () => body };
  const source = body as unknown as AsyncIterable<unknown> & { on?: unknown; pipeTo?: unknown };
  if (typeof source[Symbol.asyncIterator] !== 'function' || typeof source.on === 'function' || typeof source.pipeTo === 'function') {
    return { first: body, again: () => undefined };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let complete = false;
  async function* recorded(): AsyncGenerator<unknown> {
    for await (const chunk of source) {
      if (size <= MAX_REPLAY_BYTES) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
        chunks.push(bytes);
        size += bytes.length;
      }
      yield chunk;
    }
    complete = true;
  }
  return { first: recorded() as unknown as Options['body'], again: () => (complete && size <= MAX_REPLAY_BYTES ? Buffer.concat(chunks) : undefined) };
}

/** The URL a dispatch goes to, or null when it names no origin (a Client's, composed directly). */
function urlOf(origin: string | URL, path: string): URL | null {
  try {
    return new URL(path, new URL(String(origin)).origin);
  } catch {
    return null;
  }
}

/** The controller the caller's handler holds for the whole exchange, whichever call is current. */
class Relay implements Controller {
  /** The current call's controller. */
  target: Controller | null = null;
  /** The interceptor holds the current response while it decides what to do with it. */
  held = false;
  #paused = false;
  constructor(private readonly stop: AbortController) {}
  get aborted(): boolean {
    return this.stop.signal.aborted;
  }
  get reason(): Error | null {
    return this.aborted ? (this.stop.signal.reason as Error) : null;
  }
  get paused(): boolean {
    return this.#paused;
  }
  get rawHeaders(): Controller['rawHeaders'] {
    return this.target?.rawHeaders;
  }
  get rawTrailers(): Controller['rawTrailers'] {
    return this.target?.rawTrailers;
  }
  pause(): void {
    this.#paused = true;
    this.target?.pause();
  }
  resume(): void {
    this.#paused = false;
    if (!this.held) this.target?.resume();
  }
  abort(reason: Error): void {
    if (this.aborted) return;
    this.stop.abort(reason);
    this.target?.abort(reason);
  }
}

/** The shared parts of every exchange of one interceptor: its options, resolved once. */
type Rules = Resolved;

/** One request of the caller's, across the calls the rules allow it. */
class Exchange {
  readonly stop = new AbortController();
  readonly relay = new Relay(this.stop);
  readonly url: URL | null;
  /** What the request's waits and quota are kept under, null without an origin. */
  readonly key: string | null;
  readonly body: ReturnType<typeof replayable>;
  readonly allowed: Allowance;
  readonly attempts = freshAttempts();
  /** What the store let the current call do, until its answer is reported. */
  #pass: Pass | null = null;
  #started = false;
  #finished = false;

  constructor(
    readonly rules: Rules,
    readonly dispatch: Dispatcher.Dispatch,
    readonly opts: Options,
    readonly caller: Handler,
  ) {
    this.url = opts.origin ? urlOf(opts.origin, opts.path) : null;
    this.key = this.url && rules.scopeOf(this.url);
    this.body = replayable(opts.body);
    this.allowed = allowance(rules.options, isIdempotent(opts.method, fieldsOf(opts.headers)));
  }

  /** The first call, after what the store says of the site: a wait or a spent quota slept out, another caller's probe followed, or an answer from memory. */
  async run(): Promise<void> {
    try {
      await this.admitted(this.body.first);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  /** Sends the request once more, after `seconds` and what the store then says; with the headers that pay it, after a 402 the hook paid. */
  async again(seconds: number, body: Options['body'], paid: PaymentHeaders | null = null): Promise<void> {
    try {
      await this.rules.sleep(seconds * 1000, this.stop.signal);
      if (this.stop.signal.aborted) throw this.stop.signal.reason;
      await this.admitted(body, paid);
    } catch (error) {
      this.fail(error as Error);
    }
  }

  async admitted(body: Options['body'], paid: PaymentHeaders | null = null): Promise<void> {
    if (this.key !== null) {
      const { rules } = this;
      const answer = await admit({ store: rules.store, key: this.key, url: this.url!, attempts: this.attempts, allowed: this.allowed, now: rules.now, sleep: rules.sleep, signal: this.stop.signal });
      if ('error' in answer) return this.fromMemory(answer.error, answer.answer, answer.learnt);
      this.#pass = answer.pass;
    }
    this.call(body, paid);
  }

  call(body: Options['body'], paid: PaymentHeaders | null = null): void {
    this.attempts.calls += 1;
    this.dispatch(paid ? { ...this.opts, body, headers: withPaid(this.opts.headers, paid) } : { ...this.opts, body }, new Call(this));
  }

  /** Reports the current call's answer to the store, once: what it asked for and announced, or that none came. */
  report(headers: IncomingHttpHeaders | undefined, error?: EnvelopeError, answer?: KeptAnswer, status?: number): Promise<void> | void {
    const pass = this.#pass;
    this.#pass = null;
    if (pass !== null) return settle(this.rules.store, this.key!, pass, headers && { status, headers }, error, this.rules.now(), answer, this.url ?? undefined);
  }

  /**
   * What to do after an error response: the seconds to wait before sending the request again (and
   * the body to send), or null to hand the response over. Never throws.
   */
  async judge(status: number, headers: IncomingHttpHeaders, held: Buffer, whole: boolean): Promise<{ seconds: number; body: Options['body']; paid?: PaymentHeaders } | null> {
    try {
      // The names as a dispatcher gives them, in whatever case a handler before this one wrote them.
      const fields = toHeaders(headers);
      const body = await readable(held, fields.get('content-encoding') ?? undefined);
      // A success held because it may carry an error, and carrying none, is handed over as it came.
      if (status < 400 && !saysError(body, whole && body !== null)) {
        await this.report(headers, undefined, undefined, status);
        return null;
      }
      const { error } = fromResponse(status, headers, body, { now: this.rules.now() });
      await this.report(headers, error, keptAnswer(status, headers, body, whole && body !== null), status);
      const again = this.body.again();
      if (again === undefined) return null;
      // A 402 that says what to pay: the agent's hook decides, once per request.
      const paid = await payWith('agentUndici', this.rules.options.onPaymentRequired, error, this.attempts, this.allowed, { url: this.url?.href ?? String(this.opts.path), method: this.opts.method });
      if (paid) return { seconds: 0, body: again, paid };
      const seconds = nextWait(error, this.attempts, this.allowed);
      // A retry of the package's own draws from the scope's budget; spent, the response is handed over.
      if (seconds === null || (await drawRetry(this.rules.store, this.key!, this.attempts))) return null;
      return { seconds, body: again };
    } catch (error) {
      // The hook's own failure (or refused headers) ends the request with it, as on every other host.
      if (this.paymentFailure === undefined && error instanceof Error && this.attempts.paid) this.paymentFailure = error;
      return null;
    }
  }

  /** What the payment hook threw (or why its headers were refused), which ends the request. */
  paymentFailure: Error | undefined;

  start(context: unknown): void {
    if (this.#started) return;
    this.#started = true;
    this.caller.onRequestStart?.(this.relay, context);
  }

  /** Ends the caller's response, once: with its trailers, or with an error. */
  close(ending: Ending): void {
    if (this.#finished) return;
    this.#finished = true;
    if ('trailers' in ending) this.caller.onResponseEnd?.(this.relay, ending.trailers);
    else this.caller.onResponseError?.(this.relay, ending.error);
  }

  fail(error: Error): void {
    this.close({ error });
  }

  /** The answer to a wait still running and too long to take, without a call: what the site said, or the envelope. */
  fromMemory(error: EnvelopeError, answer: KeptAnswer | undefined, learnt: Learnt | undefined): void {
    const { status, headers, body } = memoryAnswer(error, answer, learnt);
    this.start({});
    this.caller.onResponseStart?.(this.relay, status, headerRecord(headers), STATUS_CODES[status]);
    this.caller.onResponseData?.(this.relay, Buffer.from(body));
    this.close({ trailers: {} });
  }
}

/**
 * One call's handler: a success passes through; an error response is held while its first
 * MAX_BODY_BYTES are read, then dropped for another call or handed over whole.
 */
class Call implements Handler {
  #mode: 'pass' | 'read' | 'decide' | 'drop' = 'pass';
  #answered = false;
  #controller: Controller | null = null;
  #status = 0;
  #headers: IncomingHttpHeaders = {};
  #message: string | undefined;
  #held: Buffer[] = [];
  #size = 0;
  /** How the held response ended while it was being judged. */
  #ended: Ending | null = null;
  /** Cuts the reading of an error body at bodyTimeoutSeconds. */
  #deadline: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly exchange: Exchange) {}

  onRequestStart(controller: Controller, context: unknown): void {
    const { exchange } = this;
    this.#controller = controller;
    exchange.relay.target = controller;
    exchange.start(context);
    if (exchange.stop.signal.aborted) controller.abort(exchange.stop.signal.reason as Error);
  }

  onRequestUpgrade(_controller: Controller, status: number, headers: IncomingHttpHeaders, socket: Parameters<NonNullable<Handler['onRequestUpgrade']>>[3]): void {
    this.exchange.caller.onRequestUpgrade?.(this.exchange.relay, status, headers, socket);
  }

  onResponseStart(_controller: Controller, status: number, headers: IncomingHttpHeaders, message?: string): void {
    this.#answered = true;
    const { exchange } = this;
    if (status < 400 && !(exchange.rules.options.errorsIn2xx === true && maySayError(exchange.opts.method, status, toHeaders(headers).get('content-type')))) {
      void this.exchange.report(headers);
      return this.exchange.caller.onResponseStart?.(this.exchange.relay, status, headers, message);
    }
    this.#mode = 'read';
    this.#status = status;
    this.#headers = headers;
    this.#message = message;
    // A body that drips, or stalls after its headers, is judged on what arrived by the deadline.
    this.#deadline = setTimeout(() => {
      if (this.#mode !== 'read') return;
      this.exchange.relay.held = true;
      this.#controller?.pause();
      void this.#decide();
    }, exchange.rules.bodyTimeoutMs);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.#mode === 'pass') return this.exchange.caller.onResponseData?.(this.exchange.relay, chunk);
    if (this.#mode === 'drop') return;
    this.#held.push(chunk);
    this.#size += chunk.length;
    if (this.#mode === 'read' && this.#size >= MAX_BODY_BYTES) {
      // Enough to classify: stop reading until it is decided.
      this.exchange.relay.held = true;
      controller.pause();
      void this.#decide();
    }
  }

  onResponseEnd(_controller: Controller, trailers: IncomingHttpHeaders): void {
    this.#close({ trailers });
  }

  onResponseError(_controller: Controller, error: Error): void {
    this.#close({ error });
  }

  #close(ending: Ending): void {
    // A call that failed before its answer began frees its probe for another caller.
    if (!this.#answered) void this.exchange.report(undefined);
    if (this.#mode === 'pass') return this.exchange.close(ending);
    if (this.#mode === 'drop') return;
    this.#ended = ending;
    if (this.#mode === 'read') void this.#decide();
  }

  async #decide(): Promise<void> {
    this.#mode = 'decide';
    clearTimeout(this.#deadline);
    const { exchange } = this;
    const whole = this.#ended !== null && 'trailers' in this.#ended;
    const next = await exchange.judge(this.#status, this.#headers, Buffer.concat(this.#held), whole);
    if (next === null && exchange.paymentFailure !== undefined) exchange.relay.abort(exchange.paymentFailure);
    if (next === null && !exchange.stop.signal.aborted) return this.#handOver();
    // Sent again, or the caller gave up: what is left of this response is not read.
    this.#mode = 'drop';
    this.#held = [];
    exchange.relay.target = null;
    if (this.#ended === null) this.#controller?.abort(new Error('agent-errors: the response was dropped'));
    if (next === null) return exchange.fail(exchange.stop.signal.reason as Error);
    return exchange.again(next.seconds, next.body, next.paid ?? null);
  }

  /** The response to the caller, whole: the bytes held, then how it ended or the rest as it arrives. */
  #handOver(): void {
    const { exchange } = this;
    const { caller, relay } = exchange;
    this.#mode = 'pass';
    const held = this.#held;
    this.#held = [];
    try {
      caller.onResponseStart?.(relay, this.#status, this.#headers, this.#message);
      for (const chunk of held) caller.onResponseData?.(relay, chunk);
    } catch (error) {
      // As undici does when a handler throws: the response fails with what it threw.
      if (this.#ended === null) return this.#controller?.abort(error as Error);
      return exchange.fail(error as Error);
    }
    if (this.#ended !== null) return exchange.close(this.#ended);
    relay.held = false;
    if (!relay.paused) this.#controller?.resume();
  }
}

/**
 * An undici interceptor that follows the client's rules for every request through the dispatcher
 * it is composed into: it waits a delay out once, told (in a header or in the first MAX_BODY_BYTES
 * of the body) or remembered, when it is at most `maxWaitSeconds`; retries a `once` error one time
 * for idempotent requests; remembers what each origin asked for; and hands everything else over as
 * the site sent it. Successes stream through unbuffered. A wait still running and too long to take
 * is answered without a call, from the envelope, with `Agent-Errors-Source: memory`. A request whose
 * body cannot be sent again (a stream, or a fetch body over MAX_REPLAY_BYTES) is sent once.
 * @example setGlobalDispatcher(new Agent().compose(agentUndici()));
 */
export function agentUndici(options: AgentUndiciOptions = {}): Dispatcher.DispatcherComposeInterceptor {
  const rules: Rules = resolveOptions('agentUndici', options, PLUGIN_CHECKS);
  return (dispatch) =>
    function agentErrors(opts: Options, handler: Handler): boolean {
      // An upgrade (a WebSocket, CONNECT) is no request to repeat.
      if (opts.upgrade || opts.method === 'CONNECT') return dispatch(opts, handler);
      void new Exchange(rules, dispatch, opts, handler).run();
      return true;
    };
}
