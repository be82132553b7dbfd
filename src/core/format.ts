// A team's own error format: where its JSON error body keeps each part an agent acts on, as JSON
// pointers (RFC 6901, `*` for every item of a list). One description, read the same way by the lint,
// fromResponse, the AgentFriendly adapters, the builders and the matchers, and written by the lint
// config's `format` (its `retryByCode` gives the word of each of the team's own codes).
import type { RetryWord } from '../../generated/types.js';
import { isRetryWord } from './catalog.js';
import { isRecord, own, unescapeToken } from './json.js';

/** Where a team's error body keeps each part, as JSON pointers into the body (`*` for any array item). */
export interface ErrorFormat {
  readonly code?: string;
  readonly retry?: string;
  readonly message?: string;
  readonly delay?: string;
  readonly field?: string;
}

/** The parts an error body is read for. */
export type Part = 'code' | 'retry' | 'message' | 'delay' | 'field';

/** The parts, in the order a format lists them. */
export const PARTS: readonly Part[] = ['code', 'retry', 'message', 'delay', 'field'];

/** The retry word of each of a team's own codes, as the team's body spells them. */
export type RetryByCode = Readonly<Record<string, RetryWord>>;

/** A JSON pointer to a member: one or more `/token`s. */
const PLACE = /^(?:\/[^/]+)+$/;

/** True for a JSON pointer a format may name. */
export const isPlace = (value: unknown): value is string => typeof value === 'string' && PLACE.test(value);

/** True for an error format: an object whose members are parts, each a JSON pointer. */
export function isErrorFormat(value: unknown): value is ErrorFormat {
  if (!isRecord(value)) return false;
  for (const key in value) if (!(PARTS as readonly string[]).includes(key) || !isPlace(value[key])) return false;
  return true;
}

/** What `format` takes, in words, for a refusal. */
export const FORMAT_WORDS = `an error format, JSON pointers for any of ${PARTS.join(', ')} ({ code: "/code" })`;

/** True for a map of codes to retry words. */
export function isRetryByCode(value: unknown): value is RetryByCode {
  if (!isRecord(value)) return false;
  for (const key in value) if (!isRetryWord(value[key])) return false;
  return true;
}

/** What `retryByCode` takes, in words. */
export const RETRY_BY_CODE_WORDS = 'a map of the site\'s own codes to retry words';

/** What a body has at a place: its value, or undefined; `*` takes the first item. */
export function valueAt(body: unknown, place: string): unknown {
  let current = body;
  for (const token of place.slice(1).split('/')) {
    if (token === '*') current = Array.isArray(current) ? current[0] : undefined;
    else current = own(current, unescapeToken(token));
    if (current === undefined) return undefined;
  }
  return current;
}

/** The retry word a team's map gives its code, as the body spelt it. */
export const wordByCode = (retryByCode: RetryByCode | undefined, code: unknown): RetryWord | null =>
  typeof code === 'string' && retryByCode !== undefined && Object.hasOwn(retryByCode, code) ? retryByCode[code]! : null;
