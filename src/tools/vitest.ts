// @agent-index/errors/vitest: vitest matchers for error responses, registered with expect.extend
// when this module is imported. `vitest` is an optional peer dependency: only tests that import
// this subpath load it. Codes, statuses, retry words and media types come from the catalog and the
// site side's own renderers, never from literals here.
import { expect, type ExpectStatic, type MatcherState } from 'vitest';
import type { AnyCode } from '../../generated/types.js';
import { isKnownCode, lookup } from '../core/catalog.js';
import { retryAfterSeconds } from '../core/delay.js';
import { headerValue, toHeaders, type Fields, type HeadersInput } from '../core/headers.js';
import { parseHttpDate, referenceClock } from '../core/http-date.js';
import { isRecord, own } from '../core/json.js';
import { frontMatter } from '../core/front-matter.js';
import { errorHeaders } from '../core/render.js';
import { validateEnvelope, validateProblem, type ValidationIssue, type ValidationResult } from '../core/validate.js';
import { violations, type ViolationRule } from './violations.js';

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

/**
 * A response as a test holds it, when it is not a Fetch `Response`: a `supertest` (superagent)
 * response, or a plain object. `text`, when it is a string, is the raw body and wins over `body`
 * (superagent leaves `body` as `{}` for a type it does not parse, such as an HTML page); `body` is
 * a string (parsed as JSON when it is JSON), bytes, or an already parsed JSON value.
 */
export interface ResponseShape {
  readonly status?: number;
  /** Node's name for the status, accepted when `status` is absent. */
  readonly statusCode?: number;
  /** A plain object (any case; Node and supertest give lower case), a Headers, or entry pairs. */
  readonly headers?: HeadersInput;
  readonly body?: unknown;
  readonly text?: string;
}

/** What the two matchers accept: a Fetch `Response` (matchers are then async) or a {@link ResponseShape}. */
export type AgentResponse = Response | ResponseShape;

/** A body kind of the contract. */
export type AgentBodyKind = 'envelope' | 'problem';

/** Options of `toSatisfyAgentContract`. */
export interface AgentContractOptions {
  /** The code the body must carry. */
  readonly code?: AnyCode;
  /** The body kind the response must carry; by default either, as its content type says. */
  readonly kind?: AgentBodyKind;
  /**
   * The clock (ms) an HTTP-date `Retry-After` counts from when the response has no valid `Date`.
   * @default Date.now()
   */
  readonly now?: number;
}

/**
 * What a matcher call returns: a Promise for a Fetch `Response`, whose body is read from a clone
 * (`await` it), and nothing for a supertest response or a plain object (the check runs at once).
 */
export type AgentMatcherReturn<T> = T extends Response ? Promise<void> : void;

/** The `{ pass, message }` verdict vitest expects from a matcher. */
export interface AgentMatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

declare module 'vitest' {
  // vitest 4 merges Matchers into expect(...) assertions and into the asymmetric expect.* forms.
  interface Matchers<T = any> {
    /**
     * The response is an error (status 4xx or 5xx) whose body is the contract: a valid envelope or
     * a valid problem. With `code`, the body carries that code. It does not check the status
     * against the catalog, Retry-After or the content type: `toSatisfyAgentContract` does.
     *
     * Async for a Fetch `Response` (await it; the body is read from a clone, so the caller can
     * still read it), synchronous for a supertest response and a plain `{ status, headers, body }`.
     * @example
     * await expect(await fetch(url)).toBeAgentError('rate_limited');
     * expect(await supertest(app).get('/orders/42')).toBeAgentError('not_found');
     * expect({ status: 404, headers: {}, body: notFound }).not.toBeAgentError('rate_limited');
     */
    toBeAgentError(code?: AnyCode): AgentMatcherReturn<T>;
    /**
     * The response keeps the whole contract: the body validates (an envelope for
     * `application/json`, a problem for `application/problem+json`); the status is the catalog's
     * for a known code, any 4xx or 5xx for a site's own code; `Retry-After` equals the body's delay
     * (both absent is fine, one without the other is not); the content type is the body kind's;
     * and `violations` finds nothing.
     *
     * Async for a Fetch `Response` (await it), synchronous for the other shapes.
     * @example
     * await expect(await fetch(url)).toSatisfyAgentContract();
     * expect(await supertest(app).get('/busy')).toSatisfyAgentContract({ code: 'rate_limited', kind: 'envelope' });
     */
    toSatisfyAgentContract(options?: AgentContractOptions): AgentMatcherReturn<T>;
  }
  // expect.not.toBeAgentError(...) and expect.not.toSatisfyAgentContract(...), for the non-Response
  // shapes only: an asymmetric matcher cannot wait for a body.
  interface AsymmetricMatchersContaining {
    toBeAgentError(code?: AnyCode): AgentMatcherReturn<any>;
    toSatisfyAgentContract(options?: AgentContractOptions): AgentMatcherReturn<any>;
  }
}

// ---------------------------------------------------------------------------------------------
// Vocabulary
// ---------------------------------------------------------------------------------------------

// RFC 9110 section 15: the 4xx (client error) and 5xx (server error) classes. Class bounds, not a
// catalog status: the catalog's statuses are read with lookup().
const FIRST_ERROR_STATUS = 400;
const PAST_LAST_ERROR_STATUS = 600;

/** The media type of a content type value: no parameters, lower case; null when absent or empty. */
function mediaType(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const type = value.split(';', 1)[0]!.trim().toLowerCase();
  return type === '' ? null : type;
}

/** The media type each body kind is sent with, as the site side renders it (errorHeaders). */
const MEDIA: Readonly<Record<AgentBodyKind, string>> = {
  envelope: mediaType(errorHeaders('envelope', null)['content-type'])!,
  problem: mediaType(errorHeaders('problem', null)['content-type'])!,
};

const ARTICLE: Readonly<Record<AgentBodyKind, string>> = { envelope: 'an envelope', problem: 'a problem' };

/** The member each body kind carries its delay in. */
const DELAY_PATH: Readonly<Record<AgentBodyKind, string>> = { envelope: 'error.retry_after', problem: 'retry_after_seconds' };

// The rules of violations() each of this module's own checks already states; a finding of one is
// shown only when that check found nothing (say, a problem whose status member is not the response's).
const RULE_TOPIC: Readonly<Record<ViolationRule, string>> = {
  'wait-without-delay': 'body',
  'delay-not-whole-seconds': 'body',
  'fix-without-param': 'body',
  'promise-without-delay': 'prose',
  'retry-after-disagrees': 'Retry-After',
  'retry-after-missing': 'Retry-After',
  'not-the-contract': 'body',
  'next-step-unknown': 'body',
  'retry-word-unknown': 'body',
  'status-disagrees': 'status',
};

const MAX_ISSUES = 8;
const PREVIEW = 300;

// ---------------------------------------------------------------------------------------------
// Reading a response
// ---------------------------------------------------------------------------------------------

/** The body as the matchers read it. */
type Body =
  | { readonly kind: 'empty' }
  | { readonly kind: 'json'; readonly value: unknown; readonly text: string | null }
  | { readonly kind: 'text'; readonly text: string };

/** What the matchers judge: one response, whatever shape it came in. */
interface Snapshot {
  readonly status: number | null;
  readonly headers: Fields;
  readonly contentType: string | null;
  readonly media: string | null;
  readonly body: Body;
}

function bodyFromText(text: string): Body {
  if (text.trim() === '') return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown, text };
  } catch {
    return { kind: 'text', text };
  }
}

function bodyFromValue(value: unknown): Body {
  if (value === undefined || value === null) return { kind: 'empty' };
  if (typeof value === 'string') return bodyFromText(value);
  if (value instanceof ArrayBuffer) return bodyFromText(new TextDecoder().decode(value));
  if (ArrayBuffer.isView(value)) return bodyFromText(new TextDecoder().decode(value));
  return { kind: 'json', value, text: null };
}

/** The Markdown rendering's media type: a problem whose members are its YAML front matter (errorHeaders('markdown')). */
const MARKDOWN = mediaType(errorHeaders('markdown', null)['content-type'])!;

function snapshot(status: unknown, headersInput: HeadersInput, body: Body): Snapshot {
  const headers = toHeaders(headersInput);
  const contentType = headerValue(headers, 'content-type');
  const media = mediaType(contentType);
  // A Markdown answer is judged as the problem its front matter holds, sent as problem details are.
  if (media === MARKDOWN && body.kind === 'text') {
    const members = frontMatter(body.text.trimStart());
    if (members !== null) return { status: typeof status === 'number' ? status : null, headers, contentType, media: MEDIA.problem, body: { kind: 'json', value: members, text: body.text } };
  }
  return { status: typeof status === 'number' ? status : null, headers, contentType, media, body };
}

/** A Fetch Response, from this realm's fetch or from another implementation with the same surface. */
function isFetchResponse(value: unknown): value is Response {
  if (typeof Response === 'function' && value instanceof Response) return true;
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  const headers = r.headers as { get?: unknown } | undefined;
  return typeof r.clone === 'function' && typeof r.text === 'function' && typeof r.status === 'number' && 'bodyUsed' in r && typeof headers?.get === 'function';
}

function isResponseShape(value: unknown): value is ResponseShape {
  return isRecord(value) && ['status', 'statusCode', 'body', 'text'].some((k) => k in value);
}

function readShape(value: ResponseShape): Snapshot {
  const status = typeof value.status === 'number' ? value.status : value.statusCode;
  // superagent names its headers both `headers` and `header`.
  const headers = (value.headers ?? (value as { header?: HeadersInput }).header) as HeadersInput;
  const body = typeof value.text === 'string' ? bodyFromText(value.text) : bodyFromValue(value.body);
  return snapshot(status, headers, body);
}

/**
 * Runs `judge` on `received`: at once for a supertest response or a plain object, after reading a
 * clone's body for a Fetch Response. Anything else, and a Response whose body was already read, is
 * a mistake in the test rather than a verdict: it throws, with `.not` as without.
 */
function judged(name: string, received: unknown, judge: (response: Snapshot) => AgentMatcherResult): AgentMatcherResult | Promise<AgentMatcherResult> {
  if (isFetchResponse(received)) {
    if (received.bodyUsed) {
      throw new TypeError(`${name}: the Response's body was already read, so there is no body left to check; call the matcher before reading it (the matcher reads a clone and leaves the body to you)`);
    }
    const copy = received.clone();
    return copy.text().then((text) => judge(snapshot(received.status, received.headers, bodyFromText(text))));
  }
  if (isResponseShape(received)) return judge(readShape(received));
  throw new TypeError(`${name}: expected a Fetch Response, a supertest response or a { status, headers, body } object, received ${show(received)}`);
}

// ---------------------------------------------------------------------------------------------
// Words
// ---------------------------------------------------------------------------------------------

function clip(text: string, max = PREVIEW): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A value as a message shows it: strings quoted, objects as JSON, never throwing. */
function show(value: unknown): string {
  if (value === undefined) return 'missing';
  if (typeof value === 'string') return JSON.stringify(clip(value, 80));
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? typeof value : clip(text, 80);
  } catch {
    return typeof value;
  }
}

function showCode(code: unknown): string {
  return code === undefined ? 'no code' : show(code);
}

function showStatus(status: number | null): string {
  return status === null ? 'no status' : String(status);
}

function preview(body: Body): string {
  switch (body.kind) {
    case 'empty':
      return 'no body';
    case 'text':
      return clip(body.text.replace(/\s+/g, ' ').trim());
    case 'json':
      return clip(body.text !== null ? body.text.replace(/\s+/g, ' ').trim() : show(body.value));
  }
}

/** The response in one line: status, content type, body. */
function received(response: Snapshot): string {
  return `Received: ${showStatus(response.status)}, ${response.contentType === null ? 'no content type' : `content-type ${response.contentType}`}, ${preview(response.body)}`;
}

/** Validation issues one a line, each with its JSON pointer, indented under the line they explain. */
function issueLines(issues: readonly ValidationIssue[], indent = '      '): string {
  const shown = issues.slice(0, MAX_ISSUES).map((i) => `\n${indent}${i.pointer || '(the whole body)'}: ${i.message}`);
  const more = issues.length > MAX_ISSUES ? `\n${indent}… and ${issues.length - MAX_ISSUES} more` : '';
  return shown.join('') + more;
}

function hint(state: MatcherState, name: string, args: string): string {
  const chain = [state.promise, state.isNot ? 'not' : ''].filter((p) => p).map((p) => `.${p}`).join('');
  return `expect(response)${chain}.${name}(${args})`;
}

function message(state: MatcherState, name: string, args: string, response: Snapshot, pass: boolean, failed: string, problems: readonly string[], held: string): () => string {
  return () => {
    const head = hint(state, name, args);
    const body = pass ? held : `${failed}:\n${problems.map((p) => `  - ${p}`).join('\n')}`;
    return `${head}\n\n${body}\n\n${received(response)}`;
  };
}

// ---------------------------------------------------------------------------------------------
// Reading the body as the contract
// ---------------------------------------------------------------------------------------------

function isErrorStatus(status: number | null): boolean {
  return status !== null && status >= FIRST_ERROR_STATUS && status < PAST_LAST_ERROR_STATUS;
}

/** The kind a body's members say it is, valid or not; null for no JSON object. */
function shapeKind(value: unknown): AgentBodyKind | null {
  if (!isRecord(value)) return null;
  if (Object.hasOwn(value, 'error')) return 'envelope';
  return ['type', 'title', 'status', 'detail', 'code', 'next_step'].some((m) => Object.hasOwn(value, m)) ? 'problem' : null;
}

/** The code a body carries, valid or not. */
function codeOf(value: unknown, kind: AgentBodyKind | null): unknown {
  if (kind === 'envelope') return own(own(value, 'error'), 'code');
  if (kind === 'problem') return own(value, 'code');
  return undefined;
}

/** The body's delay member and its value; `present` is false when missing or null (the envelope's "no delay"). */
function delayOf(value: unknown, kind: AgentBodyKind | null): { path: string; value: unknown; present: boolean } | null {
  if (kind === null) return null;
  const member = kind === 'envelope' ? own(own(value, 'error'), 'retry_after') : own(value, 'retry_after_seconds');
  return { path: DELAY_PATH[kind], value: member, present: member !== undefined && member !== null };
}

interface Reading {
  readonly envelope: ValidationResult<unknown> | null;
  readonly problem: ValidationResult<unknown> | null;
  /** The kind the body validates as, or null. */
  readonly valid: AgentBodyKind | null;
  /** The kind the body validates as, else the kind its members suggest, else null. */
  readonly kind: AgentBodyKind | null;
  readonly value: unknown;
}

function read(body: Body): Reading {
  if (body.kind !== 'json') return { envelope: null, problem: null, valid: null, kind: null, value: undefined };
  const envelope = validateEnvelope(body.value);
  const problem = validateProblem(body.value);
  const valid = envelope.valid ? 'envelope' : problem.valid ? 'problem' : null;
  return { envelope, problem, valid, kind: valid ?? shapeKind(body.value), value: body.value };
}

/** Why a body that is no JSON at all is not the contract, or null when it is JSON. */
function notJson(body: Body): string | null {
  if (body.kind === 'empty') return `body: empty; expected ${ARTICLE.envelope} or ${ARTICLE.problem}`;
  if (body.kind === 'text') return `body: not JSON: ${show(body.text.replace(/\s+/g, ' ').trim())}`;
  return null;
}

// ---------------------------------------------------------------------------------------------
// toBeAgentError
// ---------------------------------------------------------------------------------------------

function judgeAgentError(state: MatcherState, response: Snapshot, code: AnyCode | undefined): AgentMatcherResult {
  const problems: string[] = [];
  const reading = read(response.body);

  if (!isErrorStatus(response.status)) {
    problems.push(`status: expected an error status (4xx or 5xx), received ${showStatus(response.status)}`);
  }
  const bare = notJson(response.body);
  if (bare !== null) {
    problems.push(bare);
  } else if (reading.valid === null) {
    if (reading.kind !== null) {
      const result = reading.kind === 'envelope' ? reading.envelope! : reading.problem!;
      problems.push(`body: not a valid ${reading.kind}:${issueLines(result.errors)}`);
    } else {
      const first = (r: ValidationResult<unknown> | null): readonly ValidationIssue[] => (r?.errors ?? []).slice(0, 3);
      const deeper = '        ';
      problems.push(`body: neither an envelope nor a problem:\n      as an envelope:${issueLines(first(reading.envelope), deeper)}\n      as a problem:${issueLines(first(reading.problem), deeper)}`);
    }
  }
  const carried = codeOf(reading.value, reading.kind);
  if (code !== undefined && carried !== code) problems.push(`code: expected ${show(code)}, received ${showCode(carried)}`);

  const pass = problems.length === 0;
  const wanted = code === undefined ? 'an agent error' : `an agent error with code ${show(code)}`;
  const what = `status ${showStatus(response.status)}, ${reading.valid === null ? 'no valid body' : `a valid ${reading.valid}`} with code ${show(carried)}`;
  return {
    pass,
    message: message(
      state,
      'toBeAgentError',
      code === undefined ? '' : show(code),
      response,
      pass,
      `Expected ${wanted}, but`,
      problems,
      `Expected the response not to be ${wanted}, but it is one: ${what}.`,
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// toSatisfyAgentContract
// ---------------------------------------------------------------------------------------------

/** The clock an HTTP-date Retry-After counts from: the response's Date when valid, else `now`. */
function clockOf(headers: Fields, now: number | undefined): number {
  const local = referenceClock(now);
  const date = headerValue(headers, 'date');
  return (date === null ? null : parseHttpDate(date, local)) ?? local;
}

function judgeContract(state: MatcherState, response: Snapshot, options: AgentContractOptions): AgentMatcherResult {
  const problems: { topic: string; text: string }[] = [];
  const add = (topic: string, text: string): void => void problems.push({ topic, text });
  const reading = read(response.body);
  const byType: AgentBodyKind | null = response.media === MEDIA.problem ? 'problem' : response.media === MEDIA.envelope ? 'envelope' : null;
  // The kind the body is validated as: the content type's, else what the body is.
  const chosen: AgentBodyKind = byType ?? reading.kind ?? 'envelope';
  const code = codeOf(reading.value, reading.kind);

  // The status: the catalog's for a known code, an error status for a site's own code.
  if (isKnownCode(code)) {
    const status = lookup(code).status;
    if (response.status !== status) add('status', `status: expected ${status}, the catalog's status for code ${show(code)}, received ${showStatus(response.status)}`);
  } else if (!isErrorStatus(response.status)) {
    const why = typeof code === 'string' ? ` for the site's own code ${show(code)}` : '';
    add('status', `status: expected an error status (4xx or 5xx)${why}, received ${showStatus(response.status)}`);
  }

  // The content type: the body kind's media type.
  if (reading.kind !== null) {
    const want = MEDIA[reading.kind];
    if (response.media !== want) add('content-type', `content-type: expected ${want} for ${ARTICLE[reading.kind]} body, received ${response.contentType ?? 'none'}`);
  } else if (byType === null) {
    add('content-type', `content-type: expected ${MEDIA.envelope} (${ARTICLE.envelope}) or ${MEDIA.problem} (${ARTICLE.problem}), received ${response.contentType ?? 'none'}`);
  }

  // The body, validated as the kind the content type calls for.
  const bare = notJson(response.body);
  if (bare !== null) {
    add('body', bare);
  } else {
    const result = chosen === 'envelope' ? reading.envelope! : reading.problem!;
    if (!result.valid) {
      if (reading.valid !== null) {
        add('body', `body: ${ARTICLE[reading.valid]} that validates, but content-type ${response.media} calls for ${ARTICLE[chosen]}`);
      } else {
        const why = byType !== null ? ` (as content-type ${response.media} calls for)` : '';
        add('body', `body: not a valid ${chosen}${why}:${issueLines(result.errors)}`);
      }
    }
  }
  const actualKind = reading.valid ?? reading.kind;
  if (options.kind !== undefined && actualKind !== options.kind) {
    add('kind', `kind: expected ${ARTICLE[options.kind]}, received ${actualKind === null ? 'neither' : ARTICLE[actualKind]}`);
  }
  if (options.code !== undefined && code !== options.code) add('code', `code: expected ${show(options.code)}, received ${showCode(code)}`);

  // Retry-After: the same number as the body's delay, or absent with it.
  const raw = headerValue(response.headers, 'retry-after');
  const found = delayOf(reading.value, reading.kind);
  const delay = found?.present ? found : null;
  let retryAfter = 'no Retry-After and no delay in the body';
  if (raw === null) {
    if (delay !== null) add('Retry-After', `Retry-After: missing, but the body's delay ${delay.path} is ${show(delay.value)}`);
  } else {
    const seconds = retryAfterSeconds(raw, clockOf(response.headers, options.now));
    if (seconds === null) {
      add('Retry-After', `Retry-After: the header ${show(raw)} is neither delay-seconds nor an HTTP-date${delay === null ? '' : `; the body's delay ${delay.path} is ${show(delay.value)}`}`);
    } else if (delay === null) {
      const member = found === null ? '' : ` (${found.path} is ${show(found.value)})`;
      add('Retry-After', `Retry-After: the header ${show(raw)} asks for ${seconds} s, but the body carries no delay${member}`);
    } else if (seconds !== delay.value) {
      add('Retry-After', `Retry-After: the header ${show(raw)} asks for ${seconds} s, but the body's delay ${delay.path} is ${show(delay.value)}`);
    } else {
      retryAfter = `Retry-After ${show(raw)} equal to ${delay.path} ${show(delay.value)}`;
    }
  }

  // Seed 002's review, for what the checks above do not state.
  const body = response.body.kind === 'json' ? response.body.value : response.body.kind === 'text' ? response.body.text : undefined;
  const review = violations([{ name: 'response', status: response.status ?? undefined, headers: response.headers, body }], { now: options.now });
  const topics = new Set(problems.map((p) => p.topic));
  for (const finding of review) {
    if (!topics.has(RULE_TOPIC[finding.rule])) add(RULE_TOPIC[finding.rule], `violations ${finding.rule}: ${finding.message}`);
  }

  const pass = problems.length === 0;
  const args = Object.keys(options).length === 0 ? '' : show(options);
  const held = `Expected the response not to satisfy the agent error contract, but it does: status ${showStatus(response.status)}, content-type ${response.contentType ?? 'none'}, a valid ${actualKind ?? 'body'} with code ${show(code)}, ${retryAfter}.`;
  return {
    pass,
    message: message(
      state,
      'toSatisfyAgentContract',
      args,
      response,
      pass,
      'The response breaks the agent error contract',
      problems.map((p) => p.text),
      held,
    ),
  };
}

// ---------------------------------------------------------------------------------------------
// The matchers
// ---------------------------------------------------------------------------------------------

/**
 * The matcher object, for `expect.extend(agentErrorMatchers)` by hand. Each matcher returns its
 * verdict at once for a supertest response or a plain `{ status, headers, body }` object, and a
 * Promise of it for a Fetch `Response`, whose body it reads from a clone. It throws (`.not` or
 * not) when given anything else, or a Response whose body was already read.
 */
export const agentErrorMatchers = {
  toBeAgentError(this: MatcherState, response: unknown, code?: AnyCode): AgentMatcherResult | Promise<AgentMatcherResult> {
    return judged('toBeAgentError', response, (snap) => judgeAgentError(this, snap, code));
  },
  toSatisfyAgentContract(this: MatcherState, response: unknown, options: AgentContractOptions = {}): AgentMatcherResult | Promise<AgentMatcherResult> {
    return judged('toSatisfyAgentContract', response, (snap) => judgeContract(this, snap, options ?? {}));
  },
};

/**
 * Registers `toBeAgentError` and `toSatisfyAgentContract` with `expectFn.extend`. Importing this
 * module already does so for vitest's global `expect`; call it for another `expect` instance.
 * @example
 * import { expect } from 'vitest';
 * import { registerAgentErrorMatchers } from '@agent-index/errors/vitest';
 * registerAgentErrorMatchers(expect);
 */
export function registerAgentErrorMatchers(expectFn: Pick<ExpectStatic, 'extend'> = expect): void {
  expectFn.extend(agentErrorMatchers);
}

// The side effect `import '@agent-index/errors/vitest'` (in a setup file) is for.
registerAgentErrorMatchers(expect);
