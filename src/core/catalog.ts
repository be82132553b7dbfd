// Look-ups in the generated catalog: what a code means and what an agent does about it.
import { CODES, RETRY_WORDS, STATUS_DEFAULTS, STATUS_FALLBACKS, STATUS_TEXT, UNKNOWN_CODE, type CodeEntry, type RetryWordEntry } from '../../generated/catalog.js';
import type { Code, CodeRetry, NextStep, RetryWord } from '../../generated/types.js';
import { refuse } from './refuse.js';

/** Everything the catalog says about one code, with its retry word's next step and advice. */
export interface CodeInfo<C extends string = string> {
  /** The code as given. */
  readonly code: C;
  /** False for a code the catalog does not list (a site's own); its other members then come from the catalog's unknown-code rule. */
  readonly known: boolean;
  readonly status: number;
  readonly retry: C extends Code ? CodeRetry[C] : RetryWord;
  readonly next_step: NextStep;
  readonly title: string;
  /** What an agent should do about this code. */
  readonly advice: string;
  /** What an agent does for the code's retry word. */
  readonly retry_advice: string;
  /** The code's family; null for a code the catalog does not list, whose family it cannot know. */
  readonly family: C extends Code ? CodeEntry['family'] : CodeEntry['family'] | null;
  /** True for a catalog code that may still change; false for a stable code and for one the catalog does not list. */
  readonly draft: boolean;
}

/** The status of the catalog's unknown-code error, what a thrown error that is not an AgentError is answered with. */
export const UNKNOWN_STATUS: number = CODES[UNKNOWN_CODE].status;
/** The reason phrase of UNKNOWN_STATUS: the generic message a browser's page for such an error carries. */
export const UNKNOWN_STATUS_TEXT: string = STATUS_TEXT[UNKNOWN_STATUS] ?? CODES[UNKNOWN_CODE].title;

/** True when `word` is one of the catalog's retry words. */
export function isRetryWord(word: unknown): word is RetryWord {
  return typeof word === 'string' && Object.hasOwn(RETRY_WORDS, word);
}

/** True when `code` is one of the catalog's codes. */
export function isKnownCode(code: unknown): code is Code {
  return typeof code === 'string' && Object.hasOwn(CODES, code);
}

/**
 * What the catalog says about `code`. A code it does not list (a site's own, or a typo) says so:
 * `known: false` and `family: null`. It keeps its name as its title, and gets the status, retry word
 * and advice of the catalog's unknown-code rule, which is how an agent treats a code it does not know.
 * @example lookup('rate_limited').retry // 'after_delay'
 * @example lookup('coupon_expired').family // null
 */
export function lookup<C extends Code>(code: C): CodeInfo<C>;
export function lookup(code: string): CodeInfo;
export function lookup(code: string): CodeInfo {
  const known = isKnownCode(code);
  const entry: CodeEntry = CODES[known ? code : UNKNOWN_CODE];
  const word = RETRY_WORDS[entry.retry];
  return {
    code,
    known,
    status: entry.status,
    retry: entry.retry,
    next_step: word.next_step,
    title: known ? entry.title : code,
    advice: known ? entry.advice : word.advice,
    retry_advice: word.advice,
    family: known ? entry.family : null,
    draft: known ? (entry.draft ?? false) : false,
  };
}

/**
 * The advice for an error as an agent holds it: its code's (for a code the catalog does not list, or
 * one sent with another retry word than the catalog's, its retry word's), or, when its word waits for a delay the response did not give (retry_after null),
 * the word's advice for a wait of unknown length, since the code's counts on the delay.
 * @example adviceFor({ code: 'rate_limited', retry: 'after_delay', retry_after: null }) // 'Wait before retrying: ...'
 */
export function adviceFor(error: { readonly code: string; readonly retry: RetryWord; readonly retry_after: number | null }): string {
  if (typeof error !== 'object' || error === null || !isRetryWord(error.retry)) refuse('adviceFor', 'error', 'an envelope error { code, retry, retry_after }', error);
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  if (error.retry_after === null && word.advice_without_delay !== undefined) return word.advice_without_delay;
  // A known code's advice is for its own word; sent with another (a site that said otherwise), the word's is what to do.
  return isKnownCode(error.code) && CODES[error.code].retry === error.retry ? CODES[error.code].advice : word.advice;
}

/** The code an agent gives an error response that names none, from its HTTP status alone. */
export function codeForStatus(status: number): Code {
  const listed = typeof status === 'number' ? STATUS_DEFAULTS[String(status)] : undefined;
  if (listed) return listed;
  // Anything that is not a 4xx (a 5xx, or a status that is no error status at all) says only that something failed.
  return typeof status === 'number' && status >= 400 && status < 500 ? STATUS_FALLBACKS['4xx'] : STATUS_FALLBACKS['5xx'];
}

/** The code a 402 means (payment_required), whose error carries what to pay. */
export const PAYMENT_CODE: Code = codeForStatus(402);
/** Its retry word: the one word whose error carries what to pay (the envelope's payment). */
export const PAY_WORD = CODES[PAYMENT_CODE].retry;
