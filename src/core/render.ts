// The two bodies from one envelope error: the envelope as it is, and RFC 9457 problem details with
// this package's extension members. Builders and converters on the site side render through here.
import { READERS, RETRY_WORDS } from '../../generated/catalog.js';
import type { EnvelopeError, Problem } from '../../generated/types.js';
import { lookup } from './catalog.js';
import { checkRules, refuse, type Checks } from './refuse.js';
import { isRecord } from './json.js';

/** What a problem body adds to an envelope error. */
export interface ProblemOptions {
  /** The origin (and path prefix) problem type URIs start with; the type is `{base}/problems/{code}`. */
  readonly base?: string;
  /** The problem type's title; the code's catalog title when left out. */
  readonly title?: string;
  /** This occurrence, for people; the error's message when left out. */
  readonly detail?: string;
  readonly instance?: string;
  /**
   * The RateLimit-Policy items the request exceeded: the problem then takes the type the IETF
   * RateLimit draft registers for its code (section 5: quota-exceeded for rate_limited,
   * temporary-reduced-capacity for temporarily_unavailable, abnormal-usage-detected for needs_human)
   * and names them in violated-policies.
   */
  readonly violatedPolicies?: readonly string[];
}

const text = (value: unknown): boolean => typeof value === 'string';
const PROBLEM_CHECKS: Checks<ProblemOptions> = {
  base: [text, 'a URL prefix, a string'],
  title: [text, 'a string'],
  detail: [text, 'a string'],
  instance: [text, 'a string'],
  violatedPolicies: [(value) => Array.isArray(value) && value.length > 0 && value.every(text), 'a list of RateLimit-Policy item names'],
};

/** The IANA registry the IETF RateLimit draft's problem types are in (draft-ietf-httpapi-ratelimit-headers, section 5). */
const IANA_PROBLEM_TYPES = 'https://iana.org/assignments/http-problem-types#';

/** The problem type the IETF RateLimit draft registers for a code, if it registers one (the catalog's problem_type table read backwards, its IANA rows only). */
export function registeredType(code: string): string | null {
  for (const [type, registered] of Object.entries(READERS.problem_type)) if (registered === code && type.startsWith(IANA_PROBLEM_TYPES)) return type;
  return null;
}

/** The codes the IETF RateLimit draft has a problem type for, in words. */
const REGISTERED_CODES = Object.entries(READERS.problem_type).flatMap(([type, code]) => (type.startsWith(IANA_PROBLEM_TYPES) ? [code] : [])).join(', ');
/** What violatedPolicies is given for, in words, for a refusal. */
export const POLICIES_FOR = `given only for a code the IETF RateLimit draft has a problem type for (${REGISTERED_CODES})`;

/** RFC 9457 problem details for an envelope error sent with `status`. */
export function problemFrom(error: EnvelopeError, status: number, options: ProblemOptions = {}): Problem {
  checkRules('problemFrom', options, PROBLEM_CHECKS);
  if (!isRecord(error) || !Object.hasOwn(RETRY_WORDS, String(error.retry))) refuse('problemFrom', 'error', 'an envelope error { code, message, field, retry, retry_after }', error);
  const info = lookup(error.code);
  const registered = options.violatedPolicies === undefined ? null : registeredType(error.code);
  if (options.violatedPolicies !== undefined && registered === null) refuse('problemFrom', 'violatedPolicies', `${POLICIES_FOR}, not ${error.code}`, options.violatedPolicies);
  const problem: Problem = {
    type: registered ?? `${(options.base ?? '').replace(/\/+$/, '')}/problems/${error.code}`,
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
  // What an agent written against Cloudflare's agent error responses acts on: retryable, and its retry_after.
  problem.retryable = problem.next_step === 'wait';
  if (error.retry_after !== null) problem.retry_after = error.retry_after;
  if (error.payment) problem.payment = error.payment;
  if (registered !== null) problem['violated-policies'] = [...options.violatedPolicies!] as Problem['violated-policies'];
  if (error.errors && error.errors.length > 0) {
    problem.errors = error.errors.map((e) => ({ param: e.field, code: e.code, detail: e.message })) as Problem['errors'];
  }
  return problem;
}

/** The content type of each error body. */
const CONTENT_TYPES = {
  envelope: 'application/json; charset=utf-8',
  problem: 'application/problem+json',
  markdown: 'text/markdown; charset=utf-8',
} as const;

/** The headers each body is sent with: its content type, Retry-After from the body's own delay, and Vary: Accept. */
export function errorHeaders(kind: keyof typeof CONTENT_TYPES, retryAfter: number | null): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPES[kind], vary: 'Accept' };
  // Seed 002: send the delay in both places, from one number.
  if (retryAfter !== null) headers['retry-after'] = String(retryAfter);
  return headers;
}

/** One line of prose: white space and control characters collapsed, so no text can end the front matter or start a heading. */
const prose = (text: string): string => text.replace(/[\s\u0000-\u001f\u007f]+/g, ' ').trim();

/**
 * Problem details as Markdown, for an agent that asks for it (as Cloudflare answers agents): every
 * member as a line of YAML front matter, its value written as JSON (which YAML reads as it is, and
 * which fromResponse reads back to the same envelope), then the title, what happened and the
 * catalog's advice as prose.
 */
export function markdownFrom(problem: Problem): string {
  const lines = ['---'];
  for (const [key, value] of Object.entries(problem)) if (value !== undefined) lines.push(`${key}: ${JSON.stringify(value)}`);
  lines.push('---', '', `# ${prose(problem.title)}`, '', '## What happened', '', prose(problem.detail ?? problem.title), '');
  const info = lookup(problem.code);
  lines.push('## What you should do', '', prose(info.advice), '');
  return lines.join('\n');
}
