// violations(): the review a catalog of error bodies gets in CI (seed 002, "When it goes wrong":
// run it over every body in the catalog; it reports a wait with no delay and prose that promises a
// retry without a time). Each body is read as an envelope, an RFC 9457 problem, a JSON string of
// either, or anything else; every finding names the body, a stable rule id, what is wrong (member
// and value) and what to change. The rules, their ids, summaries and fixes are schema data
// (schema/violation-rules.json, generated/violation-rules.ts); codes, statuses and retry words come
// from the generated catalog. Nothing here throws on what a body holds: only a catalog that is no
// list or record of entries, or an option of the wrong type, is refused, with a TypeError.
import { CODES, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { NextStep } from '../../generated/types.js';
import { VIOLATION_RULES, type ViolationRule } from '../../generated/violation-rules.js';
import { isKnownCode, isRetryWord } from '../core/catalog.js';
import { delayFrom, retryAfterSeconds } from '../core/delay.js';
import { headerValue, toHeaders, type HeadersInput } from '../core/headers.js';
import { parseHttpDate, referenceClock } from '../core/http-date.js';
import { isRecord, own, str, type JsonObject } from '../core/json.js';
import { checkRules, refuse, type Checks } from '../core/refuse.js';
import { validateEnvelope, validateProblem, type ValidationIssue } from '../core/validate.js';

export { VIOLATION_RULES, type ViolationRule } from '../../generated/violation-rules.js';

/** One body of a catalog under review. */
export interface CatalogBody {
  /** How the findings name this body. */
  readonly name: string;
  /** The HTTP status the body is sent with, when known. */
  readonly status?: number;
  /** The response headers the body is sent with; leave undefined to skip the Retry-After rules. */
  readonly headers?: HeadersInput;
  /** An envelope, a problem, a JSON string of either, or anything else. */
  readonly body: unknown;
}

/** A catalog as a list of named bodies, or as a record keyed by name. */
export type CatalogBodies = readonly CatalogBody[] | Readonly<Record<string, Omit<CatalogBody, 'name'>>>;

/** Options of violations(). */
export interface ViolationsOptions {
  /**
   * The clock (ms) an HTTP-date Retry-After counts from when the headers carry no valid `Date`.
   * @default Date.now()
   */
  readonly now?: number;
}

/** What each option of violations() takes. */
const VIOLATIONS_CHECKS: Checks<ViolationsOptions> = {
  now: [(value) => typeof value === 'number' && Number.isFinite(value), 'a time in milliseconds since the epoch, as Date.now() gives'],
};

/** One rule of the review, as the docs table lists it. */
export interface ViolationRuleInfo {
  /** A stable kebab-case id. */
  readonly rule: string;
  /** What the rule catches, in one sentence. */
  readonly summary: string;
  /** What to change when it fires. */
  readonly fix: string;
}

// ---------------------------------------------------------------------------------------------
// Vocabulary, all of it read from the catalog (the next-step names are the NextStep type's own)
// ---------------------------------------------------------------------------------------------

const WORDS: Readonly<Record<string, RetryWordEntry>> = RETRY_WORDS;

/** The three next steps; the type makes this list complete. */
const NEXT_STEP_NAMES: Readonly<Record<NextStep, true>> = { fix_request: true, wait: true, give_up: true };
const WAIT: NextStep = 'wait';
const FIX_REQUEST: NextStep = 'fix_request';

/** One finding of the review. */
export interface Violation {
  /** The name of the body it is about. */
  readonly body: string;
  readonly rule: ViolationRule;
  /** What is wrong, naming the member and its value. */
  readonly message: string;
  /** What to change: the rule's fix from VIOLATION_RULES. */
  readonly fix: string;
}

const RULE_ORDER = new Map<string, number>(VIOLATION_RULES.map((r, i) => [r.rule, i]));
const FIXES = new Map<string, string>(VIOLATION_RULES.map((r) => [r.rule, r.fix]));

// ---------------------------------------------------------------------------------------------
// Reading bodies
// ---------------------------------------------------------------------------------------------

const isWholeSeconds = (value: unknown): boolean => typeof value === 'number' && Number.isInteger(value) && value >= 0;

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A value as a message shows it: numbers as written (Infinity, -1, 1.5), strings quoted, never throwing. */
function show(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(clip(value));
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? typeof value : clip(text);
  } catch {
    return typeof value;
  }
}

/** The body as JSON would carry it: a JSON string is parsed, anything else is kept. */
function parseBody(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/** The members an envelope or a problem names things with. */
interface Shape {
  readonly kind: 'envelope' | 'problem' | 'other';
  /** Where member paths start: "error." for the envelope. */
  readonly prefix: string;
  /** The JSON pointer of the same place. */
  readonly pointer: string;
  /** The object whose members are read. */
  readonly members: JsonObject | null;
  readonly delayName: string;
  readonly paramName: string;
}

const PROBLEM_MEMBERS = ['type', 'title', 'status', 'detail', 'code', 'next_step', 'retry', 'param', 'retry_after_seconds'];

function shapeOf(body: unknown): Shape {
  if (isRecord(body) && Object.hasOwn(body, 'error')) {
    const error = own(body, 'error');
    return { kind: 'envelope', prefix: 'error.', pointer: '/error', members: isRecord(error) ? error : null, delayName: 'retry_after', paramName: 'field' };
  }
  if (isRecord(body) && PROBLEM_MEMBERS.some((m) => Object.hasOwn(body, m))) {
    return { kind: 'problem', prefix: '', pointer: '', members: body, delayName: 'retry_after_seconds', paramName: 'param' };
  }
  return { kind: 'other', prefix: '', pointer: '', members: null, delayName: 'retry_after_seconds', paramName: 'param' };
}

/** The delay member's value, and whether it counts as present: null is the envelope's "no delay", but no problem value. */
function delayMember(shape: Shape): { value: unknown; present: boolean } {
  const value = own(shape.members, shape.delayName);
  return { value, present: value !== undefined && !(shape.kind === 'envelope' && value === null) };
}

// Seed 002's list of prose that promises a retry. Whitespace is collapsed first and every
// alternative is a fixed string, so matching is linear in the length of the text.
const PROMISE =
  /\b(?:try again (?:later|shortly|soon|in a moment)|retry (?:later|shortly|soon)|please retry|temporarily unavailable[,;:.!]? please try again)\b/i;

/** The first prose member that promises a retry, with the words that promise it. */
function promise(body: unknown): { member: string; text: string; words: string } | null {
  const prose: [string, unknown][] =
    typeof body === 'string'
      ? [['the body', body]]
      : [
          ['detail', own(body, 'detail')],
          ['message', own(body, 'message')],
          ['error', own(body, 'error')],
          ['error.message', own(own(body, 'error'), 'message')],
        ];
  for (const [member, text] of prose) {
    if (typeof text !== 'string') continue;
    const match = PROMISE.exec(text.replace(/\s+/g, ' '));
    if (match) return { member, text, words: match[0] };
  }
  return null;
}

/** Retry-After in seconds, counted from the Date header when it is valid, else from `now`. */
function retryAfterHeader(headers: HeadersInput, now: number | undefined): { raw: string | null; seconds: number | null } {
  const fields = toHeaders(headers);
  const raw = headerValue(fields, 'retry-after');
  if (raw === null) return { raw, seconds: null };
  const local = referenceClock(now);
  const date = headerValue(fields, 'date');
  const clock = (date === null ? null : parseHttpDate(date, local)) ?? local;
  return { raw, seconds: retryAfterSeconds(raw, clock) };
}

// ---------------------------------------------------------------------------------------------
// The review of one body
// ---------------------------------------------------------------------------------------------

interface Finding {
  readonly rule: ViolationRule;
  readonly message: string;
}

function review(entry: { status: unknown; headers: HeadersInput; hasHeaders: boolean; body: unknown }, now: number | undefined): Finding[] {
  const found: Finding[] = [];
  const covered: string[] = []; // JSON pointers whose schema issues a finding below already reports
  const add = (rule: ViolationRule, message: string, ...pointers: string[]): void => {
    found.push({ rule, message });
    covered.push(...pointers);
  };
  const has = (rule: ViolationRule): boolean => found.some((f) => f.rule === rule);

  const body = parseBody(entry.body);
  const shape = shapeOf(body);
  const m = shape.members;
  const at = (member: string): string => `${shape.prefix}${member}`;
  const pointer = (member: string): string => `${shape.pointer}/${member}`;

  const code = own(m, 'code');
  const retry = own(m, 'retry');
  const word = isRetryWord(retry) ? WORDS[retry]! : null;
  const nextStep = shape.kind === 'problem' ? own(m, 'next_step') : undefined;
  const delay = delayMember(shape);

  // Seed 002, "Give every error four fields": next_step is one of three values; the schema enumerates them.
  if (nextStep !== undefined && !(typeof nextStep === 'string' && Object.hasOwn(NEXT_STEP_NAMES, nextStep))) {
    add('next-step-unknown', `next_step is ${show(nextStep)}, not one of ${Object.keys(NEXT_STEP_NAMES).join(', ')}`, pointer('next_step'));
  }
  // The catalog's retry words (schema/catalog.json) are the only ones an agent switches on.
  if (retry !== undefined && word === null && shape.kind !== 'other') {
    add('retry-word-unknown', `${at('retry')} is ${show(retry)}, not a retry word of the catalog`, pointer('retry'));
  }

  // Seed 002, "Give every error four fields": a wait without a delay is refused (the problem schema requires retry_after_seconds for next_step wait).
  const waits = (word !== null && word.next_step === WAIT && word.requires.includes('retry_after')) || nextStep === WAIT;
  if (shape.kind !== 'other' && waits && !delay.present) {
    const why = word !== null && word.requires.includes('retry_after') ? `${at('retry')} is ${show(retry)}, which waits for a delay` : `next_step is ${show(nextStep)}`;
    add('wait-without-delay', `${why}, but ${at(shape.delayName)} is ${show(delay.value)}`, pointer(shape.delayName));
  }

  // Seed 002, "Give every error four fields": a delay that is not a whole number of seconds is refused, as Retry-After's delay-seconds is.
  if (shape.kind !== 'other' && delay.present && !isWholeSeconds(delay.value)) {
    add('delay-not-whole-seconds', `${at(shape.delayName)} is ${show(delay.value)}, not a whole non-negative number of seconds`, pointer(shape.delayName));
  }

  // Seed 002, "Give every error four fields": a fix without a parameter is refused; the catalog says which retry words require a field.
  if (shape.kind !== 'other' && str(m, shape.paramName) === null) {
    let why: string | null = null;
    if (word !== null) {
      if (word.requires.includes('field')) why = `${at('retry')} is ${show(retry)}, which asks for a change to one field`;
    } else if (shape.kind === 'problem') {
      if (isKnownCode(code)) {
        const codeWord = CODES[code].retry;
        if (WORDS[codeWord]!.requires.includes('field')) why = `code ${show(code)} asks for a change to one field (retry ${codeWord})`;
      } else if (nextStep === FIX_REQUEST) {
        why = `next_step is ${show(nextStep)} for code ${show(code)}`;
      }
    }
    if (why !== null) add('fix-without-param', `${why}, but ${at(shape.paramName)} is ${show(own(m, shape.paramName))}`, pointer(shape.paramName));
  }

  // Seed 002, "When it goes wrong": a detail that promises a retry without a time; one missing delay is one finding, so not beside wait-without-delay.
  const bodyDelay = delay.present ? (isWholeSeconds(delay.value) ? delayFrom(undefined, body) : null) : delayFrom(undefined, body);
  const defaultDelay = word?.default_retry_after ?? null;
  if (!delay.present && bodyDelay === null && defaultDelay === null && !has('wait-without-delay')) {
    const promised = promise(body);
    if (promised) {
      add('promise-without-delay', `${promised.member} ${show(promised.text)} promises a retry ("${promised.words}"), but no field says when`);
    }
  }

  // Seed 002, "When it goes wrong": send the delay in both places, from one number, for the client that reads headers and never bodies.
  if (entry.hasHeaders && !has('wait-without-delay') && !has('delay-not-whole-seconds')) {
    const header = retryAfterHeader(entry.headers, now);
    const expected = bodyDelay ?? defaultDelay;
    const bodySays = bodyDelay !== null ? (delay.present ? `${at(shape.delayName)} is ${show(delay.value)}` : `the body's delay is ${bodyDelay}`) : null;
    if (header.raw === null) {
      if (bodySays !== null) add('retry-after-missing', `${bodySays}, but there is no Retry-After header`);
    } else if (header.seconds === null) {
      add('retry-after-disagrees', `Retry-After ${show(header.raw)} is neither delay-seconds nor an HTTP-date`);
    } else if (expected === null) {
      add('retry-after-disagrees', `Retry-After ${show(header.raw)} asks for ${header.seconds} s, but the body carries no delay`);
    } else if (header.seconds !== expected) {
      const says = bodySays ?? `the body carries no delay and ${at('retry')} ${show(retry)} defaults to ${expected}`;
      add('retry-after-disagrees', `Retry-After ${show(header.raw)} asks for ${header.seconds} s, but ${says}`);
    }
  }

  // The catalog gives every known code one status (the schema's const); a problem's status member is the response's status (RFC 9457 section 3.1.2).
  {
    const given = typeof entry.status === 'number' ? entry.status : undefined;
    const member = shape.kind === 'problem' && typeof own(m, 'status') === 'number' ? (own(m, 'status') as number) : undefined;
    if (isKnownCode(code)) {
      const catalog = CODES[code].status;
      const parts: string[] = [];
      if (given !== undefined && given !== catalog) parts.push(`the response status is ${given}`);
      if (member !== undefined && member !== catalog) parts.push(`the status member is ${member}`);
      const pointers = member !== undefined && member !== catalog ? ['/status'] : [];
      if (parts.length > 0) add('status-disagrees', `${parts.join(' and ')}, but the catalog gives code ${show(code)} status ${catalog}`, ...pointers);
    }
    if (!has('status-disagrees') && given !== undefined && member !== undefined && given !== member) {
      add('status-disagrees', `the status member is ${member}, but the response status is ${given}`);
    }
  }

  // The contract itself (schema/envelope.schema.json, schema/problem.schema.json), less what the rules above already said.
  const envelope = validateEnvelope(body);
  const problem = validateProblem(body);
  if (!envelope.valid && !problem.valid) {
    const uncovered = (issues: readonly ValidationIssue[]): ValidationIssue[] =>
      issues.filter((i) => !covered.some((p) => i.pointer === p || i.pointer.startsWith(`${p}/`)));
    const describe = (issues: readonly ValidationIssue[]): string => issues.map((i) => `${i.pointer || '(the body)'}: ${i.message}`).join('; ');
    if (shape.kind === 'other') {
      const what = body === undefined ? 'there is no body, so it' : `the body ${show(body)}`;
      const firsts = [...new Set([envelope.errors.slice(0, 1), problem.errors.slice(0, 1)].map(describe))].filter((t) => t !== '');
      add('not-the-contract', `${what} is neither an envelope nor a problem: ${firsts.join('; ')}`);
    } else {
      const issues = uncovered(shape.kind === 'envelope' ? envelope.errors : problem.errors);
      if (issues.length > 0) add('not-the-contract', `neither a valid envelope nor a valid problem; as ${shape.kind === 'envelope' ? 'an envelope' : 'a problem'}, ${describe(issues.slice(0, 2))}`);
    }
  }

  return found.sort((a, b) => RULE_ORDER.get(a.rule)! - RULE_ORDER.get(b.rule)!);
}

// ---------------------------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------------------------

/** An entry whose reading threw (a hostile getter or proxy): reviewed as a body that could not be read. */
const UNREAD: unique symbol = Symbol('unread');

/** The catalog's entries in input order, each with its name and where the caller put it; whatever cannot be read is skipped. */
function entriesOf(bodies: unknown): { name: string; at: string; entry: unknown }[] {
  const out: { name: string; at: string; entry: unknown }[] = [];
  try {
    if (Array.isArray(bodies)) {
      for (let i = 0; i < bodies.length; i += 1) {
        let entry: unknown;
        let name = `#${i}`;
        try {
          entry = bodies[i];
          const given = own(entry, 'name');
          if (typeof given === 'string') name = given;
        } catch {
          entry = UNREAD;
        }
        out.push({ name, at: `bodies[${i}]`, entry });
      }
    } else if (isRecord(bodies)) {
      for (const name of Object.keys(bodies)) {
        let entry: unknown;
        try {
          entry = bodies[name];
        } catch {
          entry = UNREAD;
        }
        out.push({ name, at: `bodies[${JSON.stringify(name)}]`, entry });
      }
    }
  } catch {
    // A throwing proxy or iterator: keep the entries read so far.
  }
  return out;
}

/**
 * Reviews every body of a catalog and lists what an agent would trip over, body by body in input
 * order, rule by rule in VIOLATION_RULES order: a wait with no delay, a delay that is not whole
 * seconds, a fix that names no parameter, prose that promises a retry without a time, a
 * Retry-After that disagrees with the body or is missing (only when `headers` is given), a body
 * outside the contract, an unknown next step or retry word, and a status the catalog does not give
 * the code. An empty list means the catalog passes. Never throws on what a body holds; throws a
 * TypeError naming violations when `bodies` is no list or record of entry objects, or an option is
 * unknown or of the wrong type.
 * @example violations([{ name: 'busy', body: { error: 'Too many requests, try again later' } }]).map((v) => v.rule)
 * // ['promise-without-delay', 'not-the-contract']
 */
export function violations(bodies: CatalogBodies, options: ViolationsOptions = {}): Violation[] {
  if (typeof bodies !== 'object' || bodies === null) refuse('violations', 'bodies', 'a list of {name, status, headers, body} or a record of {status, headers, body} by name', bodies);
  checkRules('violations', options, VIOLATIONS_CHECKS);
  const now = options.now;
  const out: Violation[] = [];
  for (const { name, at, entry } of entriesOf(bodies)) {
    // An entry that is no object is a catalog of the wrong shape (a body where {body} belongs), not a body to review.
    if (entry !== UNREAD && (typeof entry !== 'object' || entry === null || Array.isArray(entry))) refuse('violations', at, 'an entry {name, status, headers, body}', entry);
    let findings: Finding[];
    try {
      if (entry === UNREAD) throw new Error('unread');
      const headers = own(entry, 'headers') as HeadersInput;
      findings = review({ status: own(entry, 'status'), headers, hasHeaders: headers !== undefined, body: own(entry, 'body') }, now);
    } catch {
      findings = [{ rule: 'not-the-contract', message: 'the body could not be read: reading it threw' }];
    }
    for (const f of findings) out.push({ body: name, rule: f.rule, message: f.message, fix: FIXES.get(f.rule)! });
  }
  return out;
}
