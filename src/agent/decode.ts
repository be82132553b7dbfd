// decode: any response, read through fromResponse, as the one decision a scripted agent makes.
import { RETRY_WORDS } from '../../generated/catalog.js';
import type { NextStep } from '../../generated/types.js';
import { fromResponse } from '../core/from-response.js';
import type { HeadersInput } from '../core/headers.js';
import { refuse } from '../core/refuse.js';

/** What to do about a response: fix the request, wait, or give up; with the delay, the field and the code. */
export interface Decoded {
  readonly action: 'fix' | 'wait' | 'give_up';
  /** Seconds to wait, when the response said. */
  readonly delay: number | null;
  /** The field to fix, when the response named one. */
  readonly param: string | null;
  readonly code: string;
}

const ACTIONS: Readonly<Record<NextStep, Decoded['action']>> = { fix_request: 'fix', wait: 'wait', give_up: 'give_up' };

/**
 * Decodes a response in any dialect. A body that says nothing (a vague sentence) decodes by its status.
 * @example decode({ status: 429, headers: { 'retry-after': '30' }, body: '' }) // { action: 'wait', delay: 30, ... }
 */
export function decode(response: { status: number; headers?: HeadersInput; body?: unknown }, now?: number): Decoded {
  if (typeof response !== 'object' || response === null) refuse('decode', 'response', 'a response { status, headers?, body? }', response);
  const { error } = fromResponse(response.status, response.headers ?? null, response.body ?? null, now === undefined ? {} : { now });
  return { action: ACTIONS[RETRY_WORDS[error.retry].next_step], delay: error.retry_after, param: error.field, code: error.code };
}
