// The agent client: calls a site, reads every failure as an envelope, waits only when told and only
// as long as told, and remembers what each origin asked for.
import { READERS, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { lookup } from '../core/catalog.js';
import { fromResponse } from '../core/from-response.js';
import { defaultStore, type Store } from './store.js';

/** What the client returns: the response, or an error with what to do about it. */
export type AgentResult =
  | { readonly ok: true; readonly response: Response }
  | {
      readonly ok: false;
      /** The envelope's error: code, message, field, retry word and delay. */
      readonly error: EnvelopeError;
      /** The catalog's advice for the code. */
      readonly advice: string;
      /** The site's response (its body unread), when the site answered. */
      readonly response?: Response;
      /** True when the answer came from the store, without calling the site. */
      readonly remembered?: boolean;
    };

/** Options of createAgentClient. */
export interface AgentClientOptions {
  /** The fetch to call. @default globalThis.fetch */
  readonly fetch?: typeof globalThis.fetch;
  /** The longest delay the client waits out itself; a longer one is handed back at once. @default 30 */
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
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const maxWait = options.maxWaitSeconds ?? 30;
  const budget = Math.max(1, Math.floor(options.budget ?? 2));
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const store = options.store ?? defaultStore();
  const accept = options.accept ?? AGENT_ACCEPT;
  // The init of a request made with none, built once: fetch does not change what it is given.
  const acceptOnly: RequestInit | undefined = accept === false ? undefined : { headers: { accept } };

  async function remembered(origin: string): Promise<AgentResult | null> {
    const backoff = await fromStore(() => store.getBackoff(origin), undefined);
    if (!backoff) return null;
    const left = Math.ceil((backoff.until - now()) / 1000);
    if (left <= 0) return null;
    return failure({ ...backoff.error, retry_after: left }, undefined, true);
  }

  return {
    async fetch(input, init) {
      // A bodiless string or URL request is sent again as it is; anything else becomes one Request,
      // cloned per attempt only when it has a body to resend. Each extra Request costs a loopback call ~10%.
      let url: URL;
      let signal: AbortSignal | undefined;
      let idempotent: boolean;
      let send: () => Promise<Response>;
      if ((typeof input === 'string' || input instanceof URL) && (init?.body === undefined || init.body === null)) {
        url = new URL(String(input));
        signal = init?.signal ?? undefined;
        const method = (init?.method ?? 'GET').toUpperCase();
        idempotent = IDEMPOTENT.has(method) || (init?.headers !== undefined && new Headers(init.headers).has('idempotency-key'));
        const sent = accept === false ? init : init === undefined ? acceptOnly : withAccept(init, accept);
        send = () => fetchImpl(input, sent);
      } else {
        const request = new Request(input, init);
        if (accept !== false && !request.headers.has('accept')) request.headers.set('accept', accept);
        url = new URL(request.url);
        signal = request.signal;
        idempotent = IDEMPOTENT.has(request.method) || request.headers.has('idempotency-key');
        send = () => fetchImpl(request.body === null ? request : request.clone());
      }
      const known = await remembered(url.origin);
      if (known) return known;

      let calls = 0;
      let waited = false;
      let retriedOnce = false;
      for (;;) {
        calls += 1;
        let response: Response;
        try {
          response = await send();
        } catch (error) {
          if (signal?.aborted) throw signal.reason;
          return failure(networkError(url, error));
        }
        if (response.status < 400) return { ok: true, response };

        const copy = response.clone();
        const envelope = fromResponse(response.status, response.headers, await response.text().catch(() => null), { now: now() });
        const error = envelope.error;
        const word: RetryWordEntry = RETRY_WORDS[error.retry];
        const mustWait = word.requires.includes('retry_after');
        if (mustWait && error.retry_after !== null) {
          const backoff = { until: now() + error.retry_after * 1000, error };
          await fromStore(() => store.setBackoff(url.origin, backoff), undefined);
        }
        if (calls >= budget) return failure(error, copy);
        if (mustWait) {
          // Wait when told how long, once, and never longer than maxWait (seed 000).
          if (waited || error.retry_after === null || error.retry_after > maxWait) return failure(error, copy);
          waited = true;
          await sleep(error.retry_after * 1000, signal);
          continue;
        }
        if (word.next_step === 'wait' && !retriedOnce && (idempotent || !word.idempotent_only)) {
          // Retry once, and only what can safely be repeated (RFC 9110 section 9.2.2).
          const delay = error.retry_after ?? word.default_retry_after ?? 0;
          if (delay <= maxWait) {
            retriedOnce = true;
            await sleep(delay * 1000, signal);
            continue;
          }
        }
        return failure(error, copy);
      }
    },
  };
}
