// The agent's policy, written once: every host (the client, the drop-in fetch, the fetcher, the
// undici interceptor, the got and axios plug-ins) resolves its options here, asks the store before
// each call (admit), tells it what the answer said (settle), and asks nextWait what to do next.
import { READERS, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { EnvelopeError, Payment } from '../../generated/types.js';
import { lookup, PAY_WORD, UNKNOWN_STATUS } from '../core/catalog.js';
import { isErrorText } from '../core/from-response.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { quotaFrom } from '../core/quota.js';
import { checkRules, isCount, isFunction, refuse, type Check, type Checks } from '../core/refuse.js';
import { defaultStore, pathKey, STORE_CHECK, type Admission, type AdmitAsk, type Backoff, type KeptAnswer, type Learnt, type Spent, type Store, type Tripped } from './store.js';

/** Options of createAgentClient and agentFetch. */
export interface AgentClientOptions {
  /** The fetch to call. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** The most seconds one request sleeps in all, told or remembered; a longer wait is handed back at once. @default 30 */
  readonly maxWaitSeconds?: number;
  /** The most calls one request may make. @default 2 */
  readonly maxCalls?: number;
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
   * back off on DEFAULT_BACKOFF's doubling schedule within maxCalls and maxWaitSeconds.
   * @default 'hand_back'
   */
  readonly unknownDelay?: 'hand_back' | 'backoff';
  /**
   * What shares a site's waits and quota: its origin, or a URL prefix such as
   * `https://api.github.com/search` for a site whose limits differ by API (a request under
   * several takes the longest), or a function from the URL to a key. @default the origin
   */
  readonly scope?: readonly string[] | ((url: URL) => string);
  /**
   * The most seconds spent reading an error response's body, from when its headers arrived: then
   * what arrived is read as the error, and the rest is left unread (handed over, or dropped for
   * another call). At most MAX_BODY_BYTES of it are read either way. @default 5
   */
  readonly bodyTimeoutSeconds?: number;
  /**
   * Whether a 2xx JSON answer to a POST is read for an error inside it: a GraphQL response with
   * errors and no data, a JSON-RPC error, Slack's ok: false. Read, it is handled as the error it is
   * (a wait inside it taken once, like any other). Unread, a success streams through byte for byte.
   * @default true for createAgentClient; false for agentFetch and fetchPage, which hand the
   * caller's own client its success as the site sent it
   */
  readonly errorsIn2xx?: boolean;
  /**
   * Decides whether to pay a 402 that says what to pay (the envelope's payment: x402's options, a
   * pay-per-crawl price): it returns the request headers that pay (x402's PAYMENT-SIGNATURE, or
   * crawler-exact-price), and the request is sent once more with them; or nothing, and the error is
   * handed back. A request is paid at most once, for the payment it was shown. Without it, every
   * 402 is handed back with what it asks. @default none
   */
  readonly onPaymentRequired?: PaymentHook;
}

/** The request a 402 answered, as the payment hook sees it. */
export interface PaymentRequest {
  readonly url: string;
  readonly method: string;
}

/** The agent's decision on a 402: the request headers that pay it, or nothing to hand the error back. */
export type PaymentHook = (payment: Payment, request: PaymentRequest) => PaymentHeaders | undefined | null | Promise<PaymentHeaders | undefined | null>;

/** Request headers, by name. */
export type PaymentHeaders = Readonly<Record<string, string>>;

/** An HTTP field name (RFC 9110 section 5.1, a token) and a value without CR, LF or NUL. */
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[^\0\r\n]*$/;

/**
 * The headers to send a request once more with, paying the 402 it got, or null to hand the error
 * back: only an error that says what to pay, only with a hook, only once per request and within
 * its calls; the hook is given a copy of the payment it was shown. Headers that are no headers are
 * a TypeError naming `who`, the host the hook was given to.
 */
export async function payWith(who: string, hook: PaymentHook | undefined, error: EnvelopeError, attempts: Attempts, allowed: Allowance, request: PaymentRequest): Promise<PaymentHeaders | null> {
  if (!hook || !error.payment || error.retry !== PAY_WORD || attempts.paid || attempts.calls >= allowed.budget) return null;
  attempts.paid = true;
  const headers = await hook(structuredClone(error.payment), request);
  if (headers === undefined || headers === null) return null;
  const ok = typeof headers === 'object' && Object.entries(headers).length > 0 && Object.entries(headers).every(([name, value]) => FIELD_NAME.test(name) && typeof value === 'string' && FIELD_VALUE.test(value));
  if (!ok) refuse(who, 'onPaymentRequired', 'a function returning request headers ({ name: value }) or nothing', headers);
  return { ...headers };
}

/**
 * Whether a 2xx may be an error inside a success (the errorsIn2xx option), by what the response
 * says of itself: JSON answering a POST (GraphQL, JSON-RPC, Slack's Web API) or said to be a
 * GraphQL response; XML answering a PUT or POST (S3's copy and multipart upload). Any other
 * success passes through unread.
 */
export function maySayError(method: string, status: number, contentType: string | null | undefined): boolean {
  const type = typeof contentType === 'string' ? contentType : '';
  if (status < 200 || status > 299 || status === 204 || status === 205) return false;
  if (/^application\/(?:[\w.+-]*\+)?json\b/i.test(type)) return method === 'POST' || /^application\/graphql-response\+json\b/i.test(type);
  return /^(?:application|text)\/xml\b/i.test(type) && (method === 'POST' || method === 'PUT');
}

/** Whether the bytes of such a success, read whole, are an error all the same (isErrorText); a body cut short is the success it says. */
export function saysError(bytes: Uint8Array | null, whole: boolean): boolean {
  if (!whole || bytes === null) return false;
  try {
    return isErrorText(new TextDecoder().decode(bytes));
  } catch {
    return false;
  }
}

/** The Accept an agent client sends by default: data first, pages after, anything last. */
export const AGENT_ACCEPT = 'application/json, application/problem+json, text/markdown, text/html;q=0.9, */*;q=0.8';

/** A number of seconds a timer can take: 0 or more, or (`positive`) above 0. */
const isSeconds = (positive: boolean) => (v: unknown): boolean => typeof v === 'number' && (positive ? v > 0 : v >= 0) && v <= Number.MAX_SAFE_INTEGER;

/** The checks of the options of createAgentClient, agentFetch and fetchPage (src/core/refuse.ts: undefined always passes). */
export const CLIENT_CHECKS: Checks<AgentClientOptions> = {
  fetch: [isFunction, 'a fetch function'],
  maxWaitSeconds: [isSeconds(false), 'a number of seconds, 0 or more'],
  maxCalls: [isCount, 'a whole number of calls, 1 or more'],
  sleep: [isFunction, 'a function (ms, signal) => Promise<void>'],
  now: [isFunction, 'a function returning ms since the epoch'],
  store: STORE_CHECK,
  accept: [(v) => v === false || (typeof v === 'string' && v !== ''), 'an Accept header value or false'],
  unknownDelay: [(v) => v === 'hand_back' || v === 'backoff', "'hand_back' or 'backoff'"],
  scope: [(v) => isFunction(v) || (Array.isArray(v) && v.every((e) => typeof e === 'string')), 'a list of URL prefixes or a function from the URL to a key'],
  bodyTimeoutSeconds: [isSeconds(true), 'a number of seconds above 0'],
  errorsIn2xx: [(v) => typeof v === 'boolean', 'true or false'],
  onPaymentRequired: [isFunction, 'a function (payment, request) => headers or nothing'],
};

/** The options of a plug-in into another client (undici, got, axios): that client sends the request, so it takes no fetch and no Accept. */
export type PluginOptions = Omit<AgentClientOptions, 'fetch' | 'accept'>;
const { fetch: _fetch, accept: _accept, ...pluginChecks } = CLIENT_CHECKS;
/** The checks of a plug-in's options: the client's, less fetch and accept. */
export const PLUGIN_CHECKS: Checks<PluginOptions> = pluginChecks;

/** Options that were called otherwise once, by their name now. */
const RENAMED: Readonly<Record<string, string>> = { budget: 'maxCalls' };

/**
 * Checks the options a host was made with, as it is made: a TypeError naming `who` (the function
 * the user called) and an option it does not take (with the closest one it does), or the option,
 * what it takes and the value received, quoted.
 */
export function checkOptions(who: string, options: unknown, checks: Readonly<Record<string, Check>> = CLIENT_CHECKS): void {
  checkRules(who, options, checks, RENAMED);
}

/** What a host runs with: its options checked and filled in, once, when it is made. */
export interface Resolved {
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now: () => number;
  readonly store: Store;
  readonly scopeOf: (url: URL) => string;
  readonly bodyTimeoutMs: number;
  readonly options: AgentClientOptions;
}

/** The options of a host, checked (a TypeError naming `who` on a bad one) and resolved. */
export function resolveOptions(who: string, options: AgentClientOptions = {}, checks: Readonly<Record<string, Check>> = CLIENT_CHECKS): Resolved {
  checkOptions(who, options, checks);
  let scopeOf: (url: URL) => string;
  try {
    scopeOf = scoper(options.scope);
  } catch (error) {
    throw new TypeError(`${who}: ${(error as Error).message}`);
  }
  return {
    sleep: options.sleep ?? abortableSleep,
    now: options.now ?? Date.now,
    store: options.store ?? defaultStore(),
    scopeOf,
    bodyTimeoutMs: (options.bodyTimeoutSeconds ?? 5) * 1000,
    options,
  };
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
  /** What the site said of a wait remembered, kept to answer in its own words. */
  readonly answer?: KeptAnswer;
  /** Where and when a wait remembered was learnt. */
  readonly learnt?: Learnt;
  /** The request was not retried, or not sent, because a guard of its scope said so. */
  readonly throttled?: Throttled;
  readonly thrown?: unknown;
}

/**
 * Why the package did not call a site again, or at all: the scope's retry budget was spent (the
 * failure is the site's last answer, not retried), or the scope's circuit is open (the failure is
 * from memory, without a call).
 */
export interface Throttled {
  readonly by: 'retry_budget' | 'circuit';
  /** The scope whose guard it was: its origin, or the `scope` prefix or key it falls under. */
  readonly scope: string;
  /** For a budget, the retries and requests counted lately; for a circuit, the failed and all calls that opened it. */
  readonly counts: { readonly retries: number; readonly requests: number } | { readonly failures: number; readonly calls: number };
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
  /** Ms slept past a told wait slept out: its tail, or another caller's probe followed (at most AFTER_WAIT_MS). */
  grace: number;
  /** The request was sent once more with what the payment hook paid. */
  paid: boolean;
  /** The last wait nextWait gave is a retry the package makes on its own (a `once` error, a guessed backoff), not one the site asked for: it draws from the retry budget. */
  selfRetry: boolean;
}

/** A request's progress before its first call. */
export const freshAttempts = (): Attempts => ({ calls: 0, slept: 0, waited: false, retriedOnce: false, guesses: 0, grace: 0, paid: false, selfRetry: false });

/** The allowance of `options` (checked by resolveOptions), for a request that is or is not idempotent. */
export function allowance(options: AgentClientOptions, idempotent: boolean): Allowance {
  return { budget: options.maxCalls ?? 2, maxWait: options.maxWaitSeconds ?? 30, backoff: options.unknownDelay === 'backoff', idempotent };
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
  attempts.selfRetry = false;
  if (attempts.calls >= allowed.budget) return null;
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  if (word.requires.includes('retry_after')) {
    if (error.retry_after === null) {
      // Told to wait, not how long: hand it back (seed 000), or guess on the doubling schedule.
      attempts.selfRetry = allowed.backoff;
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
  if (seconds !== null) attempts.retriedOnce = attempts.selfRetry = true;
  return seconds;
}

/**
 * Before a retry nextWait gave: when it is one the package makes on its own, draws it from the
 * scope's retry budget (Store.drawRetry), unless the scope's circuit is open. What refused it, or
 * undefined to retry; a told wait, and a store without drawRetry, always retry.
 */
export function drawRetry(store: Store, key: string, attempts: Attempts): Promise<Throttled | undefined> | Throttled | undefined {
  if (!attempts.selfRetry || !store.drawRetry) return undefined;
  const spent = fromStore(() => store.drawRetry!(key), undefined);
  const throttled = (s: Spent | Tripped | undefined): Throttled | undefined =>
    s && (s.kind === 'open' ? { by: 'circuit', scope: key, counts: { failures: s.failures, calls: s.calls } } : { by: 'retry_budget', scope: key, counts: { retries: s.retries, requests: s.requests } });
  return spent instanceof Promise ? spent.then(throttled) : throttled(spent);
}

/** A partition's wait as a store that keeps no partitions (one without settle) keeps it: for the path it was learnt on. */
function pathOnly(wait: Backoff, url: URL | undefined): Backoff {
  if (wait.partition === undefined || url === undefined) return wait;
  const { partition: _partition, ...rest } = wait;
  return { ...rest, path: url.pathname };
}

/** Whether an error is a wait the site asked for, saying how long. */
const isToldWait = (error: EnvelopeError): boolean => error.retry_after !== null && (RETRY_WORDS[error.retry] as RetryWordEntry).requires.includes('retry_after');

/**
 * The wait an error asks for, as a backoff (with the site's own answer, when kept), when it says
 * how long: learnt from `url` now, and covering the whole scope only when the site's signal is for
 * it (coversScope), else the URL's path alone.
 */
function toldWait(error: EnvelopeError | undefined, now: number, answer?: KeptAnswer, url?: URL, status?: number, partition?: string): Backoff | undefined {
  if (!error || !isToldWait(error)) return undefined;
  // A rate limit of one partition (RateLimit's pk) covers the paths that count in that partition
  // (a store that keeps no partitions: this path); any other, the scope or the path, as coversScope says.
  const covers = partition !== undefined ? { partition } : url && !coversScope(error, status) ? { path: url.pathname } : {};
  return { until: now + error.retry_after! * 1000, error, ...(answer ? { answer } : {}), ...(url ? { learnt: { url: url.href, at: now } } : {}), ...covers };
}

/** The statuses of the catalog's rate-limit code (429) and of its code for a site that cannot answer (503). */
const RATE_LIMIT_STATUS = lookup(READERS.signals.rate_limit_headers).status;
const UNAVAILABLE_STATUS = lookup(READERS.signals.circuit_open).status;

/**
 * Whether a wait a site asked for covers every request of its scope, not the path it came from
 * alone: a rate limit (the rate-limit code, a 429), which limits the caller rather than a
 * resource, unless its RateLimit names a partition (`pk`, settle's concern); or a 503 that says
 * the site is down for maintenance. Any other wait (a 503 of one endpoint, a 423, a delay a 5xx
 * body asked for) covers the path it was learnt on.
 */
export function coversScope(error: EnvelopeError, status?: number): boolean {
  if (status === RATE_LIMIT_STATUS || error.code === READERS.signals.rate_limit_headers) return true;
  return (status === undefined || status === UNAVAILABLE_STATUS) && /\bmaint[ae]n[ae]nce\b/i.test(error.message);
}

/**
 * Whether an answer is a failure of a site that is down, which the circuit counts: no answer, or a
 * server failure (5xx) the site did not say how long to wait after. A 4xx, or a told wait, is the
 * site answering.
 */
export function isSiteFailure(status: number | undefined, error: EnvelopeError | undefined): boolean {
  if (status === undefined) return true;
  return status >= 500 && error !== undefined && !isToldWait(error) && RETRY_WORDS[error.retry].next_step === 'wait';
}

/** The header of an answer made from memory, without calling the site: `Agent-Errors-Source: memory`. */
export const SOURCE_HEADER = 'agent-errors-source';

/** Remembers for the origin a wait an error asked for, when it says how long. */
export function remember(store: Store, origin: string, error: EnvelopeError, now: number, url?: URL, status?: number): Promise<void> | void {
  const told = toldWait(error, now, undefined, url, status);
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
/**
 * What a request that slept out a told wait may sleep past it, in ms, beyond maxWaitSeconds: the
 * tail of another caller's copy of the same wait, and another caller's probe followed. The told
 * wait earned the request its next call: when this runs out it makes it.
 */
export const AFTER_WAIT_MS = 2000;

/** What the store let a call do, to report with its answer. */
export type Pass = Extract<Admission, { kind: 'call' }>;

const CALL: Pass = { kind: 'call' };

/** A store without admit, asked as before: a running wait of the scope or of the request's path (pathKey), or a call. */
function admission(store: Store, key: string, ask: AdmitAsk): Promise<Admission> | Admission {
  if (store.admit) return store.admit(key, ask);
  const answer = (b: Backoff | undefined): Admission => (b ? { kind: 'wait', until: b.until, error: b.error, ...(b.answer ? { answer: b.answer } : {}), ...(b.learnt ? { learnt: b.learnt } : {}) } : CALL);
  const wide = store.getBackoff(key);
  const narrow = (b: Backoff | undefined): Promise<Admission> | Admission => {
    if (b || ask.path === undefined) return answer(b);
    const n = store.getBackoff(pathKey(key, ask.path));
    return n instanceof Promise ? n.then(answer) : answer(n);
  };
  return wide instanceof Promise ? wide.then(narrow) : narrow(wide);
}

/**
 * What reading an error takes, loaded with the first error (the bounded body reader and what keeps
 * a site's answer), so that an agent whose calls succeed does not carry it.
 */
let errorPath: Promise<[typeof import('./body.js'), typeof import('./answers.js')]> | undefined;
export const loadErrorPath = (): NonNullable<typeof errorPath> => (errorPath ??= Promise.all([import('./body.js'), import('./answers.js')]));

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
  const ask: AdmitAsk = { path: gate.url.pathname, retry: gate.attempts.calls > 0 };
  const first = fromStore(() => admission(gate.store, gate.key, ask), CALL);
  if (!(first instanceof Promise) && first.kind === 'call') return { pass: first };
  return admitSlowly(first, gate);
}

/** What admit answers: a pass to call with, or an error to hand back (from memory: a wait, a spent quota, an open circuit). */
export type Admitted = { pass: Pass } | { error: EnvelopeError; answer?: KeptAnswer | undefined; learnt?: Learnt | undefined; throttled?: Throttled | undefined };

async function admitSlowly(first: Promise<Admission> | Admission, { store, key, url, attempts, allowed, now, sleep, signal }: Gate): Promise<Admitted> {
  // A request is counted once, when its first call is let through.
  const ask: AdmitAsk = { path: url.pathname, retry: attempts.calls > 0 };
  for (let next = first; ; next = fromStore(() => admission(store, key, ask), CALL)) {
    const a = await next;
    if (a.kind === 'call') return { pass: a };
    // An open circuit fails fast: the site is down, and waiting on it is the probe's to do.
    if (a.kind === 'open') return { error: (await loadErrorPath())[1].circuitError(url, Math.max(1, Math.ceil((a.until - now()) / 1000)), a), throttled: { by: 'circuit', scope: key, counts: { failures: a.failures, calls: a.calls } } };
    const ms = a.until - now();
    if (!(ms > 0)) return { pass: CALL };
    const left = Math.ceil(ms / 1000);
    let sleepMs: number | null;
    if (a.kind === 'wait') {
      // A wait not yet slept is slept in whole seconds, as a told one; the tail of the one this
      // request already slept (another caller's copy of it, a moment longer) is slept as it is.
      sleepMs = !attempts.waited ? secondsOf(rememberedWait(left, attempts, allowed)) : ms <= TAIL_MS ? secondsOf(take(ms / 1000, attempts, allowed)) ?? graced(ms, attempts) : null;
    } else if (a.kind === 'follow') {
      const step = Math.min(ms, FOLLOW_MS);
      sleepMs = secondsOf(take(step / 1000, attempts, allowed)) ?? (attempts.waited ? graced(step, attempts) : null);
      // A request whose told wait used up its maxWait follows the probe a moment, then calls.
      if (sleepMs === null && attempts.waited) return { pass: CALL };
    } else {
      sleepMs = secondsOf(take(ms / 1000, attempts, allowed));
    }
    // Handed back: a follower is told to look again in a second, when the probe may have answered.
    if (sleepMs === null) return a.kind === 'hold' ? { error: (await loadErrorPath())[1].quotaError(url, left, a.limit) } : { error: { ...a.error, retry_after: a.kind === 'follow' ? 1 : left }, answer: a.answer, learnt: a.learnt };
    await sleep(sleepMs, signal);
  }
}

const secondsOf = (seconds: number | null): number | null => (seconds === null ? null : seconds * 1000);

/** Takes `ms` from what a request that slept out a told wait may sleep past maxWait, when it fits. */
function graced(ms: number, attempts: Attempts): number | null {
  if (attempts.grace + ms > AFTER_WAIT_MS) return null;
  attempts.grace += ms;
  return ms;
}

/**
 * After a call: tells the store what the answer said (the wait it asked for, learnt on `url`; the
 * quota it announced; whether the site failed, for the circuit) and releases the call's probe
 * lease. A store without settle is told the wait alone.
 */
export function settle(store: Store, key: string, pass: Pass, response: { readonly status?: number; readonly headers: HeadersInput } | undefined, error: EnvelopeError | undefined, now: number, answer?: KeptAnswer, url?: URL, aborted = false): Promise<void> | void {
  const quota = response ? quotaFrom(response.headers, now) : null;
  const wait = toldWait(error, now, answer, url, response?.status, quota?.partition);
  if (!store.settle) return wait && fromStore(() => store.setBackoff(key, pathOnly(wait, url)), undefined);
  // A request its caller aborted says nothing of the site.
  const failed = !aborted && isSiteFailure(response ? (response.status ?? UNKNOWN_STATUS) : undefined, error);
  return fromStore(() => store.settle!(key, { admitted: pass, answered: response !== undefined, ...(wait ? { wait } : {}), ...(quota ? { quota } : {}), ...(failed ? { failed } : {}), ...(url ? { path: url.pathname } : {}) }), undefined);
}
