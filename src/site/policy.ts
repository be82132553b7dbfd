// The one policy of AgentFriendly, which every adapter binds its framework's hooks to: what its
// options may be (checked when it is made), who hears of a thrown error (onError, else the
// framework's own log, once), what an agent and a browser are answered for one, and which requests
// may be for a documentation page. An adapter says how its framework sends, cuts off and logs; it
// decides none of this itself.
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import { fromResponse } from '../core/from-response.js';
import type { AgentError } from './agent-error.js';
import { isAgentError } from './brand.js';
import { checkRules } from '../core/refuse.js';
import { FRIENDLY_CHECKS, pageOf, renderEnvelope, type AgentFriendlyOptions, type Rendered } from './friendly.js';

/**
 * Checks an adapter's options as it is made, so that a misconfiguration fails at set-up and never
 * on a request: a TypeError naming `who` (the function the user called), the option, what it takes
 * and the value received, quoted (`agentFriendlyExpress: onError must be a function (got "log")`).
 */
export function checkOptions(who: string, options: unknown): void {
  checkRules(who, options, FRIENDLY_CHECKS);
}

/** The framework's own log: where a failure goes when the site gave no onError. */
export type Log = (error: unknown) => void;

/**
 * Tells the site of a failure, once: `onError` when it gave one, else the framework's own `log`. A
 * failure is any thrown error but an AgentError (an expected outcome) and a client error (4xx) of
 * the framework's own kind (`status`: an HttpException, an http-errors error, a Fastify 404), which
 * is the framework's answer to the caller. A stream that failed under an error page is one too.
 */
export function report(error: unknown, options: AgentFriendlyOptions, log: Log, status: number | null = null): void {
  if (!isAgentError(error) && (status === null || status >= 500)) (options.onError ?? log)(error);
}

/** Does the request's path ask for a documentation page, as far as a cheap test tells (renderProblemPage tells for sure)? */
export const mayBeDocs = (options: AgentFriendlyOptions, path: string): boolean => options.docs !== false && path.includes('/problems/');

/**
 * What a browser gets for a failure where the framework's own answer is a plain one (node:http,
 * Fetch handlers, Next.js, Hono, Koa): a bare 500, its reason phrase as text, never the message.
 */
export const PLAIN: Rendered = { status: UNKNOWN_STATUS, headers: { 'content-type': 'text/plain; charset=utf-8', vary: 'Accept' }, body: UNKNOWN_STATUS_TEXT };

/** How an adapter answers a thrown error, in its framework's terms: `answer` chooses which. */
export interface Answers<R> {
  /** The caller is an agent (isAgentRequest). */
  readonly agent: boolean;
  readonly accept: string | null;
  /** The base of problem type URIs (baseOf). */
  readonly base: string;
  /** The framework's own log: given, `answer` reports the error first (see report); left out where a hook of the framework's has. */
  readonly log?: Log;
  /** The response has begun: it can only be cut off (`cut`). */
  readonly sent?: boolean;
  readonly cut?: () => R;
  /** Sends `rendered` in place of anything the app had begun, without the headers that described that body (ENTITY_HEADERS). */
  readonly send: (rendered: Rendered) => R;
  /** The status of an error of the framework's own kind, whose answer is the framework's (`own`), converted for an agent; else null. */
  readonly status?: number | null;
  readonly own?: () => R;
  /** A browser's page for a thrown AgentError, where the app has one of its own; else the catalog's, sent once rendered. */
  readonly page?: (error: AgentError) => R | Promise<R>;
  /** The Vary the app had set, merged into the catalog page's. */
  readonly vary?: unknown;
  /** A browser's failure, as its framework answers one; else PLAIN. */
  readonly failed?: () => R;
}

/**
 * Answers a thrown error, the same way on every adapter. A begun response is cut off. A thrown
 * AgentError is an expected outcome: an agent gets it in this contract, a browser its page (the
 * app's own, else the catalog's: its status, Retry-After and Vary: Accept, never a stack). An error
 * of the framework's own kind gets the framework's answer. Anything else is a failure: an agent
 * gets `internal` with a generic message, a browser the framework's generic 500; never the error's
 * message, stack or cause, which are for the site's logs.
 */
export function answer<R>(error: unknown, a: Answers<R>, options: AgentFriendlyOptions): R | Promise<R> {
  if (a.log) report(error, options, a.log, a.status);
  if (a.sent) return a.cut!();
  if (isAgentError(error)) {
    if (a.agent) return a.send(error.render(a.accept, a.base, { format: options.format }));
    return a.page ? a.page(error) : catalogPage(error, a, options);
  }
  if (a.status != null) return a.own!();
  if (a.agent) return a.send(renderEnvelope(fromResponse(UNKNOWN_STATUS, null, null), UNKNOWN_STATUS, a.accept, a.base));
  return a.failed ? a.failed() : a.send(PLAIN);
}

/** A browser's page for a thrown AgentError from the catalog (toPage), Accept merged into the app's Vary, sent through `a` once rendered. */
export function catalogPage<R>(error: AgentError, a: Answers<R>, options: AgentFriendlyOptions): Promise<R> {
  const page = pageOf(error, options, a.vary);
  return page.body.then((body) => a.send({ ...page, body }));
}
