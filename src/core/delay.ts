// How long a server asked an agent to wait, read from every place servers put it: Retry-After,
// vendor headers, error bodies and the IETF RateLimit fields. Every answer is a whole number of
// seconds, rounded up, never negative, at most MAX_DELAY_SECONDS; null means no source answered.
// A malformed value is never read as "retry now": it is skipped, and the next source may answer.
// Nothing here throws, whatever it is given.
import { parseDictionary, parseList } from 'structured-headers';
import { headerValue, toHeaders, type Fields, type HeadersInput } from './headers.js';
import { parseHttpDate, referenceClock } from './http-date.js';
import { own } from './json.js';

export { parseHttpDate };

/**
 * The largest delay returned: 2^31 - 1 seconds (about 68 years). A longer wait (a huge digit
 * string, a date in the far future) is capped to it rather than refused, because the server did
 * ask for a long wait and refusing would let the agent fall back to retrying soon. Note that
 * setTimeout takes at most 2^31 - 1 milliseconds: callers sleeping that long must cap again.
 */
export const MAX_DELAY_SECONDS = 2_147_483_647;

const MS_PER_SECOND = 1000;

/** A non-negative seconds value as the whole seconds returned: rounded up, capped, never -0; null for NaN. */
function wholeSeconds(seconds: number): number | null {
  if (Number.isNaN(seconds)) return null;
  if (seconds <= 0) return 0;
  return seconds >= MAX_DELAY_SECONDS ? MAX_DELAY_SECONDS : Math.ceil(seconds);
}

/** Whole seconds from `clock` until `targetMs`, rounded up; 0 for a moment already past. */
function secondsUntil(targetMs: number, clock: number): number | null {
  return wholeSeconds((targetMs - clock) / MS_PER_SECOND);
}


// ---------------------------------------------------------------------------------------------
// Retry-After (RFC 9110 section 10.2.3)
// ---------------------------------------------------------------------------------------------

// delay-seconds = 1*DIGIT (RFC 9110 10.2.3), with optional surrounding whitespace (OWS, RFC 9110 5.6.3).
// No sign, no decimal point, no exponent, no hex: `Number()` would accept `0x10`, `1e3`, `1.5`, `""`.
const DELAY_SECONDS = /^[ \t]*(\d+)[ \t]*$/;

/** A string of digits as a number, capped at MAX_DELAY_SECONDS (so a huge string never becomes Infinity). */
function digitsValue(digits: string): number {
  const value = Number(digits); // exact up to 2^53, Infinity past ~309 digits: both are capped
  return value >= MAX_DELAY_SECONDS ? MAX_DELAY_SECONDS : value;
}

/**
 * A field value that is `1*DIGIT` with optional surrounding spaces and tabs (delay-seconds, RFC
 * 9110 10.2.3; also a count such as X-RateLimit-Remaining), capped at MAX_DELAY_SECONDS (2^31 - 1);
 * null for anything else (signs, fractions, exponents, hex, empty).
 */
export function integerField(value: string | null): number | null {
  if (value === null) return null;
  const digits = DELAY_SECONDS.exec(value);
  return digits ? digitsValue(digits[1]!) : null;
}

// delay-seconds as some servers send it, with a fraction (Shopify's `Retry-After: 2.0`): digits, a
// point and digits. Read rounded up, so a client never calls before the time it was given.
const FRACTIONAL_SECONDS = /^[ \t]*(\d+)\.(\d+)[ \t]*$/;

/**
 * Seconds to wait from a `Retry-After` value (RFC 9110 section 10.2.3), or null when it is absent
 * or invalid. delay-seconds is `1*DIGIT` (leading zeros allowed, `030` is 30); a decimal fraction,
 * which the RFC does not allow but servers send (`2.0`, `1.5`), is read rounded up. Anything else
 * that is not an HTTP-date (`0x10`, `1e3`, `.5`, `-1`, `+5`, `5s`, empty) is null, never 0. A
 * digit string above MAX_DELAY_SECONDS gives MAX_DELAY_SECONDS. An HTTP-date counts from `now`
 * (ms, default Date.now()): the seconds until it, rounded up; a past date gives 0.
 */
export function retryAfterSeconds(value: string | null | undefined, now?: number): number | null {
  try {
    if (typeof value !== 'string') return null;
    const seconds = DELAY_SECONDS.exec(value);
    if (seconds) return digitsValue(seconds[1]!);
    const fractional = FRACTIONAL_SECONDS.exec(value);
    if (fractional) return Math.min(MAX_DELAY_SECONDS, digitsValue(fractional[1]!) + (/[1-9]/.test(fractional[2]!) ? 1 : 0));
    const clock = referenceClock(now);
    const date = parseHttpDate(value, clock);
    return date === null ? null : secondsUntil(date, clock);
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Other headers
// ---------------------------------------------------------------------------------------------

// A non-negative decimal number: digits with an optional fraction, no sign or exponent.
const DECIMAL = /^[ \t]*(\d+(?:\.\d+)?)[ \t]*$/;

/** A non-negative decimal field value (`12`, `1.5`; no sign or exponent) as a number, or null. */
export function decimalValue(value: string | null): number | null {
  if (value === null) return null;
  const m = DECIMAL.exec(value);
  return m ? Number(m[1]) : null; // Infinity for a huge digit string; callers cap it
}

/** A non-negative integer JSON or Structured Field value, capped at MAX_DELAY_SECONDS; null for anything else. */
export function nonNegativeInteger(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? wholeSeconds(value) : null;
}

// Go's time.Duration.String(), which OpenAI's x-ratelimit-reset-* use: `6m0s`, `20s`, `12ms`,
// `1h2m3.5s` (pkg.go.dev/time#Duration.String; platform.openai.com/docs/guides/rate-limits).
// One part at a time with a sticky regex; units must come largest first, each once.
const DURATION_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|\u00b5s|ns)/y;
const UNIT_SECONDS: Readonly<Record<string, readonly [rank: number, seconds: number]>> = {
  h: [0, 3600],
  m: [1, 60],
  s: [2, 1],
  ms: [3, 1e-3],
  us: [4, 1e-6],
  '\u00b5s': [4, 1e-6],
  ns: [5, 1e-9],
};

/** `text` without surrounding spaces and tabs (OWS); a loop, since /[ \t]+$/ backtracks quadratically. */
function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === ' ' || text[start] === '\t')) start += 1;
  while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end -= 1;
  return text.slice(start, end);
}

/** Seconds in a Go duration string such as `1h2m3.5s` (fractional, uncapped), or null. */
export function goDurationSeconds(raw: string | null): number | null {
  if (raw === null) return null;
  const value = trimOws(raw);
  if (value === '0') return 0; // Go writes a zero duration as "0s", but ParseDuration also takes "0"
  let position = 0;
  let total = 0;
  let lastRank = -1;
  while (position < value.length) {
    DURATION_PART.lastIndex = position;
    const part = DURATION_PART.exec(value);
    if (!part) return null;
    const [rank, seconds] = UNIT_SECONDS[part[2]!]!;
    if (rank <= lastRank) return null;
    lastRank = rank;
    total += Number(part[1]) * seconds;
    position = DURATION_PART.lastIndex;
  }
  return position === 0 ? null : total;
}

/**
 * An `X-RateLimit-Reset` style value, which servers send in three meanings. The rule: a value of
 * at least 1e12 is epoch milliseconds, at least 1e9 epoch seconds (GitHub's x-ratelimit-reset is
 * UTC epoch seconds, docs.github.com "Rate limits for the REST API"), and anything smaller delta
 * seconds (as other APIs and gateways send). 1e9 seconds is 2001-09-09 as an epoch and 31 years as
 * a delta, 1e12 ms is the same moment in ms: no real value is both. Epochs count from `clock`;
 * decimals are allowed (Discord's X-RateLimit-Reset is epoch seconds such as `1470173023.123`).
 * The seconds until the reset as they come: fractional, negative for a moment already past,
 * Infinity for a huge digit string; null when `value` is no such number.
 */
export function resetSecondsUntil(value: string | null, clock: number): number | null {
  const number = decimalValue(value);
  if (number === null) return null;
  if (number >= 1e12) return (number - clock) / MS_PER_SECOND;
  if (number >= 1e9) return (number * MS_PER_SECOND - clock) / MS_PER_SECOND;
  return number;
}

/** An `X-RateLimit-Reset` style value (see resetSecondsUntil) as whole seconds, rounded up, capped, never negative. */
function resetSeconds(value: string | null, clock: Clock): number | null {
  return value === null ? null : wholeSecondsOrNull(resetSecondsUntil(value, clockTime(clock)));
}

/**
 * draft-ietf-httpapi-ratelimit-headers-10: `RateLimit` is a Structured Field List
 * (RFC 9651) of quota policies, each an Item with parameters `r` (remaining quota units) and `t`
 * (seconds until quota is available again; a non-negative Integer). Several policies may apply
 * at once. Our choice: if any policy is exhausted (`r=0`) the client must wait for all of them,
 * so the largest `t` among those; otherwise the smallest `t` (the soonest more quota arrives).
 * Items without a valid `t` are skipped. Null when no item has one or the field does not parse.
 */
function rateLimitListSeconds(value: string): number | null {
  const items = listItems(value);
  if (items === null) return null;
  let exhausted: number | null = null;
  let soonest: number | null = null;
  for (const [, params] of items) {
    const t = nonNegativeInteger(params.get('t'));
    if (t === null) continue;
    if (params.get('r') === 0) exhausted = exhausted === null ? t : Math.max(exhausted, t);
    else soonest = soonest === null ? t : Math.min(soonest, t);
  }
  return exhausted ?? soonest;
}

/**
 * An Item of a Structured Field List: its bare value and its parameters. (structured-headers'
 * Item, written here so that no declaration this package ships names that package's types, whose
 * BufferSource needs the DOM library a consumer may not load.)
 */
export type ListItem = readonly [bare: unknown, params: ReadonlyMap<string, unknown>];

/**
 * The Items of a Structured Field List (RFC 9651 section 3.1), Inner Lists left out (an Inner
 * List is no policy item); null when the value does not parse as a List. The draft-10 `RateLimit`
 * and `RateLimit-Policy` fields are such Lists, and so is the `RateLimit-Limit: 10, 10;w=1` of the
 * drafts before -06.
 */
export function listItems(value: string): ListItem[] | null {
  try {
    return parseList(value).filter((member) => !Array.isArray(member[0])) as ListItem[];
  } catch {
    return null;
  }
}

/** The members of a draft-07 `RateLimit` Dictionary, each a non-negative integer or null. */
export interface RateLimitDictionary {
  readonly limit: number | null;
  readonly remaining: number | null;
  /** Delta seconds. */
  readonly reset: number | null;
}

/**
 * draft-ietf-httpapi-ratelimit-headers-07: `RateLimit` as a Dictionary `limit=100, remaining=0,
 * reset=30` (reset in delta seconds); each member a non-negative Integer (capped at
 * MAX_DELAY_SECONDS) or null. Null when the value does not parse as a Dictionary.
 */
export function rateLimitDictionary(value: string): RateLimitDictionary | null {
  let dictionary;
  try {
    dictionary = parseDictionary(value);
  } catch {
    return null;
  }
  const member = (key: string): number | null => {
    const found = dictionary.get(key);
    return found === undefined || Array.isArray(found[0]) ? null : nonNegativeInteger(found[0]);
  };
  return { limit: member('limit'), remaining: member('remaining'), reset: member('reset') };
}

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

/** A JSON object as JSON.parse makes it (no class instances, no arrays). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Duration JSON (protobuf JSON mapping, google/protobuf/duration.proto): decimal seconds with an
// `s` suffix and at most 9 fraction digits; negative durations are no wait, so refused.
const DURATION_JSON = /^(\d+)(?:\.(\d{1,9}))?s$/;
const DIGITS = /^\d+$/;

/** An integer that JSON may carry as a number or, for int64, as a digit string (protobuf JSON mapping). */
function jsonInteger(value: unknown): number | null {
  if (typeof value === 'string') return DIGITS.test(value) ? Number(value) : null;
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/** google.rpc.RetryInfo.retryDelay, as Duration JSON `"2.5s"` or as an object `{seconds, nanos}`. */
function retryDelaySeconds(delay: unknown): number | null {
  if (typeof delay === 'string') {
    const m = DURATION_JSON.exec(delay);
    if (!m) return null;
    // Rounded up exactly: any non-zero fraction adds one second (no float error on 9 digits).
    return wholeSeconds(Number(m[1]) + (m[2] !== undefined && /[1-9]/.test(m[2]) ? 1 : 0));
  }
  if (isPlainObject(delay)) {
    const seconds = own(delay, 'seconds') === undefined ? 0 : jsonInteger(own(delay, 'seconds'));
    const nanos = own(delay, 'nanos') === undefined ? 0 : jsonInteger(own(delay, 'nanos'));
    if (seconds === null || nanos === null || nanos > 999_999_999) return null;
    if (own(delay, 'seconds') === undefined && own(delay, 'nanos') === undefined) return null;
    return wholeSeconds(seconds + (nanos > 0 ? 1 : 0));
  }
  return null;
}

/** Whether an Any `@type` names google.rpc.RetryInfo (the type name is what follows the last `/`, google/protobuf/any.proto). */
function isRetryInfo(type: unknown): boolean {
  return typeof type === 'string' && type.slice(type.lastIndexOf('/') + 1) === 'google.rpc.RetryInfo';
}

/** The first valid RetryInfo delay in a google.rpc.Status `details` array. */
function statusDetailsSeconds(status: unknown): number | null {
  if (!isPlainObject(status)) return null;
  const details = own(status, 'details');
  if (!Array.isArray(details)) return null;
  for (const detail of details as unknown[]) {
    if (!isPlainObject(detail) || !isRetryInfo(own(detail, '@type'))) continue;
    const seconds = retryDelaySeconds(own(detail, 'retryDelay'));
    if (seconds !== null) return seconds;
  }
  return null;
}

/** The delay a JSON error body carries, or null. */
function bodySeconds(body: unknown): number | null {
  if (!isPlainObject(body)) return null;
  const error = own(body, 'error');
  // This package's envelope: {"error": {"code", ..., "retry_after": <non-negative integer>}} (schema/envelope.schema.json).
  const envelope = isPlainObject(error) ? nonNegativeInteger(own(error, 'retry_after')) : null;
  if (envelope !== null) return envelope;
  // RFC 9457 problem details with this package's extension member retry_after_seconds (schema/problem.schema.json).
  const problem = nonNegativeInteger(own(body, 'retry_after_seconds'));
  if (problem !== null) return problem;
  // google.rpc.Status over HTTP JSON: {"error": {"details": [{"@type": ".../google.rpc.RetryInfo",
  // "retryDelay": "2.5s"}]}} (AIP-193, google/rpc/error_details.proto); grpc-gateway sends the
  // Status itself unwrapped, {"code", "message", "details": [...]}, so that is read too.
  return statusDetailsSeconds(error) ?? statusDetailsSeconds(body) ?? vendorBodySeconds(body);
}

/** A JSON number of seconds, a fraction rounded up; null for anything but a finite non-negative number. */
function secondsNumber(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? wholeSeconds(value) : null;
}

/** The delays vendors put in their own members of an error body. */
function vendorBodySeconds(body: Record<string, unknown>): number | null {
  // own() is undefined for a member of anything but an object, so a nested look-up needs no guard.
  return (
    // A top-level retry_after in seconds: Cloudflare's agent error responses, an integer
    // (https://developers.cloudflare.com/fundamentals/reference/error-responses/), and Discord's 429,
    // a float (https://discord.com/developers/docs/topics/rate-limits, "Exceeding A Rate Limit").
    secondsNumber(own(body, 'retry_after')) ??
    // Telegram Bot API: {"ok": false, "error_code": 429, "parameters": {"retry_after": 5}}
    // (https://core.telegram.org/bots/api#responseparameters).
    secondsNumber(own(own(body, 'parameters'), 'retry_after')) ??
    // Kubernetes Status: {"kind": "Status", "details": {"retryAfterSeconds": 1}}
    // (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/status/, StatusDetails).
    secondsNumber(own(own(body, 'details'), 'retryAfterSeconds')) ??
    graphqlCostSeconds(body) ??
    siteFieldSeconds(body)
  );
}

/**
 * Seed 002's delay where a site's own format keeps it beside its other fields: an error member's
 * retry_after_seconds, and the first error of a list's retry_after or retry_after_seconds, or its
 * JSON:API meta's (the places of schema/formats.json's formats). Whole non-negative seconds, as
 * Retry-After is.
 */
function siteFieldSeconds(body: Record<string, unknown>): number | null {
  const errors = own(body, 'errors');
  const item = Array.isArray(errors) ? errors[0] : undefined;
  const meta = own(item, 'meta');
  return (
    nonNegativeInteger(own(own(body, 'error'), 'retry_after_seconds')) ??
    nonNegativeInteger(own(item, 'retry_after')) ??
    nonNegativeInteger(own(item, 'retry_after_seconds')) ??
    nonNegativeInteger(own(meta, 'retry_after')) ??
    nonNegativeInteger(own(meta, 'retry_after_seconds'))
  );
}

/**
 * Shopify's GraphQL cost limit: the points a throttled query still lacks, at the bucket's restore
 * rate per second, from {"extensions": {"cost": {"requestedQueryCost", "throttleStatus":
 * {"currentlyAvailable", "restoreRate"}}}} (https://shopify.dev/docs/api/usage/limits, GraphQL
 * Admin API rate limits).
 */
function graphqlCostSeconds(body: Record<string, unknown>): number | null {
  const cost = own(own(body, 'extensions'), 'cost');
  const status = own(cost, 'throttleStatus');
  const [requested, available, rate] = [own(cost, 'requestedQueryCost'), own(status, 'currentlyAvailable'), own(status, 'restoreRate')];
  if (typeof requested !== 'number' || typeof available !== 'number' || typeof rate !== 'number' || !(rate > 0)) return null;
  return secondsNumber(Math.max(0, requested - available) / rate);
}

// ---------------------------------------------------------------------------------------------
// All sources
// ---------------------------------------------------------------------------------------------

/** The clock a source counts dates and epochs from, read (from the Date header, else now) only when a source has one to count. */
interface Clock {
  readonly fields: Fields;
  readonly now: number | undefined;
  counted: number | undefined;
}

/** The clock's time, read once. */
const clockTime = (clock: Clock): number => (clock.counted ??= responseClock(clock.fields, clock.now));

type Source = (headers: Fields, body: unknown, clock: Clock) => number | null;

/** The headers the sources below read: a response with none of them can give a delay only in its body (bodyDelay). */
export const DELAY_HEADERS = ['retry-after', 'retry-after-ms', 'x-ms-retry-after-ms', 'ratelimit', 'ratelimit-reset', 'x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens', 'x-ratelimit-reset', 'x-rate-limit-reset'] as const;

/** The delay a body asks for (delayFrom's third source), for a response with none of DELAY_HEADERS. Never throws. */
export function bodyDelay(body: unknown): number | null {
  try {
    return bodySeconds(body);
  } catch {
    return null;
  }
}

/** The sources in order of precedence; the first that answers wins. */
const SOURCES: readonly Source[] = [
  // Retry-After (RFC 9110 10.2.3); draft-ietf-httpapi-ratelimit-headers-10 also gives it precedence over RateLimit.
  (headers, _body, clock) => {
    const value = headerValue(headers, 'retry-after');
    return value === null ? null : retryAfterSeconds(value, clockTime(clock));
  },
  // retry-after-ms: float milliseconds (OpenAI API; the openai-node SDK, like other Stainless SDKs, reads it before Retry-After).
  // x-ms-retry-after-ms: Azure's, in milliseconds (azure-sdk-for-js core-rest-pipeline, retryStrategies/
  // throttlingRetryStrategy.ts, AllRetryAfterHeaders: "retry-after-ms", "x-ms-retry-after-ms", "Retry-After").
  (headers) => msSeconds(headerValue(headers, 'retry-after-ms')) ?? msSeconds(headerValue(headers, 'x-ms-retry-after-ms')),
  // A delay in the body: this package's envelope and problem, google.rpc.RetryInfo.
  (_headers, body) => bodySeconds(body),
  // RateLimit (draft-ietf-httpapi-ratelimit-headers-10 List, then -07 Dictionary).
  (headers) => {
    const value = headerValue(headers, 'ratelimit');
    return value === null ? null : (rateLimitListSeconds(value) ?? rateLimitDictionary(value)?.reset ?? null);
  },
  // RateLimit-Reset (draft-ietf-httpapi-ratelimit-headers-00 to -06): delta seconds. A value that
  // can only be an epoch (at least 1e9) is read by the X-RateLimit-Reset rule instead of as decades.
  (headers, _body, clock) => resetSeconds(headerValue(headers, 'ratelimit-reset'), clock),
  // x-ratelimit-reset-requests / -tokens (OpenAI rate-limit headers, Go durations): the one whose
  // x-ratelimit-remaining-* is 0 (that limit is the one hit); if both or neither, the larger.
  (headers) => {
    const requests = goDurationSeconds(headerValue(headers, 'x-ratelimit-reset-requests'));
    const tokens = goDurationSeconds(headerValue(headers, 'x-ratelimit-reset-tokens'));
    if (requests === null || tokens === null) return wholeSecondsOrNull(requests ?? tokens);
    const requestsOut = decimalValue(headerValue(headers, 'x-ratelimit-remaining-requests')) === 0;
    const tokensOut = decimalValue(headerValue(headers, 'x-ratelimit-remaining-tokens')) === 0;
    if (requestsOut !== tokensOut) return wholeSeconds(requestsOut ? requests : tokens);
    return wholeSeconds(Math.max(requests, tokens));
  },
  // X-RateLimit-Reset (GitHub: epoch seconds; elsewhere delta seconds) and X-Rate-Limit-Reset
  // (the same, spelled as some APIs do): see resetSeconds for the rule telling them apart.
  (headers, _body, clock) => resetSeconds(headerValue(headers, 'x-ratelimit-reset'), clock),
  (headers, _body, clock) => resetSeconds(headerValue(headers, 'x-rate-limit-reset'), clock),
];

/** A header of float milliseconds as whole seconds, rounded up; null when it is not a non-negative decimal. */
function msSeconds(value: string | null): number | null {
  const ms = decimalValue(value);
  return ms === null ? null : wholeSeconds(ms / MS_PER_SECOND);
}

function wholeSecondsOrNull(seconds: number | null): number | null {
  return seconds === null ? null : wholeSeconds(seconds);
}

/**
 * The clock dates and epochs in `fields` count from: the response's `Date` (RFC 9110 6.6.1, the
 * moment the server made the response, on the server's clock, so its skew cancels out) when it is
 * a valid HTTP-date, else `now` (ms, default Date.now()).
 */
export function responseClock(fields: Fields, now?: number): number {
  const local = referenceClock(now);
  const dateHeader = headerValue(fields, 'date');
  return (dateHeader === null ? null : parseHttpDate(dateHeader, local)) ?? local;
}

/**
 * The delay in whole seconds (rounded up, never negative, at most MAX_DELAY_SECONDS) that a
 * response asks for, from the first source that gives a valid one, in this order:
 *
 * 1. `Retry-After` (delay-seconds or HTTP-date);
 * 2. `retry-after-ms` (OpenAI, Azure), then `x-ms-retry-after-ms` (Azure): float milliseconds;
 * 3. the body (already-parsed JSON; anything but a plain object is ignored): this package's
 *    envelope `error.retry_after`, a problem's `retry_after_seconds`, then a google.rpc.RetryInfo
 *    `retryDelay` in `error.details` (or a bare Status's `details`), then vendors' own members: a
 *    top-level `retry_after` in seconds (Cloudflare, Discord), Telegram's `parameters.retry_after`,
 *    Kubernetes' `details.retryAfterSeconds`, the wait Shopify's GraphQL cost and restore rate imply;
 * 4. `RateLimit` (draft-10 List: the largest `t` among exhausted policies, else the smallest `t`;
 *    or the draft-07 Dictionary's `reset`), then `RateLimit-Reset` (drafts up to -06);
 * 5. OpenAI's `x-ratelimit-reset-requests` / `-tokens` (the exhausted one, else the larger);
 * 6. `X-RateLimit-Reset`, then `X-Rate-Limit-Reset`: at least 1e12 is epoch ms, at least 1e9
 *    epoch seconds, else delta seconds.
 *
 * HTTP-dates and epoch timestamps count from the response's `Date` header when it is a valid
 * HTTP-date (the server's clock; its own skew cancels out), else from `now` (ms, default
 * Date.now()). A malformed value is skipped, so a later source may answer; null when none does.
 * It reads delays only: whether the response is a rate limit at all is for the caller to judge
 * (GitHub sends X-RateLimit-Reset on every response). Never throws.
 */
export function delayFrom(headers: HeadersInput, body?: unknown, now?: number): number | null {
  try {
    const fields = toHeaders(headers);
    const clock: Clock = { fields, now, counted: undefined };
    for (const source of SOURCES) {
      let seconds: number | null = null;
      try {
        seconds = source(fields, body, clock);
      } catch {
        seconds = null; // a hostile getter or proxy in the body: this source has no answer
      }
      if (seconds !== null) return seconds;
    }
    return null;
  } catch {
    return null;
  }
}
