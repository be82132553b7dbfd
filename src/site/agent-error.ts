// AgentError: the one error class of the site side. It cannot be built wrong: the catalog decides
// status and retry word, and a code whose word needs a field or a delay refuses to be built without.
import { CODE_PATTERN, CODES, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { AnyCode, Code, CodeRequirements, Envelope, FieldError, Payment, Problem, RetryWord } from '../../generated/types.js';
import { isKnownCode, isRetryWord, PAY_WORD, PAYMENT_CODE } from '../core/catalog.js';
import { errorHeaders, markdownFrom, POLICIES_FOR, problemFrom, registeredType } from '../core/render.js';
import { paymentHeaders, x402RequirementsOf } from '../core/payment.js';
import { validateEnvelope } from '../core/validate.js';
import { errorBodyKind, type ErrorBodyKind } from './accept.js';
import { BRAND, pageResponse, type Page } from './brand.js';
import { checkRules, DELAY, isWhole, quote, refuse, type Check, type Checks } from '../core/refuse.js';
import { isRecord } from '../core/json.js';
import { SITE_CODES, type SiteCodeEntry } from './site-codes.js';
import { FORMAT_WORDS, isErrorFormat, PARTS, type ErrorFormat, type Part } from '../core/format.js';
import { putAt } from './augment.js';

export { isAgentError, pageResponse, type Page } from './brand.js';

/** What every error may carry. */
export interface AgentErrorBaseOptions {
  /** A short sentence for people; the code's title when left out. Never a stack trace. */
  readonly message?: string;
  /** The request field at fault. */
  readonly field?: string;
  /** Seconds to wait before retrying: a whole, non-negative number, sent in the body and as Retry-After. */
  readonly retryAfter?: number;
  /** Several field errors at once. */
  readonly errors?: readonly FieldError[];
  /** An explanation of this occurrence for the problem body's detail; the message when left out. */
  readonly detail?: string;
  /** A URI reference for this occurrence (RFC 9457 instance). */
  readonly instance?: string;
  /** What caused it, kept for the site's logs and never rendered. */
  readonly cause?: unknown;
  /**
   * What to pay, for an error whose word is to pay (payment_required): x402 options, sent as x402's
   * PAYMENT-REQUIRED header (version 2) and in the body; or a pay-per-crawl price, sent as crawler-price.
   */
  readonly payment?: Payment;
  /**
   * The RateLimit-Policy items the request exceeded, for rate_limited, temporarily_unavailable and
   * needs_human: problem details then take the problem type the IETF RateLimit draft registers for
   * the code (section 5: quota-exceeded, temporary-reduced-capacity, abnormal-usage-detected) and
   * name them in violated-policies. Send the policies themselves in RateLimit-Policy.
   */
  readonly violatedPolicies?: readonly string[];
}

/** The options of a catalog code: what its retry word requires is required here. */
export type AgentErrorOptions<C extends Code> = AgentErrorBaseOptions & CodeRequirements[C];

/** The options of a site's own code, which names its status and retry word itself. */
export interface SiteErrorOptions extends AgentErrorBaseOptions {
  readonly status: number;
  readonly retry: RetryWord;
  /** The problem body's title; the message when left out. */
  readonly title?: string;
}

type Args<C extends Code> = keyof CodeRequirements[C] extends never ? [options?: AgentErrorOptions<C>] : [options: AgentErrorOptions<C>];

const text = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';
const string = (value: unknown): boolean => typeof value === 'string';

/** A check any value passes: the option is checked against the code below, or is anything (cause). */
const ANY: Check = [() => true, ''];

/** Every option of an error, with the checks that need nothing of its code; status, retry and payment are checked against the code below. */
const OPTION_CHECKS: Checks<AgentErrorBaseOptions & Pick<SiteErrorOptions, 'status' | 'retry' | 'title'>> = {
  field: [text, 'a non-empty string'],
  message: [text, 'a non-empty string'],
  title: [text, 'a non-empty string'],
  detail: [string, 'a string'],
  instance: [string, 'a string'],
  retryAfter: [isWhole, DELAY],
  errors: [Array.isArray, 'an array of { field, code, message }'],
  cause: ANY,
  payment: ANY,
  violatedPolicies: [(value) => Array.isArray(value) && value.length > 0 && value.every(text), 'a list of the RateLimit-Policy item names the request exceeded'],
  status: ANY,
  retry: ANY,
};
/** The options of a code a catalog titles (the package's, or a site's registered one): no title of the call's own. */
const { title: _title, ...CATALOG_CODE_CHECKS } = OPTION_CHECKS;

/** Refuses a payment an agent could not pay: on a code that does not ask for one, malformed, or x402 without what its clients sign. */
function checkPayment(who: string, retry: string, payment: unknown, fail: (rule: string) => never): void {
  if (retry !== PAY_WORD) fail(`a ${retry} error asks for no payment, so it takes no payment (only a ${PAY_WORD} error does)`);
  const issue = validateEnvelope({ error: { code: PAYMENT_CODE, message: PAYMENT_CODE, field: null, retry: PAY_WORD, retry_after: null, payment } }).errors.find((e) => e.pointer.startsWith('/error/payment'));
  if (issue) fail(`payment${issue.pointer.slice('/error/payment'.length)} ${issue.message} (the Payment schema in common.schema.json)`);
  const p = payment as Payment;
  if (p.protocol === 'x402' && x402RequirementsOf(p) === null) fail('an x402 payment is sent as version 2, with its resource and each option\'s max_timeout_seconds, which x402 clients need to sign');
  if (p.protocol === 'x402' && p.options.length === 0) fail('an x402 payment needs at least one option to pay by');
  if (p.protocol === 'pay-per-crawl' && p.price === undefined) fail('a pay-per-crawl payment needs its price');
}

/** Refuses what an agent could not act on, naming the call (`who`), the rule and the value (seed 002's builder). */
function check(who: string, word: RetryWordEntry, retry: string, options: AgentErrorBaseOptions & { readonly title?: string }): number | null {
  const fail = (rule: string): never => {
    throw new TypeError(`${who}: ${rule}`);
  };
  const { field, retryAfter, errors } = options;
  errors?.forEach((item, i) => {
    const e = (item ?? {}) as Partial<Record<keyof FieldError, unknown>>;
    if (typeof item !== 'object' || !text(e.field) || !text(e.message) || typeof e.code !== 'string' || !CODE_PATTERN.test(e.code)) {
      refuse(who, `errors[${i}]`, '{ field, code, message }: non-empty strings, the code in lowercase snake case', item);
    }
  });
  if (word.requires.includes('field') && field === undefined) fail(`a ${retry} error must name the field to fix`);
  if (word.requires.includes('retry_after') && retryAfter === undefined) fail(`a ${retry} error must say how long to wait (retryAfter)`);
  if (retryAfter !== undefined && word.next_step !== 'wait') fail(`a ${retry} error does not wait, so it takes no retryAfter`);
  if (options.payment !== undefined) checkPayment(who, retry, options.payment, fail);
  // + 0 turns -0 (Math.ceil(-0.5)) into 0, as the agent side never returns -0 either.
  return retryAfter === undefined ? (word.default_retry_after ?? null) : retryAfter + 0;
}

/** An error a site throws or returns; it renders as the envelope or as problem details. */
/** The options of AgentError's render. */
const RENDER_CHECKS: Checks<{ format?: ErrorFormat }> = { format: [isErrorFormat, FORMAT_WORDS] };

export class AgentError<C extends AnyCode = AnyCode> extends Error {
  override readonly name = 'AgentError';
  readonly code: C;
  readonly status: number;
  readonly retry: RetryWord;
  readonly field: string | null;
  /** Seconds to wait, or null; the same number as the Retry-After header. */
  readonly retryAfter: number | null;
  readonly errors: readonly FieldError[] | undefined;
  readonly detail: string;
  readonly instance: string | undefined;
  readonly title: string;
  /** What to pay, for a payment_required error; undefined for every other. */
  readonly payment: Payment | undefined;
  /** The RateLimit-Policy items the request exceeded (violated-policies), when the site named them. */
  readonly violatedPolicies: readonly string[] | undefined;

  /** Use agentError() or siteError(), which check their options at compile time too. */
  constructor(code: C, options: (AgentErrorBaseOptions & Partial<Pick<SiteErrorOptions, 'status' | 'retry' | 'title'>>) | undefined) {
    const known = isKnownCode(code);
    // A site's own code registered by defineSiteCodes: its catalog, not the call, gives status, word and title.
    const entry: Partial<SiteCodeEntry> | undefined = known ? CODES[code as Code] : SITE_CODES.get(code);
    // The builder the user called: agentError for a code of a catalog, siteError for one of the call's own.
    const who = `${entry ? 'agentError' : 'siteError'}(${quote(code)})`;
    if (!known && !CODE_PATTERN.test(String(code))) throw new TypeError(`${who}: a code is lowercase snake case, like rate_limited`);
    if (!known && !entry && options === undefined) throw new TypeError(`${who}: a site's own code takes its options { status, retry } (got none)`);
    checkRules(who, options, entry ? CATALOG_CODE_CHECKS : OPTION_CHECKS);
    options ??= {};
    if (known && (options.status !== undefined || options.retry !== undefined)) {
      throw new TypeError(`${who}: a catalog code takes its status and retry word from the catalog`);
    }
    if (entry && ((options.status ?? entry.status) !== entry.status || (options.retry ?? entry.retry) !== entry.retry)) {
      throw new TypeError(`${who}: the site's catalog gives this code status ${entry.status} and retry ${entry.retry}`);
    }
    const status = entry?.status ?? options.status;
    const retry = entry?.retry ?? options.retry;
    if (!known && !(Number.isInteger(status) && status! >= 400 && status! <= 599)) refuse(who, 'status', 'an HTTP error status, 400 to 599', status);
    if (!isRetryWord(retry)) refuse(who, 'retry', `one of ${Object.keys(RETRY_WORDS).join(', ')}`, retry);
    const word: RetryWordEntry = RETRY_WORDS[retry];
    const retryAfter = check(who, word, retry, options);
    const message = options.message ?? entry?.title ?? options.title ?? String(code);
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.status = status!;
    this.retry = retry;
    this.field = options.field ?? null;
    this.retryAfter = retryAfter;
    // Only the members a FieldError has: the envelope admits no other (additionalProperties: false).
    this.errors = options.errors?.map(({ field, code: fieldCode, message: fieldMessage }) => ({ field, code: fieldCode, message: fieldMessage }));
    this.detail = options.detail ?? message;
    this.instance = options.instance;
    this.title = entry?.title ?? options.title ?? message;
    this.payment = options.payment === undefined ? undefined : (JSON.parse(JSON.stringify(options.payment)) as Payment);
    if (options.violatedPolicies !== undefined && registeredType(String(code)) === null) {
      refuse(who, 'violatedPolicies', POLICIES_FOR, options.violatedPolicies);
    }
    this.violatedPolicies = options.violatedPolicies && [...options.violatedPolicies];
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** The JSON envelope: {error: {code, message, field, retry, retry_after}}. */
  toEnvelope(): Envelope {
    const error: Envelope['error'] = { code: this.code, message: this.message, field: this.field, retry: this.retry, retry_after: this.retryAfter };
    if (this.errors && this.errors.length > 0) error.errors = [...this.errors] as Envelope['error']['errors'];
    if (this.payment) error.payment = this.payment;
    return { error };
  }

  /** RFC 9457 problem details; `type` is `{base}/problems/{code}`, so it dereferences to the code's page. */
  toProblem(options: { base?: string } = {}): Problem {
    return problemFrom(this.toEnvelope().error, this.status, { base: options.base, title: this.title, detail: this.detail, instance: this.instance, violatedPolicies: this.violatedPolicies });
  }

  /** The headers of each body: content type, Retry-After from the same number as the body, Vary: Accept. */
  headers(kind: ErrorBodyKind = 'envelope'): Record<string, string> {
    const headers = errorHeaders(kind, this.retryAfter);
    // What to pay goes on every answer of the 402, the page included: x402 clients send Accept: */*, and read a price only from the header.
    return this.payment ? { ...headers, ...paymentHeaders(this.payment, this.message) } : headers;
  }

  /**
   * What a page of this error carries besides the page's own headers, when the app renders it
   * itself: Retry-After from the same number as the body, and what to pay (x402's PAYMENT-REQUIRED,
   * pay-per-crawl's crawler-price).
   */
  pageHeaders(): Record<string, string> {
    const headers: Record<string, string> = this.retryAfter === null ? {} : { 'retry-after': String(this.retryAfter) };
    return this.payment ? { ...headers, ...paymentHeaders(this.payment, this.message) } : headers;
  }

  /**
   * The body in a team's own error format (the lint config's `format`): `members`, the team's own
   * (copied, never changed), with the code, message, field, retry word and delay each at its place in
   * the format (a part the format names no place for is left out; `*` makes a list of one error).
   * @example agentError('rate_limited', { retryAfter: 30 }).toFormat({ code: '/code', message: '/message', retry: '/next_step', delay: '/retry_after_seconds' })
   */
  toFormat(format: ErrorFormat, members: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
    if (!isErrorFormat(format)) refuse('toFormat', 'format', FORMAT_WORDS, format);
    if (!isRecord(members)) refuse('toFormat', 'members', "an object of the team's own members", members);
    const body = structuredClone(members) as Record<string, unknown>;
    const parts: Readonly<Record<Part, unknown>> = { code: this.code, message: this.message, field: this.field, retry: this.retry, delay: this.retryAfter };
    for (const part of PARTS) {
      const place = format[part];
      if (place !== undefined && parts[part] !== null && !putAt(body, place, parts[part])) refuse('toFormat', 'format', `places the members can hold (${part} at ${place})`, members);
    }
    return body;
  }

  /**
   * The body, status and headers negotiated for a caller's Accept value: the envelope (or, with a
   * `format`, the body in the team's own format), problem details, or Markdown for a caller that
   * ranks it first.
   */
  render(accept: string | null | undefined, base?: string, options: { readonly format?: ErrorFormat } = {}): { status: number; headers: Record<string, string>; body: string } {
    checkRules('render', options, RENDER_CHECKS);
    const kind = errorBodyKind(accept);
    const body =
      kind === 'envelope' ? JSON.stringify(options.format ? this.toFormat(options.format) : this.toEnvelope()) : kind === 'problem' ? JSON.stringify(this.toProblem({ base })) : markdownFrom(this.toProblem({ base }));
    return { status: this.status, headers: this.headers(kind), body };
  }

  /**
   * The HTML page a browser gets (errorPage in page.ts, loaded on first use): its status and headers
   * (Retry-After and Vary: Accept as the JSON bodies have them) at once, its HTML when `body`
   * resolves. It links to the code's documentation page under `docs`, a path prefix (null for none).
   */
  toPage(docs: string | null = ''): Page {
    const body = import('./page.js').then((page) => page.errorPage(this, docs, CODES, RETRY_WORDS, SITE_CODES.get(this.code)));
    return { status: this.status, headers: { ...this.headers(), 'content-type': 'text/html; charset=utf-8' }, body };
  }

  /**
   * The page as a Fetch Response, its body streamed once rendered. Hono's own error handler sends it
   * for a thrown AgentError, as it sends an HTTPException's response, without logging the error.
   */
  getResponse(): Response {
    return pageResponse(this.toPage());
  }

  /** A Fetch Response, negotiated for `request` (problem details when it prefers them); type URIs use its origin. */
  toResponse(request?: Request): Response {
    const base = request ? new URL(request.url).origin : undefined;
    const { status, headers, body } = this.render(request?.headers.get('accept'), base);
    return new Response(body, { status, headers });
  }
}

/**
 * Builds the error for a catalog code. What its retry word requires is required: `field` for
 * fix_input, `retryAfter` for after_delay.
 * @example throw agentError('rate_limited', { retryAfter: 30 });
 */
export function agentError<C extends Code>(code: C, ...[options]: Args<C>): AgentError<C> {
  // Plain JavaScript can pass any code: one the catalog lacks is a site's own, which siteError builds.
  if (!isKnownCode(code)) throw new TypeError(`agentError(${quote(code)}): the catalog has no such code; a site's own code is built with siteError(code, { status, retry })`);
  return new AgentError(code, options as AgentErrorBaseOptions | undefined);
}

/**
 * Builds the error for a site's own code, which names its status and retry word.
 * @example throw siteError('coupon_expired', { status: 409, retry: 'refetch' });
 */
export function siteError<C extends string>(code: C extends Code ? never : C, options: SiteErrorOptions): AgentError<C> {
  if (isKnownCode(code)) throw new TypeError(`siteError(${quote(code)}): the catalog has this code; use agentError`);
  return new AgentError(code as C, options);
}

/**
 * Registers a site's own codes (what `codegen --extend` writes; its errors.js calls this on import)
 * and returns the builder that knows them: `agentError(code, options?)` takes a catalog code or one
 * of these, with status, retry word and title from the catalogs, and requires what the code's word
 * requires. Every adapter then serves each code's page (`pages`, its HTML) at /problems/<code>.
 * Throws a TypeError naming an entry an agent could not act on, or a code the catalog has.
 */
export function defineSiteCodes(codes: Readonly<Record<string, SiteCodeEntry>>, pages: Readonly<Record<string, string>> = {}): { agentError: (code: string, options?: AgentErrorBaseOptions) => AgentError } {
  if (!isRecord(codes)) refuse('defineSiteCodes', 'codes', 'an object of entries by code', codes);
  if (!isRecord(pages)) refuse('defineSiteCodes', 'pages', 'an object of pages by code', pages);
  for (const [code, entry] of Object.entries(codes)) {
    const who = `defineSiteCodes(${quote(code)})`;
    if (isKnownCode(code) || !CODE_PATTERN.test(code)) throw new TypeError(`${who}: a site's own code is lowercase snake case and not one of the catalog's`);
    if (!isRecord(entry)) refuse(who, 'entry', '{ status, retry, title, advice? }', entry);
    if (pages[code] !== undefined && typeof pages[code] !== 'string') refuse(who, 'page', 'the HTML of its page, a string', pages[code]);
    if (!(Number.isInteger(entry.status) && entry.status >= 400 && entry.status <= 599)) refuse(who, 'status', 'an HTTP error status, 400 to 599', entry.status);
    if (!isRetryWord(entry.retry)) refuse(who, 'retry', `one of ${Object.keys(RETRY_WORDS).join(', ')}`, entry.retry);
    if (!text(entry.title)) refuse(who, 'title', 'a non-empty string', entry.title);
    SITE_CODES.set(code, { status: entry.status, retry: entry.retry, title: entry.title, advice: entry.advice ?? RETRY_WORDS[entry.retry].advice, page: pages[code] });
  }
  return {
    agentError: (code, options = {}) => {
      if (!isKnownCode(code) && !SITE_CODES.has(code)) throw new TypeError(`agentError(${quote(code)}): neither the catalog nor the site's codes (${Object.keys(codes).join(', ')}) have it`);
      return new AgentError(code, options);
    },
  };
}
