// The request quota a response announces: how many more requests the site will take, and in how
// long it refills. A fleet of workers sharing a site's quota sends no more than `remaining` before
// `resetMs` has passed. Read from the IETF RateLimit fields (every draft), X-RateLimit-*, OpenAI's
// and Anthropic's headers; the parsing shared with delayFrom lives in delay.ts. Nothing here
// throws, whatever it is given.
import { Token } from 'structured-headers';
import { headerValue, toHeaders, type Fields, type HeadersInput } from './headers.js';
import {
  decimalValue,
  goDurationSeconds,
  integerField,
  listItems,
  type ListItem,
  MAX_DELAY_SECONDS,
  nonNegativeInteger,
  rateLimitDictionary,
  resetSecondsUntil,
  responseClock,
} from './delay.js';

/** The request quota a response announces. */
export interface Quota {
  /** Requests the site will still accept before the quota refills (a non-negative integer). */
  readonly remaining: number;
  /** Milliseconds until the quota refills (non-negative, integer). */
  readonly resetMs: number;
  /** Requests per window, when the response says (a positive integer). */
  readonly limit?: number;
  /** The window's length in ms, when the response says (RateLimit-Policy `w`). */
  readonly windowMs?: number;
  /**
   * The partition the quota counts, when the response names one (draft-ietf-httpapi-ratelimit-headers-10
   * `pk`, on the RateLimit item or its policy; a Byte Sequence, here in base64): the quota is one of
   * several the site keeps, by a key of its own (a user, an API key, a resource).
   */
  readonly partition?: string;
}

/**
 * The longest reset (and window) returned: MAX_DELAY_SECONDS (2^31 - 1 s, about 68 years) in ms,
 * as delayFrom caps its delays. A caller sleeping until the reset must cap again: setTimeout takes
 * at most 2^31 - 1 ms.
 */
const MAX_RESET_MS = MAX_DELAY_SECONDS * 1000;

/**
 * A wait in ms as Quota.resetMs: rounded up to a whole ms, 0 for a moment already past, capped
 * at MAX_RESET_MS; null for NaN. Float noise is dropped first (beyond 15 significant digits), so
 * that `0.035 s * 1000`, which is 35.00000000000001, is 35 ms and not 36.
 */
function wholeMs(ms: number): number | null {
  if (Number.isNaN(ms)) return null;
  if (ms <= 0) return 0;
  if (ms >= MAX_RESET_MS) return MAX_RESET_MS;
  return Math.max(1, Math.ceil(Number(ms.toPrecision(15))));
}

/** A quota from its parts, or null without a remaining count or a reset; a zero limit or window is left out. */
function quotaOf(remaining: number | null, resetSeconds: number | null, limit?: number | null, windowSeconds?: number | null): Quota | null {
  const resetMs = resetSeconds === null ? null : wholeMs(resetSeconds * 1000);
  if (remaining === null || resetMs === null) return null;
  const quota: { remaining: number; resetMs: number; limit?: number; windowMs?: number } = { remaining, resetMs };
  if (limit) quota.limit = limit; // nonNegativeInteger and integerField cap at 2^31 - 1 already
  if (windowSeconds) quota.windowMs = windowSeconds * 1000;
  return quota;
}

/** A partition key as text: a Byte Sequence (draft-10's `pk`) in base64, or a String or Token as it is. */
function partitionOf(value: unknown): string | null {
  if (value instanceof ArrayBuffer) return btoa(String.fromCharCode(...new Uint8Array(value)));
  return typeof value === 'string' ? value : value instanceof Token ? value.toString() : null;
}

/** The most restrictive of several quotas: the smallest remaining; of equal ones, the later reset. */
function mostRestrictive(quotas: readonly Quota[]): Quota | null {
  let chosen: Quota | null = null;
  for (const quota of quotas) {
    if (chosen === null || quota.remaining < chosen.remaining || (quota.remaining === chosen.remaining && quota.resetMs > chosen.resetMs)) chosen = quota;
  }
  return chosen;
}

/**
 * The requests quota `requests`, unless a limit counted in another unit (tokens, bytes) is
 * exhausted: then no request gets through before it refills, so remaining is 0, and the reset is
 * the latest of its reset and the requests quota's. The later one, because once the tokens refill
 * the requests quota is still the one announced, which a Quota cannot say after a 0. The requests
 * quota's limit and window stay (they are still true). Null when neither says anything.
 */
function withExhausted(requests: Quota | null, exhaustedResetsMs: readonly number[]): Quota | null {
  if (exhaustedResetsMs.length === 0) return requests;
  const resetMs = exhaustedResetsMs.reduce((latest, ms) => Math.max(latest, ms), requests?.resetMs ?? 0); // no spread: a List may be long
  return { ...requests, remaining: 0, resetMs };
}

// ---------------------------------------------------------------------------------------------
// IETF RateLimit fields (draft-ietf-httpapi-ratelimit-headers)
// ---------------------------------------------------------------------------------------------

/** A Structured Field String or Token as text (quota unit names), else null. */
function textOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return value instanceof Token ? value.toString() : null;
}

/**
 * draft-ietf-httpapi-ratelimit-headers-10 section 4: `RateLimit: "default";r=50;t=30`, a List of
 * service limits, each naming its policy, with `r` (remaining quota units, a non-negative Integer)
 * and `t` (seconds until more quota, optional). Section 3: `RateLimit-Policy:
 * "default";q=100;w=60`, the policies by name, with `q` (the quota), `w` (the window in seconds)
 * and `qu` (the quota unit, "requests" by default). An item without a valid `r` and `t` is skipped
 * (it announces no reset). The policy of the same name, when it is a String, gives the limit and
 * the window. Several items: the most restrictive. An item whose policy counts another unit
 * (`qu="content-bytes"`, `"concurrent-requests"`) is no request count: it counts only when
 * exhausted (see withExhausted).
 */
function rateLimitList(value: string, policyField: string | null): Quota | null {
  const items = listItems(value);
  if (items === null) return null;
  // The policies by name (draft-10 3: a String); the first of a name counts. A Map, not a search per item.
  const policies = new Map<string, ListItem[1]>();
  for (const [name, params] of (policyField === null ? null : listItems(policyField)) ?? []) {
    if (typeof name === 'string' && !policies.has(name)) policies.set(name, params);
  }
  const requests: Quota[] = [];
  const exhausted: number[] = [];
  for (const [name, params] of items) {
    const remaining = nonNegativeInteger(params.get('r'));
    const reset = nonNegativeInteger(params.get('t'));
    if (remaining === null || reset === null) continue;
    // A name of another type than String matches no policy.
    const policy = typeof name === 'string' ? policies.get(name) : undefined;
    const unit = policy?.has('qu') ? textOf(policy.get('qu')) : 'requests';
    // draft-10 10.3 registers "request" while 3.1.2 defines "requests": both are requests.
    if (unit !== 'requests' && unit !== 'request') {
      if (remaining === 0) exhausted.push(reset * 1000);
      continue;
    }
    const quota = quotaOf(remaining, reset, nonNegativeInteger(policy?.get('q')), nonNegativeInteger(policy?.get('w')));
    const partition = partitionOf(params.get('pk') ?? policy?.get('pk'));
    if (quota !== null) requests.push(partition === null ? quota : { ...quota, partition });
  }
  return withExhausted(mostRestrictive(requests), exhausted);
}

/**
 * draft-ietf-httpapi-ratelimit-headers-07 (express-rate-limit's `standardHeaders: 'draft-7'`):
 * `RateLimit: limit=100, remaining=50, reset=30`, a Dictionary (reset in delta seconds), with
 * `RateLimit-Policy: 100;w=60`, a List of quotas with their windows: the window is that of the
 * policy whose quota is the limit (or of the only policy, which then also gives the limit).
 */
function rateLimitDictionaryQuota(value: string, policyField: string | null): Quota | null {
  const dictionary = rateLimitDictionary(value);
  if (dictionary === null) return null;
  const policies = policyField === null ? [] : (listItems(policyField) ?? []);
  const policy = dictionary.limit === null ? (policies.length === 1 ? policies[0] : undefined) : policies.find(([quota]) => quota === dictionary.limit);
  const limit = dictionary.limit ?? nonNegativeInteger(policy?.[0]);
  return quotaOf(dictionary.remaining, dictionary.reset, limit, nonNegativeInteger(policy?.[1].get('w')));
}

/**
 * A `RateLimit-Limit` style value and its window. Drafts -00 to -06 send the limit alone (`100`)
 * or followed by its policies (`100, 100;w=60, 1000;w=3600`; some APIs write `window=` for `w=`),
 * and express-rate-limit's draft-6 adds `RateLimit-Policy: 100;w=60`. The limit is the first
 * member; the window that of a policy whose quota is the limit.
 */
function limitAndWindow(limitField: string | null, policyField: string | null): [limit: number | null, windowSeconds: number | null] {
  if (limitField === null) return [null, null];
  const limits = listItems(limitField) ?? [];
  const limit = integerField(limitField) ?? nonNegativeInteger(limits[0]?.[0]);
  if (limit === null) return [null, null];
  for (const [quota, params] of [...limits, ...((policyField === null ? null : listItems(policyField)) ?? [])]) {
    const window = nonNegativeInteger(params.get('w') ?? params.get('window'));
    if (quota === limit && window) return [limit, window];
  }
  return [limit, null];
}

/**
 * Three separate fields `<prefix>limit`, `<prefix>remaining` and `<prefix>reset`: the IETF drafts
 * -00 to -06 (`RateLimit-Reset` in delta seconds), and the X-RateLimit-* and X-Rate-Limit-* that
 * many APIs send (GitHub: `x-ratelimit-reset` in UTC epoch seconds, docs.github.com "Rate limits
 * for the REST API"; @fastify/rate-limit: delta seconds). The reset is read by delay.ts's rule:
 * at least 1e12 is epoch ms, at least 1e9 epoch seconds, else delta seconds.
 */
function separateFields(headers: Fields, prefix: string, clock: () => number, policyField: string | null = null): Quota | null {
  const remaining = integerField(headerValue(headers, `${prefix}remaining`));
  if (remaining === null) return null;
  const reset = resetSecondsUntil(headerValue(headers, `${prefix}reset`), clock());
  if (reset === null) return null;
  const [limit, windowSeconds] = limitAndWindow(headerValue(headers, `${prefix}limit`), policyField);
  return quotaOf(remaining, reset, limit, windowSeconds);
}

// ---------------------------------------------------------------------------------------------
// Vendors
// ---------------------------------------------------------------------------------------------

/**
 * OpenAI (platform.openai.com/docs/guides/rate-limits, "Rate limits in headers"):
 * `x-ratelimit-limit-requests`, `x-ratelimit-remaining-requests` and `x-ratelimit-reset-requests`
 * (a Go duration: `1s`, `6m0s`, `20ms`). Tokens are no requests, but `x-ratelimit-remaining-tokens:
 * 0` lets no request through before `x-ratelimit-reset-tokens`.
 */
function openAi(headers: Fields): Quota | null {
  const remaining = headerValue(headers, 'x-ratelimit-remaining-requests');
  const tokensLeft = headerValue(headers, 'x-ratelimit-remaining-tokens');
  if (remaining === null && tokensLeft === null) return null;
  const requests = quotaOf(
    integerField(remaining),
    goDurationSeconds(headerValue(headers, 'x-ratelimit-reset-requests')),
    integerField(headerValue(headers, 'x-ratelimit-limit-requests')),
  );
  const exhausted: number[] = [];
  if (decimalValue(tokensLeft) === 0) {
    const tokens = wholeMs((goDurationSeconds(headerValue(headers, 'x-ratelimit-reset-tokens')) ?? Number.NaN) * 1000);
    if (tokens !== null) exhausted.push(tokens);
  }
  return withExhausted(requests, exhausted);
}

// RFC 3339 section 5.6 date-time: `2025-01-15T14:24:00Z`, `2025-01-15T14:24:00.5+01:00` ("T" and
// "Z" in either case, and the space its section 5.6 note allows), surrounding spaces and tabs ignored.
const RFC3339 = /^[ \t]*(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:[Zz]|([+-])(\d{2}):(\d{2}))[ \t]*$/;

/** An RFC 3339 date-time as ms since the epoch, or null when it is not one or names an impossible moment. */
function rfc3339Ms(value: string | null): number | null {
  const m = value === null ? null : RFC3339.exec(value);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const offset = m[8] === undefined ? 0 : (m[8] === '-' ? -1 : 1) * (Number(m[9]) * 60 + Number(m[10]));
  if (hour > 23 || minute > 59 || second > 60 || Number(m[9] ?? 0) > 23 || Number(m[10] ?? 0) > 59) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0-99 as 1900-1999
  if (date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null; // Feb 30, month 13
  // A leap second (60) is read as the first second of the next minute, as parseHttpDate does.
  return date.getTime() + ((hour * 60 + minute - offset) * 60 + second) * 1000 + Number(m[7] ?? 0) * 1000;
}

/** Seconds from `clock` until an RFC 3339 date-time, or null. */
function rfc3339SecondsUntil(value: string | null, clock: number): number | null {
  const ms = rfc3339Ms(value);
  return ms === null ? null : (ms - clock) / 1000;
}

/**
 * Anthropic (docs.anthropic.com/en/api/rate-limits, "Response headers"):
 * `anthropic-ratelimit-requests-limit`, `-remaining` and `-reset` (RFC 3339). Its token limits
 * (`anthropic-ratelimit-tokens-*`, `-input-tokens-*`, `-output-tokens-*`) count as OpenAI's do:
 * only when exhausted.
 */
function anthropic(headers: Fields, clock: () => number): Quota | null {
  const field = (name: string): string | null => headerValue(headers, `anthropic-ratelimit-${name}`);
  // Every Anthropic answer has the requests fields; without them, none of its fields are looked for.
  if (field('requests-remaining') === null && field('tokens-remaining') === null) return null;
  const requests = quotaOf(
    integerField(field('requests-remaining')),
    rfc3339SecondsUntil(field('requests-reset'), clock()),
    integerField(field('requests-limit')),
  );
  const exhausted: number[] = [];
  for (const unit of ['tokens', 'input-tokens', 'output-tokens']) {
    if (decimalValue(field(`${unit}-remaining`)) !== 0) continue;
    const reset = rfc3339SecondsUntil(field(`${unit}-reset`), clock());
    const ms = reset === null ? null : wholeMs(reset * 1000);
    if (ms !== null) exhausted.push(ms);
  }
  return withExhausted(requests, exhausted);
}

// ---------------------------------------------------------------------------------------------
// All sources
// ---------------------------------------------------------------------------------------------

/** A source of a quota; `clock` reads the response's Date only when a source needs it. */
type Source = (headers: Fields, clock: () => number) => Quota | null;

/** The sources in order of precedence; the first that answers wins, and none borrows from another. */
const SOURCES: readonly Source[] = [
  // RateLimit: the draft-10 List, else the draft-07 Dictionary, each with its RateLimit-Policy.
  (headers) => {
    const value = headerValue(headers, 'ratelimit');
    if (value === null) return null;
    const policy = headerValue(headers, 'ratelimit-policy');
    return rateLimitList(value, policy) ?? rateLimitDictionaryQuota(value, policy);
  },
  // RateLimit-Limit / -Remaining / -Reset (drafts -00 to -06), with a RateLimit-Policy.
  (headers, clock) => separateFields(headers, 'ratelimit-', clock, headerValue(headers, 'ratelimit-policy')),
  (headers, clock) => separateFields(headers, 'x-ratelimit-', clock),
  (headers, clock) => separateFields(headers, 'x-rate-limit-', clock),
  (headers) => openAi(headers),
  (headers, clock) => anthropic(headers, clock),
];

/**
 * The request quota `headers` announce, or null when they announce none (or only a malformed
 * one). Never throws.
 *
 * Sources, the first that gives both a remaining count and a reset wins (a malformed or partial
 * one is skipped, and the next may answer; a source never borrows a value from another):
 *
 * 1. `RateLimit` as the List of draft-10 (with `RateLimit-Policy` of the same name for the limit
 *    and window; several policies: the smallest remaining, of equal ones the later reset), else as
 *    the Dictionary of draft-07 (with `RateLimit-Policy: 100;w=60`);
 * 2. `RateLimit-Limit`, `-Remaining`, `-Reset` of drafts -00 to -06;
 * 3. `X-RateLimit-Limit`, `-Remaining`, `-Reset`, then `X-Rate-Limit-*`: the reset as epoch ms,
 *    epoch seconds (GitHub) or delta seconds, told apart by size as delayFrom does;
 * 4. OpenAI's `x-ratelimit-*-requests` (Go durations);
 * 5. Anthropic's `anthropic-ratelimit-requests-*` (RFC 3339).
 *
 * Limits counted in tokens or bytes are not requests: they count only when exhausted, and then
 * remaining is 0 until the later of their reset and the requests quota's. Dates and epochs count
 * from the response's `Date` when it is a valid HTTP-date, else from `now` (ms, default
 * Date.now()); a reset in the past is 0. `remaining` and `limit` are capped at 2^31 - 1, `resetMs`
 * and `windowMs` at MAX_DELAY_SECONDS * 1000. Retry-After is not read: that is delayFrom's.
 */
export function quotaFrom(headers: HeadersInput, now?: number): Quota | null {
  try {
    const fields = toHeaders(headers);
    let at: number | undefined;
    const clock = (): number => (at ??= responseClock(fields, now));
    for (const source of SOURCES) {
      let quota: Quota | null = null;
      try {
        quota = source(fields, clock);
      } catch {
        quota = null; // a Headers whose get throws: this source has no answer
      }
      if (quota !== null) return quota;
    }
    return null;
  } catch {
    return null;
  }
}
