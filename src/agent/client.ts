// The agent client: calls a site, reads every failure as an envelope, waits only when told and only
// as long as told, and remembers what each origin asked for.
import { READERS, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { lookup } from '../core/catalog.js';
import { fromResponse } from '../core/from-response.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { quotaFrom } from '../core/quota.js';
import { defaultStore, type Admission, type Backoff, type Store } from './store.js';

/**
 * Every failure the agent side hands back, from createAgentClient and agentFetch alike (and, as
 * agentErrorOf's answer, from createAgentFetch): the envelope's error and what to do about it. Each
 * adds its own members beside these: the client the response, the fetcher the status.
 */
export interface AgentFailure {
  readonly ok: false;
  /** The envelope's error: code, message, field, retry word and delay (and every field at fault in `errors`). */
  readonly error: EnvelopeError;
  /** The catalog's advice for the code. */
  readonly advice: string;
  /** True when the answer came from the store, without calling the site. */
  readonly remembered?: boolean;
}

/** What the client returns: the response, or an error with what to do about it. */
export type AgentResult =
  | { readonly ok: true; readonly response: Response }
  | (AgentFailure & {
      /** The site's response (its body unread), when the site answered. */
      readonly response?: Response;
    });

/** Options of createAgentClient and createAgentFetch. */
export interface AgentClientOptions {
  /** The fetch to call. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** The most seconds one request sleeps in all, told or remembered; a longer wait is handed back at once. @default 30 */
  readonly maxWaitSeconds?: number;
  /** The most calls one request may make. @default 2 */
  readonly budget?: number;
  /** Waits `ms`, or rejects when `signal` aborts. @default a timer */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** The clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
  /** Where origin delays are remembered; share one to share what was learnt. @default the process-wide memory store */
  readonly store?: Store;
  /**
   * The Accept header sent when a request has none, or false to send none of its own. The default
   * ranks JSON and problem details above HTML, which marks the caller as an agent to sites that
   * negotiate errors (an AgentFriendly site answers it with this contract instead of its error page).
   * @default AGENT_ACCEPT
   */
  readonly accept?: string | false;
  /**
   * What to do when a site says to wait and not for how long: hand the error back (seed 000), or
   * back off on DEFAULT_BACKOFF's doubling schedule within the budget and maxWaitSeconds.
   * @default 'hand_back'
   */
  readonly unknownDelay?: 'hand_back' | 'backoff';
  /**
   * What shares a site's waits and quota: its origin, or a URL prefix such as
   * `https://api.github.com/search` for a site whose limits differ by API (a request under
   * several takes the longest), or a function from the URL to a key. @default the origin
   */
  readonly scope?: readonly string[] | ((url: URL) => string);
}

/** The Accept an agent client sends by default: data first, pages after, anything last. */
export const AGENT_ACCEPT = 'application/json, application/problem+json, text/markdown, text/html;q=0.9, */*;q=0.8';

/** `init` with `accept` as its Accept header, unless it already has one. */
function withAccept(init: RequestInit | undefined, accept: string): RequestInit {
  const headers = init?.headers;
  if (headers === undefined || headers === null) return { ...init, headers: { accept } };
  const merged = new Headers(headers);
  if (!merged.has('accept')) merged.set('accept', accept);
  return { ...init, headers: merged };
}

/** A client that reads every failure as an envelope. */
export interface AgentClient {
  fetch(input: string | URL | Request, init?: RequestInit): Promise<AgentResult>;
}

// RFC 9110 section 9.2.2: methods whose repetition has the same effect as one request.
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** Whether a request may be sent twice: an idempotent method (RFC 9110 section 9.2.2), or an Idempotency-Key header. */
export function isIdempotent(method: string | undefined, headers?: HeadersInput): boolean {
  return IDEMPOTENT.has((method ?? 'GET').toUpperCase()) || (headers !== undefined && headers !== null && toHeaders(headers).has('idempotency-key'));
}

/** A timer that an AbortSignal can cancel. */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a failed connection was, in words, from undici's error causes. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; name?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const name = (error as { name?: string })?.name;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name did not resolve';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the request timed out';
    default:
      return name === 'TimeoutError' ? 'the request timed out' : 'the request failed before a response arrived';
  }
}

/** The envelope error for a request that got no response. */
export function networkError(url: URL, error: unknown): EnvelopeError {
  const code = READERS.signals.network_failure;
  return { code, message: `${url.host}: ${networkReason(error)}`, field: null, retry: lookup(code).retry, retry_after: null };
}

/**
 * A store call whose failure, thrown or rejected, counts as `otherwise`: no request fails because
 * its store did. A synchronous store's answer comes back as it is, without a promise.
 */
export function fromStore<T>(call: () => Promise<T> | T, otherwise: T): Promise<T> | T {
  try {
    const answer = call();
    return answer instanceof Promise ? answer.then(undefined, () => otherwise) : answer;
  } catch {
    return otherwise;
  }
}

/** The backoff an agent guesses with when it was told to wait and not how long, in seconds: doubling from one (seed 002). */
export const DEFAULT_BACKOFF = [1, 2, 4, 8, 16, 32, 64] as const;

/**
 * How one request ended: the site's last response (its body unread) and, when it failed, the error;
 * or an error from memory with no call made; or what the call threw, when no response arrived.
 */
export interface Outcome {
  readonly url: URL;
  readonly response?: Response;
  readonly error?: EnvelopeError;
  readonly remembered?: boolean;
  readonly thrown?: unknown;
}

/** What the rules allow one request, from its options. */
export interface Allowance {
  readonly budget: number;
  readonly maxWait: number;
  readonly backoff: boolean;
  /** The request may be sent twice: an idempotent method, or an Idempotency-Key. */
  readonly idempotent: boolean;
}

/** One request's progress under the rules. */
export interface Attempts {
  calls: number;
  slept: number;
  waited: boolean;
  retriedOnce: boolean;
  guesses: number;
}

/** A request's progress before its first call. */
export const freshAttempts = (): Attempts => ({ calls: 0, slept: 0, waited: false, retriedOnce: false, guesses: 0 });

/** The allowance of `options`, for a request that is or is not idempotent. */
export function allowance(options: AgentClientOptions, idempotent: boolean): Allowance {
  return { budget: Math.max(1, Math.floor(options.budget ?? 2)), maxWait: options.maxWaitSeconds ?? 30, backoff: options.unknownDelay === 'backoff', idempotent };
}

/** Takes `seconds` of sleep from the allowance when all the sleeping stays within maxWait. */
function take(seconds: number, attempts: Attempts, allowed: Allowance): number | null {
  if (attempts.slept + seconds > allowed.maxWait) return null;
  attempts.slept += seconds;
  return seconds;
}

/** The seconds to sleep out a wait the origin asked for earlier before calling it, or null to hand it back from memory. */
function rememberedWait(left: number, attempts: Attempts, allowed: Allowance): number | null {
  const seconds = take(left, attempts, allowed);
  if (seconds !== null) attempts.waited = true;
  return seconds;
}

/**
 * The rules after an error response: the seconds to sleep before calling again, or null to hand
 * the error back. Wait a told delay once; guess on the doubling schedule only with backoff; retry a
 * `once` word one time, for an idempotent request only; all the sleeping within maxWait, all the
 * calls within the budget.
 */
export function nextWait(error: EnvelopeError, attempts: Attempts, allowed: Allowance): number | null {
  if (attempts.calls >= allowed.budget) return null;
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  if (word.requires.includes('retry_after')) {
    if (error.retry_after === null) {
      // Told to wait, not how long: hand it back (seed 000), or guess on the doubling schedule.
      return allowed.backoff ? take(DEFAULT_BACKOFF[Math.min(attempts.guesses++, DEFAULT_BACKOFF.length - 1)]!, attempts, allowed) : null;
    }
    // Wait when told how long, once, and never past maxWait in all (seed 000).
    if (attempts.waited) return null;
    const seconds = take(error.retry_after, attempts, allowed);
    if (seconds !== null) attempts.waited = true;
    return seconds;
  }
  // Retry once, and only what can safely be repeated (RFC 9110 section 9.2.2).
  if (word.next_step !== 'wait' || attempts.retriedOnce || (word.idempotent_only && !allowed.idempotent)) return null;
  const seconds = take(error.retry_after ?? word.default_retry_after ?? 0, attempts, allowed);
  if (seconds !== null) attempts.retriedOnce = true;
  return seconds;
}

/** The wait an error asks for, as a backoff, when it says how long. */
function toldWait(error: EnvelopeError | undefined, now: number): Backoff | undefined {
  const word: RetryWordEntry | undefined = error && RETRY_WORDS[error.retry];
  return error && error.retry_after !== null && word!.requires.includes('retry_after') ? { until: now + error.retry_after * 1000, error } : undefined;
}

/** Remembers for the origin a wait an error asked for, when it says how long. */
export function remember(store: Store, origin: string, error: EnvelopeError, now: number): Promise<void> | void {
  const told = toldWait(error, now);
  if (told) return fromStore(() => store.setBackoff(origin, told), undefined);
}

/**
 * The key a request's waits and quota are kept under: its origin, or the longest `scope` prefix it
 * falls under (whole path segments only), or what a scope function says. A prefix that is not an
 * absolute http(s) URL is refused here, naming it.
 */
export function scoper(scope: AgentClientOptions['scope']): (url: URL) => string {
  if (typeof scope === 'function') {
    return (url) => {
      try {
        const key = scope(url);
        if (typeof key === 'string' && key !== '') return key;
      } catch {}
      return url.origin;
    };
  }
  const prefixes = (scope ?? [])
    .map((entry) => {
      const parsed = URL.canParse(entry) ? new URL(entry) : null;
      if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.search || parsed.hash) throw new TypeError(`scope: ${JSON.stringify(entry)} is not an http(s) URL prefix such as https://api.example.com/search`);
      const path = parsed.pathname.replace(/\/+$/, '');
      return { origin: parsed.origin, path, key: parsed.origin + path };
    })
    .sort((a, b) => b.path.length - a.path.length);
  if (prefixes.length === 0) return (url) => url.origin;
  return (url) => {
    for (const p of prefixes) if (p.origin === url.origin && (url.pathname === p.path || url.pathname.startsWith(`${p.path}/`))) return p.key;
    return url.origin;
  };
}

/** How often a caller looks whether another caller's probe has answered, in ms. */
const FOLLOW_MS = 100;
/** A running wait at most this long is the end of the one a caller already slept out, and is slept too. */
const TAIL_MS = 1000;

/** What the store let a call do, to report with its answer. */
export type Pass = Extract<Admission, { kind: 'call' }>;

const CALL: Pass = { kind: 'call' };

/** A store without admit, asked as before: a running wait, or a call. */
function admission(store: Store, key: string): Promise<Admission> | Admission {
  if (store.admit) return store.admit(key);
  const backoff = store.getBackoff(key);
  const answer = (b: Backoff | undefined): Admission => (b ? { kind: 'wait', until: b.until, error: b.error } : CALL);
  return backoff instanceof Promise ? backoff.then(answer) : answer(backoff);
}

/** The error a spent quota is handed back with. */
function quotaError(url: URL, seconds: number, limit: number | undefined): EnvelopeError {
  const code = READERS.signals.rate_limit_headers;
  const per = limit === undefined ? '' : ` of ${limit} requests`;
  return { code, message: `${url.host}: the quota${per} the site announced is spent until it resets`, field: null, retry: lookup(code).retry, retry_after: seconds };
}

/** One request before a call: its store and key, its URL, its progress under the rules, and how it sleeps. */
export interface Gate {
  readonly store: Store;
  readonly key: string;
  readonly url: URL;
  readonly attempts: Attempts;
  readonly allowed: Allowance;
  readonly now: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Before each call, what the store says: call (perhaps as the one probe after a shared wait, or
 * counting against an announced quota); sleep out a running wait (once, as a told one) or a spent
 * quota; or wait on another caller's probe, looking every FOLLOW_MS. All the sleeping stays within
 * maxWaitSeconds; a wait that does not fit is handed back as an error from memory.
 */
export function admit(gate: Gate): Promise<Admitted> | Admitted {
  // A synchronous store's "call" comes back without a promise: most calls pass straight through.
  const first = fromStore(() => admission(gate.store, gate.key), CALL);
  if (!(first instanceof Promise) && first.kind === 'call') return { pass: first };
  return admitSlowly(first, gate);
}

/** What admit answers: a pass to call with, or an error to hand back. */
export type Admitted = { pass: Pass } | { error: EnvelopeError };

async function admitSlowly(first: Promise<Admission> | Admission, { store, key, url, attempts, allowed, now, sleep, signal }: Gate): Promise<Admitted> {
  for (let next = first; ; next = fromStore(() => admission(store, key), CALL)) {
    const a = await next;
    if (a.kind === 'call') return { pass: a };
    const ms = a.until - now();
    if (!(ms > 0)) return { pass: CALL };
    const left = Math.ceil(ms / 1000);
    let sleepMs: number | null;
    if (a.kind === 'wait') {
      // A wait not yet slept is slept in whole seconds, as a told one; the tail of the one this
      // request already slept (another caller's copy of it, a moment longer) is slept as it is.
      sleepMs = !attempts.waited ? secondsOf(rememberedWait(left, attempts, allowed)) : ms <= TAIL_MS ? secondsOf(take(ms / 1000, attempts, allowed)) : null;
    } else {
      sleepMs = secondsOf(take(Math.min(ms, a.kind === 'follow' ? FOLLOW_MS : ms) / 1000, attempts, allowed));
    }
    // Handed back: a follower is told to look again in a second, when the probe may have answered.
    if (sleepMs === null) return { error: a.kind === 'hold' ? quotaError(url, left, a.limit) : { ...a.error, retry_after: a.kind === 'follow' ? 1 : left } };
    await sleep(sleepMs, signal);
  }
}

const secondsOf = (seconds: number | null): number | null => (seconds === null ? null : seconds * 1000);

/**
 * After a call: tells the store what the answer said (the wait it asked for, the quota it
 * announced) and releases the call's probe lease. A store without settle is told the wait alone.
 */
export function settle(store: Store, key: string, pass: Pass, response: { readonly headers: HeadersInput } | undefined, error: EnvelopeError | undefined, now: number): Promise<void> | void {
  const wait = toldWait(error, now);
  if (!store.settle) return wait && fromStore(() => store.setBackoff(key, wait), undefined);
  const quota = response ? quotaFrom(response.headers, now) : null;
  if (pass.probe === undefined && pass.counted === undefined && !wait && !quota) return;
  return fromStore(() => store.settle!(key, { admitted: pass, answered: response !== undefined, ...(wait ? { wait } : {}), ...(quota ? { quota } : {}) }), undefined);
}

/**
 * The rules of the client and of createAgentFetch, as one function from a request to its outcome:
 * wait a delay out once, told or remembered, when all the sleeping stays within maxWaitSeconds;
 * retry a `once` error one time, for an idempotent request only; remember what each origin asked
 * for; call at most `budget` times; hand back everything else.
 */
export function createRunner(options: AgentClientOptions = {}): (input: string | URL | Request, init?: RequestInit) => Promise<Outcome> {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const store = options.store ?? defaultStore();
  const accept = options.accept ?? AGENT_ACCEPT;
  const scopeOf = scoper(options.scope);
  // The init of a request made with none, built once: fetch does not change what it is given.
  const acceptOnly: RequestInit | undefined = accept === false ? undefined : { headers: { accept } };

  return async (input, init) => {
    // A bodiless string or URL request is sent again as it is; anything else becomes one Request,
    // cloned per attempt only when it has a body to resend. Each extra Request costs a loopback call ~10%.
    let url: URL;
    let signal: AbortSignal | undefined;
    let idempotent: boolean;
    let send: () => Promise<Response>;
    if ((typeof input === 'string' || input instanceof URL) && (init?.body === undefined || init.body === null)) {
      url = new URL(String(input));
      signal = init?.signal ?? undefined;
      idempotent = isIdempotent(init?.method, init?.headers as HeadersInput | undefined);
      const sent = accept === false ? init : init === undefined ? acceptOnly : withAccept(init, accept);
      send = () => fetchImpl(input, sent);
    } else {
      const request = new Request(input, init);
      if (accept !== false && !request.headers.has('accept')) request.headers.set('accept', accept);
      url = new URL(request.url);
      signal = request.signal;
      idempotent = isIdempotent(request.method, request.headers);
      send = () => fetchImpl(request.body === null ? request : request.clone());
    }
    const allowed = allowance(options, idempotent);
    const attempts = freshAttempts();

    const key = scopeOf(url);

    for (;;) {
      // What the site asked for earlier, of this process or (through a shared store) of another
      // one: a running wait slept out like a told one when it fits, another caller's probe
      // followed, a spent quota waited out; handed back from memory when it does not fit.
      let admitted = admit({ store, key, url, attempts, allowed, now, sleep, signal });
      if (admitted instanceof Promise) admitted = await admitted;
      if ('error' in admitted) return { url, error: admitted.error, remembered: true };
      attempts.calls += 1;
      let response: Response;
      try {
        response = await send();
      } catch (error) {
        await settle(store, key, admitted.pass, undefined, undefined, now());
        if (signal?.aborted) throw signal.reason;
        return { url, thrown: error, error: networkError(url, error) };
      }
      if (response.status < 400) {
        const settled = settle(store, key, admitted.pass, response, undefined, now());
        if (settled) await settled;
        return { url, response };
      }

      const copy = response.clone();
      const { error } = fromResponse(response.status, response.headers, await response.text().catch(() => null), { now: now() });
      await settle(store, key, admitted.pass, copy, error, now());
      const seconds = nextWait(error, attempts, allowed);
      if (seconds === null) return { url, response: copy, error };
      await sleep(seconds * 1000, signal);
    }
  };
}

const failure = (error: EnvelopeError, response?: Response, remembered?: boolean): AgentResult => ({
  ok: false,
  error,
  advice: lookup(error.code).advice,
  ...(response ? { response } : {}),
  ...(remembered ? { remembered } : {}),
});

/**
 * Creates a client that waits a delay out once when it is at most `maxWaitSeconds`, retries a
 * `once` error one time for idempotent requests, and otherwise hands the error back.
 * @example
 * const client = createAgentClient();
 * const result = await client.fetch('https://api.example.com/orders');
 * if (!result.ok) console.log(result.error.code, result.advice);
 */
export function createAgentClient(options: AgentClientOptions = {}): AgentClient {
  const run = createRunner(options);
  return {
    async fetch(input, init) {
      const { response, error, remembered } = await run(input, init);
      return error ? failure(error, response, remembered) : { ok: true, response: response! };
    },
  };
}
