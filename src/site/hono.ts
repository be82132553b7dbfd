// AgentFriendly for Hono 4: one middleware, mounted first, for an app's error responses and its
// thrown errors; or, with no middleware, an error handler for its thrown errors while
// agentFriendlyFetch (or node:http's agentFriendlyNode) converts its error responses. Only types come
// from 'hono', so importing this package never requires Hono.
import type { Context, MiddlewareHandler } from 'hono';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import { isAgentError } from './brand.js';
import { browserError, convertAnyResponse, docsPage, fetchAnswers, fetchBase, type RequestFacts } from './fetch.js';
import { baseOf, isAgentRequest, type AgentFriendlyOptions } from './friendly.js';
import { answer, checkOptions, mayBeDocs, report, type Answers } from './policy.js';

/**
 * Hono's HTTPException, by the shape Hono's own error handler checks: an error that carries its
 * response. An AgentError has that shape too (its page), so that Hono's own handler sends it without
 * logging it; it is never taken for one here.
 */
function isHttpException(error: Error): boolean {
  return typeof (error as { getResponse?: unknown }).getResponse === 'function' && !isAgentError(error);
}

/** Replaces the response: cleared first, since Hono's setter would copy the old headers onto the new one. */
function replace(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/** The node request @hono/node-server passes as `c.env.incoming`, when the app runs on it. */
interface Incoming {
  readonly headers: Record<string, string | string[] | undefined>;
  /** The request target as sent: the path and query. */
  readonly url?: string;
  readonly socket?: { readonly encrypted?: boolean };
}

function incomingOf(c: Context): Incoming | undefined {
  const incoming = (c.env as { incoming?: Incoming } | undefined)?.incoming;
  return incoming && typeof incoming.headers === 'object' && incoming.headers !== null ? incoming : undefined;
}

/**
 * Hono middleware, mounted before the routes. For an agent: a thrown AgentError is rendered; any
 * other thrown error becomes `internal` with a generic message (and goes to onError); an
 * HTTPException and every other error response (status >= 400: Hono's 404, a rate limiter's 429)
 * is converted. Browsers get the app's responses, an error's with Accept in its Vary, and for a
 * thrown AgentError its status and Retry-After on the page of the app's `onError` (Hono's own
 * handler sends the error's page); successes are never buffered.
 * @example app.use(agentFriendlyHono({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyHono(options: AgentFriendlyOptions = {}): MiddlewareHandler {
  checkOptions('agentFriendlyHono', options);
  /** The rest of the chain for an agent: its answer is converted or replaced when it is an error. */
  const forAgent = (c: Context, next: () => Promise<void>, incoming: Incoming | undefined): Promise<Response | void> =>
    // A plain promise chain, not an async function awaiting next(): one promise fewer per request.
    next().then(
      () => afterAgent(c, incoming, options),
      // What Hono's compose does not catch: a thrown non-Error, or an error handler that threw.
      (error: unknown) => answerThrown(c, incoming, error, options, true),
    );
  /**
   * The rest of the chain for anyone else: an error response gets its Vary (and a thrown AgentError's
   * status) once the app has answered; what compose does not catch gets the answer a thrown error does.
   */
  const forBrowser = (c: Context, next: () => Promise<void>, incoming: Incoming | undefined): Promise<void> =>
    next().then(
      () => (c.res.status < 400 ? undefined : heard(c, c.res, options).then(() => replace(c, browserError(c.res, isAgentError(c.error) ? c.error : undefined)))),
      (error: unknown) => answerThrown(c, incoming, error, options, true),
    );
  const proceed = (c: Context, next: () => Promise<void>, incoming: Incoming | undefined): Promise<Response | void> =>
    (isAgentRequest({ headers: incoming?.headers ?? c.req.raw.headers }, options) ? forAgent : forBrowser)(c, next, incoming);
  return (c, next) => {
    // On @hono/node-server the node request is at hand: its URL and headers are read from it, not
    // through c.req, which Hono builds on first use (a route with one handler never needs it), nor
    // through request.headers, which would build a Headers per request.
    const incoming = incomingOf(c);
    if (mayBeDocs(options, incoming?.url ?? c.req.path)) return docsPage(c.req.raw, options).then((page) => page ?? proceed(c, next, incoming));
    return proceed(c, next, incoming);
  };
}

/**
 * Tells the site of a thrown error Hono's compose caught into `c.error` and answered with its error
 * handler (`response`), once: not when that handler was Hono's own, which logged it already
 * (console.error) and answered a plain 500; an app's own handler (app.onError) logs nothing of ours.
 */
async function heard(c: Context, response: Response, options: AgentFriendlyOptions): Promise<boolean> {
  const error = c.error;
  if (!error || isHttpException(error) || isAgentError(error)) return false;
  const hono = response.status === UNKNOWN_STATUS && response.headers.get('content-type') === 'text/plain; charset=UTF-8' && (await response.clone().text()) === UNKNOWN_STATUS_TEXT;
  // The app's own handler answering with a client status (4xx) says the request was at fault: no failure to report.
  if ((!hono && response.status >= 500) || (hono && options.onError)) report(error, options, (e) => console.error(e));
  return hono;
}

/** An agent's response once the app has answered: a success as it is, an error converted, a caught thrown error replaced. */
function afterAgent(c: Context, incoming: Incoming | undefined, options: AgentFriendlyOptions): Response | void | Promise<void> {
  // A success stays as it is, even one an inner middleware made of a caught error.
  if (c.res.status < 400) return;
  // Hono caught a thrown Error into c.error and c.res holds its error handler's answer. An
  // HTTPException's response is meant for callers, and so is what the app's own error handler
  // (app.onError) answered: each is converted like any error response, its status kept. A thrown
  // AgentError is rendered itself, and Hono's own plain 500 becomes the unknown-code error.
  if (c.error && !isHttpException(c.error)) {
    const response = c.res;
    return heard(c, response, options).then((hono) => {
      if (!hono && !isAgentError(c.error)) return convertInto(c, incoming, options);
      void response.body?.cancel().catch(() => undefined);
      answerThrown(c, incoming, c.error, options, false);
    });
  }
  return convertInto(c, incoming, options);
}

/** The app's error response, converted for an agent in place. */
function convertInto(c: Context, incoming: Incoming | undefined, options: AgentFriendlyOptions): void | Promise<void> {
  const answer = convertAnyResponse(c.res, factsOf(c, incoming, options), options);
  if (!(answer instanceof Promise)) return replace(c, answer);
  return answer.then((converted) => replace(c, converted));
}

/**
 * Hono's error handler (`app.onError`), for an app whose error responses AgentFriendly converts
 * without the middleware: `agentFriendlyFetch` around the app's fetch (any runtime), or on node
 * node:http's `agentFriendlyNode` around @hono/node-server's listener. Neither takes Hono off its fast
 * path for a route with one handler, as any middleware does. An agent gets a thrown AgentError
 * rendered, and any other thrown error (not an HTTPException) as the unknown-code error with a
 * generic message; a browser gets an AgentError's page, and for anything else Hono's own plain 500.
 * Every thrown error that is not an AgentError or an HTTPException goes to `onError`, else to
 * console.error, as Hono's own handler logs it; never to a caller.
 * @example app.onError(agentFriendlyHonoErrorHandler()); export default { fetch: agentFriendlyFetch(app.fetch) };
 */
export function agentFriendlyHonoErrorHandler(options: AgentFriendlyOptions = {}): (error: Error, c: Context) => Response {
  checkOptions('agentFriendlyHonoErrorHandler', options);
  return (error, c) => {
    // An HTTPException's response is meant for callers: out as it is, converted for an agent like any error response.
    if (isHttpException(error)) return (error as unknown as { getResponse(): Response }).getResponse();
    return answer(error, honoAnswers(c, incomingOf(c), options, true), options) as Response;
  };
}

/**
 * How Hono answers a thrown error (see answer): as a Fetch handler does, its request read from
 * node's where @hono/node-server gives it, its failure Hono's plain 500 (PLAIN), its log console.error
 * where `log` (where the middleware heard of the error already, none).
 */
function honoAnswers(c: Context, incoming: Incoming | undefined, options: AgentFriendlyOptions, log: boolean): Answers<Response> {
  const answers = fetchAnswers(c.req.raw, options);
  const { accept, base } = factsOf(c, incoming, options);
  return { ...answers, agent: isAgentRequest({ headers: incoming?.headers ?? c.req.raw.headers }, options), accept, base, log: log ? answers.log : undefined };
}

/** What the adapter needs to know of the request, read only when an error is answered (no closure per request). */
function factsOf(c: Context, incoming: Incoming | undefined, options: AgentFriendlyOptions): RequestFacts {
  const request = c.req.raw;
  return incoming
    ? { method: request.method, accept: (incoming.headers.accept as string | undefined) ?? null, base: baseOf(options, incoming.headers.host, Boolean(incoming.socket?.encrypted)) }
    : { method: request.method, accept: request.headers.get('accept'), base: fetchBase(request, options) };
}

/** Replaces the response with this contract's answer to a thrown error, told to the site first where `log`. */
function answerThrown(c: Context, incoming: Incoming | undefined, error: unknown, options: AgentFriendlyOptions, log: boolean): void {
  replace(c, answer(error, honoAnswers(c, incoming, options, log), options) as Response);
}
