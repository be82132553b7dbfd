// The two bodies from one envelope error: the envelope as it is, and RFC 9457 problem details with
// this package's extension members. Builders and converters on the site side render through here.
import { RETRY_WORDS } from '../../generated/catalog.js';
import type { EnvelopeError, Problem } from '../../generated/types.js';
import { lookup } from './catalog.js';

/** What a problem body adds to an envelope error. */
export interface ProblemOptions {
  /** The origin (and path prefix) problem type URIs start with; the type is `{base}/problems/{code}`. */
  readonly base?: string;
  /** The problem type's title; the code's catalog title when left out. */
  readonly title?: string;
  /** This occurrence, for people; the error's message when left out. */
  readonly detail?: string;
  readonly instance?: string;
}

/** RFC 9457 problem details for an envelope error sent with `status`. */
export function problemFrom(error: EnvelopeError, status: number, options: ProblemOptions = {}): Problem {
  const info = lookup(error.code);
  const problem: Problem = {
    type: `${(options.base ?? '').replace(/\/+$/, '')}/problems/${error.code}`,
    title: options.title ?? (info.known ? info.title : error.message),
    status,
    detail: options.detail ?? error.message,
    code: error.code,
    next_step: RETRY_WORDS[error.retry].next_step,
    retry: error.retry,
  };
  if (options.instance !== undefined) problem.instance = options.instance;
  if (error.field !== null) problem.param = error.field;
  if (error.retry_after !== null) problem.retry_after_seconds = error.retry_after;
  if (error.errors && error.errors.length > 0) {
    problem.errors = error.errors.map((e) => ({ param: e.field, code: e.code, detail: e.message })) as Problem['errors'];
  }
  return problem;
}

/** The headers either body is sent with: its content type, Retry-After from the body's own delay, and Vary: Accept. */
export function errorHeaders(kind: 'envelope' | 'problem', retryAfter: number | null): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': kind === 'problem' ? 'application/problem+json' : 'application/json; charset=utf-8',
    vary: 'Accept',
  };
  // Seed 002: send the delay in both places, from one number.
  if (retryAfter !== null) headers['retry-after'] = String(retryAfter);
  return headers;
}
