// @agent-index/errors/agent/fetcher. fetchPage: one call that always says what happened. Failures carry code, retry and advice;
// when the site failed and an older copy is allowed, the copy comes back marked stale, with why.
import { RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { RetryWord } from '../../generated/types.js';
import { hold } from './body.js';
import { createRunner, failure, type AgentFailure } from './client.js';
import { refuse, type Checks } from '../core/refuse.js';
import { networkError } from './answers.js';
import { checkOptions, CLIENT_CHECKS, fromStore, type AgentClientOptions } from './policy.js';
import { defaultStore, type CachedCopy } from './store.js';

/** The Accept fetchPage sends when a request has none: Markdown and HTML before anything else, as agents that read pages send it. */
export const PAGE_ACCEPT = 'text/markdown, text/html, */*';

/** Why a stale copy was served: the failure the site answered with. */
export interface StaleBecause {
  readonly code: string;
  readonly message: string;
  readonly retry: RetryWord;
  readonly retry_after: number | null;
}

/** A page the site served, now or earlier. */
export interface FetchPageSuccess {
  readonly ok: true;
  readonly status: number;
  readonly headers: Headers;
  /**
   * The body as text, when it arrived whole within `maxCopyBytes` and `bodyTimeoutSeconds`; else
   * null, and the body is in `stream`, unread and not kept.
   */
  readonly body: string | null;
  /** The whole body, as bytes, when it was too large or too slow to read here (`body` is null then). */
  readonly stream?: ReadableStream<Uint8Array>;
  /** The URL after redirects. */
  readonly url: string;
  /** True when this is an older copy served because the site failed. */
  readonly stale: boolean;
  /** How old a stale copy is, in whole seconds. */
  readonly age_seconds?: number;
  readonly stale_because?: StaleBecause;
}

/** A failure, with what to do about it: the shape every agent-side failure has, and the site's status. */
export interface FetchPageFailure extends AgentFailure {
  /** The site's status, or null when no response arrived (or the answer came from memory: then `remembered` is true). */
  readonly status: number | null;
}

export type FetchPageResult = FetchPageSuccess | FetchPageFailure;

/** Options of fetchPage: the client's, plus the request and how stale a copy may be. */
export interface FetchPageOptions extends AgentClientOptions {
  /** The request's method, headers and body; only GET responses are kept. @default a GET */
  readonly init?: RequestInit;
  /**
   * How old a copy may be and still be served when the site fails, in seconds, for responses
   * that set no stale-if-error (RFC 5861) of their own; a larger stale-if-error wins.
   * @default 86400
   */
  readonly maxStaleSeconds?: number;
  /** Give up on a response after this many seconds, as a failure that may be answered with a copy. */
  readonly timeoutSeconds?: number;
  /**
   * The most bytes of a page read here, as text, and kept as a copy; a larger page (or one slower
   * than bodyTimeoutSeconds) comes back as a stream, neither read nor kept. @default 4 MiB
   */
  readonly maxCopyBytes?: number;
}

/** fetchPage's options: the client's, and its own, checked the same way. */
const FETCHER_CHECKS: Checks<FetchPageOptions> = {
  ...CLIENT_CHECKS,
  init: [(v) => typeof v === 'object' && v !== null, 'a RequestInit object'],
  maxStaleSeconds: [(v) => typeof v === 'number' && v >= 0, 'a number of seconds, 0 or more'],
  timeoutSeconds: [(v) => typeof v === 'number' && v > 0 && v <= Number.MAX_SAFE_INTEGER, 'a number of seconds above 0'],
  maxCopyBytes: [(v) => Number.isSafeInteger(v) && (v as number) >= 0, 'a whole number of bytes, 0 or more'],
};

/** The most bytes of a page fetchPage reads as text and keeps, by default: 4 MiB. */
const MAX_COPY_BYTES = 4 * 1024 * 1024;

// Answers about the thing itself, or about the caller's right to it, are never covered by a copy.
const NEVER_STALE = new Set([401, 402, 403, 404, 410]);

/** Seconds a copy may be served stale after a failure: its own freshness plus stale-if-error, or the configured allowance. */
export function staleAllowance(copy: CachedCopy, maxStaleSeconds: number): number {
  const directives = new Map<string, string>();
  for (const [name, value] of copy.headers) {
    if (name.toLowerCase() !== 'cache-control') continue;
    for (const part of value.split(',')) {
      const [key = '', arg = ''] = part.trim().split('=', 2);
      directives.set(key.toLowerCase(), arg.replace(/^"|"$/g, ''));
    }
  }
  // RFC 9111 section 5.2.2.2 and 5.2.2.4: must-revalidate and no-cache forbid serving it stale.
  if (directives.has('must-revalidate') || directives.has('no-cache')) return -1;
  const seconds = (name: string): number => (/^\d+$/.test(directives.get(name) ?? '') ? Number(directives.get(name)) : 0);
  // RFC 5861 section 4: stale-if-error=N allows N seconds past the copy's freshness lifetime.
  return Math.max(maxStaleSeconds, directives.has('stale-if-error') ? seconds('max-age') + seconds('stale-if-error') : 0);
}

const storable = (headers: Headers): boolean => !/(^|,)\s*no-store\s*(,|$)/i.test(headers.get('cache-control') ?? '');


/**
 * Fetches a URL as an agent: failures come back as data with code, retry and advice, and when the
 * site fails (5xx, no response, a wait longer than the client takes) a kept copy within its
 * allowance comes back with `stale: true` and `stale_because`.
 * @example
 * const page = await fetchPage('https://shop.example/item/42');
 * if (page.ok && page.stale) console.log('served from', page.age_seconds, 's ago because', page.stale_because?.code);
 */
export async function fetchPage(url: string | URL, options: FetchPageOptions = {}): Promise<FetchPageResult> {
  checkOptions('fetchPage', options, FETCHER_CHECKS);
  if (!(url instanceof URL) && !(typeof url === 'string' && URL.canParse(url))) refuse('fetchPage', 'url', 'an absolute URL, as a string or a URL', url);
  const store = options.store ?? defaultStore();
  const now = options.now ?? Date.now;
  const baseFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeout = options.timeoutSeconds;
  const fetchWithTimeout: typeof fetch =
    timeout === undefined
      ? baseFetch
      : (input, init) => {
          const request = new Request(input, init);
          return baseFetch(request, { signal: AbortSignal.any([request.signal, AbortSignal.timeout(timeout * 1000)]) });
        };
  // Pages first: a fetcher reads pages, as agents that send Markdown-first Accept headers do.
  const { init: _init, maxStaleSeconds: _stale, timeoutSeconds: _timeout, maxCopyBytes: _copy, ...clientOptions } = options;
  const run = createRunner({ accept: PAGE_ACCEPT, ...clientOptions, store, fetch: fetchWithTimeout }, 'fetchPage');
  const request = new Request(url, options.init);
  const key = `${request.method} ${request.url}`;
  const cacheable = request.method === 'GET';
  const outcome = await run(request);
  let result: AgentFailure & { readonly response?: Response } = outcome.error ? failure(outcome) : (undefined as never);

  if (!outcome.error) {
    const response = outcome.response!;
    // Read as far as the copy may go and as long as an error body may take; the rest is not kept.
    const held = await hold(response, options.maxCopyBytes ?? MAX_COPY_BYTES, (options.bodyTimeoutSeconds ?? 5) * 1000);
    const at = response.url || request.url;
    if (held.failed !== undefined) {
      // Cut off, or the connection lost, mid-body: a failure like no response at all, which a copy may answer.
      result = failure({ url: new URL(at), error: networkError(new URL(at), held.failed), thrown: held.failed });
    } else if (!held.whole) {
      return { ok: true, status: response.status, headers: response.headers, body: null, stream: held.response.body!, url: at, stale: false };
    } else {
      const body = new TextDecoder().decode(held.bytes);
      if (cacheable && response.status >= 200 && response.status < 300 && response.status !== 206 && storable(response.headers)) {
        const age = Number(response.headers.get('age'));
        const kept = { url: at, status: response.status, headers: [...response.headers], body, storedAt: now() - (Number.isFinite(age) && age > 0 ? age * 1000 : 0) };
        await fromStore(() => store.setCopy(key, kept), undefined);
      }
      return { ok: true, status: response.status, headers: response.headers, body, url: at, stale: false };
    }
  }

  const { error, advice, remembered, learnt, throttled, cause } = result;
  const status = result.response?.status ?? null;
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  // The site failed, rather than answered: a 5xx, no response, or a wait longer than the client takes.
  const siteFailed =
    (status === null || status >= 500 || word.requires.includes('retry_after')) && !(status !== null && NEVER_STALE.has(status));
  const copy = siteFailed && cacheable ? await fromStore(() => store.getCopy(key), undefined) : undefined;
  if (copy) {
    const age = Math.max(0, Math.floor((now() - copy.storedAt) / 1000));
    if (age <= staleAllowance(copy, options.maxStaleSeconds ?? 86_400)) {
      return {
        ok: true,
        status: copy.status,
        headers: new Headers(copy.headers as [string, string][]),
        body: copy.body,
        url: copy.url,
        stale: true,
        age_seconds: age,
        stale_because: { code: error.code, message: error.message, retry: error.retry, retry_after: error.retry_after },
      };
    }
  }
  return { ok: false, error, advice, status, ...(remembered ? { remembered } : {}), ...(learnt ? { learnt } : {}), ...(throttled ? { throttled } : {}), ...(cause === undefined ? {} : { cause }) };
}
