// The agent client: calls a site, reads every failure as an envelope, waits only when told and only
// as long as told, and remembers what each origin asked for.
import { READERS, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { lookup } from '../core/catalog.js';
import { fromResponse } from '../core/from-response.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { defaultStore, type Store } from './store.js';

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
export function rememberedWait(left: number, attempts: Attempts, allowed: Allowance): number | null {
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

/** Remembers for the origin a wait an error asked for, when it says how long. */
export function remember(store: Store, origin: string, error: EnvelopeError, now: number): Promise<void> | void {
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  if (error.retry_after === null || !word.requires.includes('retry_after')) return;
  const told = { until: now + error.retry_after * 1000, error };
  return fromStore(() => store.setBackoff(origin, told), undefined);
}

/** The wait a store remembers for an origin, in whole seconds still to go, with its error; null when none is running. */
export async function recalled(store: Store, origin: string, now: number): Promise<{ left: number; error: EnvelopeError } | null> {
  const known = await fromStore(() => store.getBackoff(origin), undefined);
  const left = known ? Math.ceil((known.until - now) / 1000) : 0;
  return known && left > 0 ? { left, error: { ...known.error, retry_after: left } } : null;
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

    // What the origin asked for earlier, by this process or (through a shared store) another one:
    // waited out like a told wait when it fits, handed back from memory when it does not.
    const known = await recalled(store, url.origin, now());
    if (known) {
      const seconds = rememberedWait(known.left, attempts, allowed);
      if (seconds === null) return { url, error: known.error, remembered: true };
      await sleep(seconds * 1000, signal);
    }

    for (;;) {
      attempts.calls += 1;
      let response: Response;
      try {
        response = await send();
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        return { url, thrown: error, error: networkError(url, error) };
      }
      if (response.status < 400) return { url, response };

      const copy = response.clone();
      const { error } = fromResponse(response.status, response.headers, await response.text().catch(() => null), { now: now() });
      await remember(store, url.origin, error, now());
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
