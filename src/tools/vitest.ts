// @agent-index/errors/vitest: vitest matchers for error responses, registered with expect.extend
// when this module is imported. `vitest` is an optional peer dependency: only tests that import
// this subpath load it. Codes, statuses, retry words and media types come from the catalog and the
// site side's own renderers, never from literals here.
import { expect, type ExpectStatic, type MatcherState } from 'vitest';
import { CODE_PATTERN } from '../../generated/catalog.js';
import type { AnyCode } from '../../generated/types.js';
import { isKnownCode, lookup } from '../core/catalog.js';
import { retryAfterSeconds } from '../core/delay.js';
import { headerValue, toHeaders, type Fields, type HeadersInput } from '../core/headers.js';
import { parseHttpDate, referenceClock } from '../core/http-date.js';
import { isRecord, own } from '../core/json.js';
import { frontMatter } from '../core/front-matter.js';
import { checkRules, refuse, type Checks } from '../core/refuse.js';
import { errorHeaders } from '../core/render.js';
import { validateEnvelope, validateProblem, type ValidationIssue, type ValidationResult } from '../core/validate.js';
import { violations, type ViolationRule } from './violations.js';
import { FORMAT_WORDS, isErrorFormat, isRetryByCode, RETRY_BY_CODE_WORDS, valueAt, wordByCode, type ErrorFormat, type RetryByCode } from '../core/format.js';
import { RETRY_WORDS } from '../../generated/catalog.js';

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
  /**
   * Which statuses a known code may go out with: `'catalog'`, its catalog status; `'any'`, any error
   * status (AgentFriendly answers with the app's own status, a sold-out 404 page as out_of_stock
   * with 404). A body in the team's `format` is always judged with `'any'`. @default 'catalog'
   */
  readonly status?: 'catalog' | 'any';
  /**
   * The team's own error format (the lint config's `format`): the body is judged in it instead of
   * as an envelope or a problem. It must be JSON, name a code and a message at the format's places,
   * say what to do (a retry word at its place, else its code's in `retryByCode` or the catalog's), and
   * a wait must carry its delay at its place and as Retry-After, the same number.
   */
  readonly format?: ErrorFormat;
  /** The retry word of each of the team's own codes (the lint config's `retryByCode`). */
  readonly retryByCode?: RetryByCode;
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
     * Async for a Fetch `Response` (await it: a test that does not fails; the body is read from a
     * clone, so the caller can still read it), synchronous for a supertest response and a plain
     * `{ status, headers, body }`. A code that is neither the catalog's nor lowercase snake case
     * throws a TypeError.
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
     * Async for a Fetch `Response` (await it: a test that does not fails), synchronous for the
     * other shapes. An unknown option, or a bad value of one, throws a TypeError naming it.
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

/** What the matchers take as the response, in words. */
const RESPONSE_TAKES = 'a Fetch Response, a supertest response or a { status, headers, body } object';

/**
 * Runs `judge` on `received`: at once for a supertest response or a plain object, after reading a
 * clone's body for a Fetch Response. Anything else, and a Response whose body was already read, is
 * a mistake in the test rather than a verdict: it throws, with `.not` as without.
 */
function judged(state: MatcherState, name: keyof typeof agentErrorMatchers, args: string, received: unknown, judge: (response: Snapshot) => AgentMatcherResult): AgentMatcherResult | Promise<AgentMatcherResult> {
  if (isFetchResponse(received)) {
    if (received.bodyUsed) {
      throw new TypeError(`${name}: the Response's body was already read, so there is no body left to check; call the matcher before reading it (the matcher reads a clone and leaves the body to you)`);
    }
    const copy = received.clone();
    return watched(state, name, args, copy.text().then((text) => judge(snapshot(received.status, received.headers, bodyFromText(text)))), agentErrorMatchers[name]);
  }
  if (isResponseShape(received)) return judge(readShape(received));
  // The usual slip: expect(fetch(url)) without await, whose Promise JSON shows as {}.
  if (isThenable(received)) {
    throw new TypeError(`${name}: the response must be ${RESPONSE_TAKES} (got a Promise: await it first, or write await expect(promise).resolves.${name}(${args}))`);
  }
  return refuse(name, 'the response', RESPONSE_TAKES, received);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

// ---------------------------------------------------------------------------------------------
// A matcher nobody awaits
// ---------------------------------------------------------------------------------------------

/** How long the failure of a matcher nobody awaited waits for its verdict, to show it: well within vitest's hook timeout. */
const VERDICT_WAIT_MS = 1000;

/** Whether a call of `then` counts as the test taking the verdict up. */
type Taken = (onRejected: unknown) => boolean;

/**
 * A Promise that notes when something takes it up. A subclass rather than a bare thenable, so that
 * it stays `instanceof Promise` and `await` (which skips the `then` lookup for a plain Promise)
 * still calls its `then`; its species is Promise, so what `then` derives is a plain Promise.
 */
class Watched<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  #taken: Taken = () => true;
  #take: () => void = () => undefined;
  #derived = false;

  /**
   * `promise`, watched: `taken` says which calls of its `then` count, `take` is told of each that
   * does; with `derived`, what its `then` returns is watched too, each call of it counting.
   */
  static of<T>(promise: PromiseLike<T>, taken: Taken, take: () => void, derived: boolean): Watched<T> {
    const watched = new Watched<T>((resolve, reject) => void promise.then(resolve, reject));
    watched.#taken = taken;
    watched.#take = take;
    watched.#derived = derived;
    // A failure nobody takes up is reported by the hook of watched(), not as an unhandled rejection
    // as well, after the test. Promise.prototype.then itself, so that this does not count as taking it.
    void Promise.prototype.then.call(watched, undefined, () => undefined);
    return watched;
  }

  override then<A = T, B = never>(onFulfilled?: ((value: T) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    if (this.#taken(onRejected)) this.#take();
    const next = super.then(onFulfilled, onRejected);
    // What vitest's then(check) derives is what expect(...).matcher() hands the test: watched. What
    // the test derives from that is the test's own, a plain Promise that rejects aloud.
    return this.#derived ? Watched.of(next, () => true, this.#take, false) : next;
  }
}

/**
 * The verdict of a matcher on a Fetch Response, as a Promise that fails the test when the test
 * does not take it up. vitest runs an async custom matcher as `verdict.then(check)` and hands the
 * test what that returns; a test that does not await it checks nothing, and its failure, if any,
 * comes later as an unhandled rejection, after the test has passed. So, as vitest does for
 * expect.poll, the test's `onTestFinished` hook (through `this.task`, the test a matcher runs in,
 * from vitest's documented matcher state) fails the test when nothing took the promise up: a call
 * of `then`, `catch` or `finally` on what vitest handed the test (await, .then, Promise.all), or
 * `await` of the matcher's own result when called by hand (await passes `then` both callbacks;
 * vitest's own `then(check)` passes one, and does not count).
 */
function watched(state: MatcherState, name: string, args: string, verdict: Promise<AgentMatcherResult>, caller: Function): Promise<AgentMatcherResult> {
  const task = state.task;
  // Outside a test (a hook, a module's top level), or with the global expect in a concurrent test,
  // vitest gives no task: there is no test to fail, and the unhandled rejection is the signal left.
  if (task === undefined) return verdict;
  // The stack of the call from the test, for the failure to point at the line that did not await.
  const site = new Error('not awaited');
  // V8 and JavaScriptCore have it; elsewhere the stack keeps this module's frames too.
  Error.captureStackTrace?.(site, caller);
  let taken = false;
  let outcome: AgentMatcherResult | undefined;
  const settled = verdict.then(
    (result) => void (outcome = result),
    () => undefined,
  );
  try {
    task.context.onTestFinished(async () => {
      // A test that failed already may have skipped its await by throwing: its own error says enough.
      if (taken || task.result?.state === 'fail') return;
      // The verdict too, when the body comes within a moment (a test that ends at once has not
      // read it yet); a body that never ends (a stream) must not hold the test up.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([settled, new Promise<void>((resolve) => (timer = setTimeout(resolve, VERDICT_WAIT_MS)))]);
      clearTimeout(timer);
      // vitest leaves isNot undefined without .not.
      const fails = outcome !== undefined && outcome.pass === (state.isNot === true);
      throw notAwaited(site, hint(state, name, args), fails ? outcome : undefined);
    });
  } catch {
    // onTestFinished refuses a call from inside another onTestFinished hook: the test is ending,
    // with no later point to check at, so the verdict goes unwatched.
    return verdict;
  }
  return Watched.of(verdict, (onRejected) => typeof onRejected === 'function', () => void (taken = true), true);
}

/** The error of a matcher nobody awaited, with the stack of its call, and the failure it would have reported, if any. */
function notAwaited(site: Error, call: string, failure: AgentMatcherResult | undefined): Error {
  const lines = [
    `${call} was not awaited: on a Fetch Response the matcher reads the body, so it returns a promise, and a promise nobody awaits checks nothing. Add await:`,
    '',
    `  await ${call}`,
  ];
  if (failure !== undefined) lines.push('', 'Awaited, it fails:', '', failure.message());
  const error = new Error(lines.join('\n'));
  const frames = site.stack?.slice(site.stack.indexOf('\n') + 1);
  if (frames !== undefined) error.stack = `${error.name}: ${error.message}\n${frames}`;
  return error;
}

// ---------------------------------------------------------------------------------------------
// Arguments
// ---------------------------------------------------------------------------------------------

/** A code a matcher can expect: the catalog's, or a site's own in the catalog's syntax. */
const isCode = (value: unknown): boolean => isKnownCode(value) || (typeof value === 'string' && CODE_PATTERN.test(value));
const CODE_TAKES = 'a code of the catalog (like "rate_limited") or a site\'s own code in lowercase snake case';

const BODY_KINDS: readonly unknown[] = Object.keys(MEDIA);

/** The options of toSatisfyAgentContract, one check each: a new option that is not checked here does not compile. */
const CONTRACT_CHECKS: Checks<AgentContractOptions> = {
  code: [isCode, CODE_TAKES],
  kind: [(value) => BODY_KINDS.includes(value), BODY_KINDS.map((k) => `"${String(k)}"`).join(' or ')],
  // A Date's range (within 8.64e15 ms of the epoch): the clocks an HTTP-date can be counted from.
  now: [(value) => typeof value === 'number' && !Number.isNaN(new Date(value).getTime()), 'a time in ms since the epoch, as Date.now() gives'],
  status: [(value) => value === 'catalog' || value === 'any', '"catalog" or "any"'],
  format: [isErrorFormat, FORMAT_WORDS],
  retryByCode: [isRetryByCode, RETRY_BY_CODE_WORDS],
};

/** Refuses arguments past the ones a matcher takes, which it would otherwise ignore. */
function noMore(name: string, takes: string, extra: readonly unknown[]): void {
  if (extra.length > 0) refuse(name, 'the arguments', takes, extra);
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

/** A reading whose problem's only faults are its status against the catalog's, taken as valid: the status is judged on its own (`status: 'any'`). */
function anyStatus(reading: Reading): Reading {
  const problem = reading.problem;
  if (problem === null || problem.valid || reading.valid !== null || !problem.errors.every((issue) => issue.pointer === '/status' && issue.message.endsWith('(as the catalog says)'))) return reading;
  return { ...reading, problem: { valid: true, value: reading.value, errors: [] }, valid: 'problem', kind: 'problem' };
}

function judgeContract(state: MatcherState, response: Snapshot, options: AgentContractOptions): AgentMatcherResult {
  if (options.format !== undefined) return judgeFormat(state, response, options, options.format);
  const problems: { topic: string; text: string }[] = [];
  const add = (topic: string, text: string): void => void problems.push({ topic, text });
  const reading = options.status === 'any' ? anyStatus(read(response.body)) : read(response.body);
  const byType: AgentBodyKind | null = response.media === MEDIA.problem ? 'problem' : response.media === MEDIA.envelope ? 'envelope' : null;
  // The kind the body is validated as: the content type's, else what the body is.
  const chosen: AgentBodyKind = byType ?? reading.kind ?? 'envelope';
  const code = codeOf(reading.value, reading.kind);

  // The status: the catalog's for a known code (unless any is allowed), an error status for a site's own code.
  if (isKnownCode(code) && options.status !== 'any') {
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
    // With any status allowed, the review's own check of the status against the catalog is not asked for either.
    if (options.status === 'any' && RULE_TOPIC[finding.rule] === 'status') continue;
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

/** A body in the team's own format: its places hold what an agent acts on, and a wait's delay is in both places. */
function judgeFormat(state: MatcherState, response: Snapshot, options: AgentContractOptions, format: ErrorFormat): AgentMatcherResult {
  const problems: string[] = [];
  if (!isErrorStatus(response.status)) problems.push(`status: expected an error status (4xx or 5xx), received ${showStatus(response.status)}`);
  const body = response.body.kind === 'json' ? response.body.value : undefined;
  const bare = notJson(response.body);
  if (bare !== null) problems.push(bare);
  const at = (part: keyof ErrorFormat): unknown => (format[part] === undefined ? undefined : valueAt(body, format[part]));
  const text = (part: keyof ErrorFormat): string | null => (typeof at(part) === 'string' && (at(part) as string).trim() !== '' ? (at(part) as string) : null);
  const code = text('code');
  const told = text('retry');
  if (body !== undefined) {
    for (const part of ['code', 'message'] as const) {
      if (format[part] === undefined) problems.push(`format: names no place for the ${part}`);
      else if (text(part) === null) problems.push(`${part}: nothing at ${format[part]} (received ${show(at(part))})`);
    }
    if (options.code !== undefined && code !== options.code) problems.push(`code: expected ${show(options.code)}, received ${show(code)}`);
  }
  // What to do: the body's word, else its code's in retryByCode, else the catalog's for a catalog code.
  const word = told ?? wordByCode(options.retryByCode, code) ?? (isKnownCode(code) ? lookup(code).retry : null);
  if (body !== undefined && told !== null && !Object.hasOwn(RETRY_WORDS, told)) problems.push(`retry: ${show(told)} at ${format.retry} is not a retry word (${Object.keys(RETRY_WORDS).join(', ')})`);
  else if (body !== undefined && word === null) problems.push(`retry: no retry word at ${format.retry ?? '(no place)'}, and the code ${show(code)} is neither the catalog's nor in retryByCode`);
  // A wait: its delay at the format's place and as Retry-After, one number.
  const raw = headerValue(response.headers, 'retry-after');
  const header = raw === null ? null : retryAfterSeconds(raw, clockOf(response.headers, options.now));
  const delay = at('delay');
  if (word !== null && Object.hasOwn(RETRY_WORDS, word) && (RETRY_WORDS[word as keyof typeof RETRY_WORDS].requires as readonly string[]).includes('retry_after')) {
    if (typeof delay !== 'number') problems.push(`delay: the word ${word} needs its delay at ${format.delay ?? '(no place)'} (received ${show(delay)})`);
    if (header === null) problems.push(`Retry-After: ${raw === null ? 'missing' : `${show(raw)} is neither delay-seconds nor an HTTP-date`}, but the word ${word} says how long`);
    else if (typeof delay === 'number' && header !== delay) problems.push(`Retry-After: the header asks for ${header} s, but ${format.delay} is ${delay}`);
  }
  const pass = problems.length === 0;
  return {
    pass,
    message: message(state, 'toSatisfyAgentContract', show(options), response, pass, "The response breaks the agent error contract in the team's format", problems, `Expected the response not to satisfy the agent error contract in the team's format, but it does: status ${showStatus(response.status)}, code ${show(code)}, retry ${show(word)}.`),
  };
}

// ---------------------------------------------------------------------------------------------
// The matchers
// ---------------------------------------------------------------------------------------------

/**
 * The matcher object, for `expect.extend(agentErrorMatchers)` by hand. Each matcher returns its
 * verdict at once for a supertest response or a plain `{ status, headers, body }` object, and a
 * Promise of it for a Fetch `Response`, whose body it reads from a clone; in a test, a Promise the
 * test does not take up (await, then, catch or finally) fails the test when it ends. It throws a
 * TypeError (`.not` or not) when given anything else, a Response whose body was already read, or
 * an argument it does not take.
 */
export const agentErrorMatchers = {
  toBeAgentError(this: MatcherState, response: unknown, code?: AnyCode, ...extra: unknown[]): AgentMatcherResult | Promise<AgentMatcherResult> {
    const name = 'toBeAgentError' as const;
    noMore(name, 'at most one, the code', extra);
    if (code !== undefined && !isCode(code)) refuse(name, 'the code', CODE_TAKES, code);
    return judged(this, name, code === undefined ? '' : show(code), response, (snap) => judgeAgentError(this, snap, code));
  },
  toSatisfyAgentContract(this: MatcherState, response: unknown, options?: AgentContractOptions, ...extra: unknown[]): AgentMatcherResult | Promise<AgentMatcherResult> {
    const name = 'toSatisfyAgentContract' as const;
    noMore(name, 'at most one, the options', extra);
    checkRules(name, options, CONTRACT_CHECKS);
    const given = options ?? {};
    return judged(this, name, Object.keys(given).length === 0 ? '' : show(given), response, (snap) => judgeContract(this, snap, given));
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
