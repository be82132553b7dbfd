// translateUpstream: an error from an API the site calls (Stripe, OpenAI, Google, another site of
// this contract, an nginx page), turned into the site's own AgentError for its caller. The rules are
// the contract's, seen from the caller: what the caller can act on stays theirs, in the caller's
// own names; what only the site can fix (its credentials, its quota, a value it made up) is the
// site's failure; an upstream's wait is the site's wait. The catalog's reader tables upstream_caller_field,
// upstream_caller_payment and upstream_site say which code each becomes.
import { READERS, RETRY_WORDS } from '../../generated/catalog.js';
import type { Envelope, EnvelopeError, FieldError } from '../../generated/types.js';
import { fromResponse } from '../core/from-response.js';
import { isRecord } from '../core/json.js';
import { lookup } from '../core/catalog.js';
import { AgentError } from './agent-error.js';
import { checkRules, DELAY, isWhole, refuse, type Checks } from '../core/refuse.js';
import { isRetryWord } from '../core/catalog.js';

/** Options of translateUpstream. */
export interface TranslateUpstreamOptions {
  /**
   * The upstream's field names for the values the caller supplied, each with the caller's own name
   * for it: `{ 'card[number]': 'card_number', email: 'contact.email' }`. An upstream `fix_input`
   * (or a `not_found` or `out_of_stock`) about a field listed here is the caller's to fix, under the
   * caller's name; about any other field, it is a value the site made up, and the site's own bug.
   * @default {} (nothing the upstream refuses is the caller's)
   */
  readonly fields?: Readonly<Record<string, string>>;
  /** Who pays: `'caller'` when the site charges the caller's own card, so a declined payment is theirs to fix. @default 'site' */
  readonly payer?: 'caller' | 'site';
  /** The seconds of the site's wait when the upstream's wait named none. @default the catalog's delay for a retry-once word (1 s) */
  readonly retryAfter?: number;
  /** The message the caller sees. Nothing of the upstream's message reaches the caller unless it is passed here. @default the code's catalog title */
  readonly message?: string;
  /** The clock HTTP-dates count from when a Response is read. @default Date.now() */
  readonly now?: number;
}

type Input = Envelope | EnvelopeError;

const string = (value: unknown): boolean => typeof value === 'string';
const UPSTREAM_CHECKS: Checks<TranslateUpstreamOptions> = {
  fields: [(value) => isRecord(value) && Object.values(value).every(string), "an object of the upstream's field names to the caller's"],
  payer: [(value) => value === 'caller' || value === 'site', "'caller' or 'site'"],
  retryAfter: [isWhole, DELAY],
  message: [(value) => string(value) && (value as string).trim() !== '', 'a non-empty string'],
  now: [(value) => typeof value === 'number' && Number.isFinite(value), 'a number of ms since the epoch'],
};

/** A Fetch Response, of this realm's fetch or another's: by its shape, as instanceof fails across realms. */
const isResponse = (value: unknown): value is Response =>
  typeof value === 'object' && value !== null && typeof (value as Response).text === 'function' && typeof (value as Response).status === 'number';

/** The upstream's envelope error, from an envelope or its error. */
function errorOf(input: Input): EnvelopeError {
  if (isRecord(input) && isRecord((input as Envelope).error)) return (input as Envelope).error;
  return input as EnvelopeError;
}

/** A table's entry for a key, own entries only. */
const entry = (table: Readonly<Record<string, string>>, key: string): string | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

/** The delay the site asks for: the upstream's own, else the configured one, else the catalog's. */
function delayOf(upstream: EnvelopeError, options: TranslateUpstreamOptions): number {
  if (upstream.retry_after !== null && Number.isSafeInteger(upstream.retry_after) && upstream.retry_after >= 0) return upstream.retry_after;
  return options.retryAfter ?? RETRY_WORDS.once.default_retry_after;
}

/** The site's failure: what only the site can fix, or an upstream wait the caller must sit out. */
function siteFailure(upstream: EnvelopeError, options: TranslateUpstreamOptions): AgentError {
  const code = READERS.upstream_site[upstream.retry];
  const waits = (RETRY_WORDS[lookup(code).retry].requires as readonly string[]).includes('retry_after');
  return new AgentError(code, { message: options.message, ...(waits ? { retryAfter: delayOf(upstream, options) } : {}), cause: upstream });
}

/**
 * The site's own AgentError for an error its upstream answered. Never leaks the upstream's message,
 * field names or URLs: the caller sees the catalog's title (or `options.message`) and its own field
 * names. The upstream error, its words and all, is the AgentError's `cause`: for the site's logs, never rendered.
 *
 * - an upstream wait (`after_delay`) or failure (`once`: a 5xx, no answer) is the site's
 *   `temporarily_unavailable`, with the upstream's delay: waiting less would not spend the site's
 *   quota any faster;
 * - a `fix_input`, `not_found` or `out_of_stock` about a field the caller supplied (in
 *   `options.fields`) keeps its code, named by the caller's field; about any other value, it is
 *   the site's `internal`;
 * - auth, grant, scope and payment errors are about the site's own credentials and account: never
 *   `auth_required` or `pay` to a caller who has nothing to fix, but the site's `internal`; a payment
 *   declined for the caller's own card (`payer: 'caller'`) stays the caller's.
 *
 * @example
 * const upstream = await fetch('https://api.stripe.com/v1/charges', init);
 * if (!upstream.ok) throw await translateUpstream(upstream, { fields: { amount: 'total' }, payer: 'caller' });
 */
export function translateUpstream(upstream: Response, options?: TranslateUpstreamOptions): Promise<AgentError>;
export function translateUpstream(upstream: Input, options?: TranslateUpstreamOptions): AgentError;
export function translateUpstream(upstream: Response | Input, options: TranslateUpstreamOptions = {}): AgentError | Promise<AgentError> {
  checkRules('translateUpstream', options, UPSTREAM_CHECKS);
  if (!isResponse(upstream)) {
    const error = errorOf(upstream);
    if (!isRecord(error) || !string(error.code) || !isRetryWord(error.retry)) refuse('translateUpstream', 'upstream', 'a Response, an envelope or its error', upstream);
  }
  if (isResponse(upstream)) {
    const { status, headers } = upstream;
    return upstream.text().then(
      (body) => translate(fromResponse(status, headers, body, options.now === undefined ? {} : { now: options.now }).error, options),
      () => translate(fromResponse(status, headers, null).error, options),
    );
  }
  return translate(errorOf(upstream), options);
}

function translate(upstream: EnvelopeError, options: TranslateUpstreamOptions): AgentError {
  const fields = options.fields ?? {};
  const payment = entry(READERS.upstream_caller_payment, upstream.code);
  if (payment !== undefined && options.payer === 'caller') return new AgentError(payment, { message: options.message, cause: upstream });
  const callers = entry(READERS.upstream_caller_field, upstream.code);
  if (callers !== undefined) {
    // Every field the upstream named must be one the caller supplied; one the site made up is the site's bug.
    const named = upstream.errors?.length ? upstream.errors.map((e) => e.field) : upstream.field === null ? [] : [upstream.field];
    const mapped = named.map((field) => entry(fields, field));
    if (named.length > 0 && mapped.every((field) => field !== undefined)) {
      const fieldErrors: FieldError[] | undefined =
        named.length > 1
          ? upstream.errors!.map((e, i) => {
              const code = entry(READERS.upstream_caller_field, e.code) ?? callers;
              return { field: mapped[i]!, code, message: `${mapped[i]}: ${lookup(code).title}` };
            })
          : undefined;
      return new AgentError(callers, { field: mapped[0]!, message: options.message ?? `${mapped[0]}: ${lookup(callers).title}`, ...(fieldErrors ? { errors: fieldErrors } : {}), cause: upstream });
    }
  }
  return siteFailure(upstream, options);
}
