// AgentFriendly for Express 5: agentFriendlyExpress() mounted first converts the app's error
// responses for agents; agentFriendlyExpressErrorHandler() mounted last renders thrown errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import type { AgentFriendlyOptions } from './friendly.js';
import { captureErrors, nodeAnswers, serveDocs } from './node.js';
import { answer, catalogPage, checkOptions, mayBeDocs, type Answers } from './policy.js';

type Next = (error?: unknown) => void;
type ErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void;
/** What Express adds to node's request that these read: its app (its settings) and the path it is mounted on. */
type ExpressRequest = IncomingMessage & { readonly app?: { get(setting: string): unknown }; readonly baseUrl?: string };

/**
 * Express middleware, mounted before the routes. Mounted at the app's root, it watches every
 * response of the app from its first request on; mounted on a path, the requests under that path.
 * @example app.use(agentFriendlyExpress());
 */
export function agentFriendlyExpress(options: AgentFriendlyOptions = {}) {
  checkOptions('agentFriendlyExpress', options);
  const proceed = (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    // Mounted at the app's root, it sees every request: the app's own response prototype can watch
    // them all. Mounted on a path, only the requests under it are watched, each on its own.
    captureErrors(req, res, options, (req as ExpressRequest).baseUrl === '');
    next();
  };
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (!mayBeDocs(options, req.url ?? '')) return proceed(req, res, next);
    serveDocs(req, res, options).then((served) => (served ? undefined : proceed(req, res, next)), next);
  };
}

/**
 * Express error handler, mounted after the routes. Agents get the thrown AgentError, or the
 * unknown-code error with a generic message for anything else. A browser gets a thrown AgentError's
 * status, Retry-After and Vary: Accept, with the app's own error page when an error middleware of
 * the app's follows this one (it gets the error), else the error's page from the catalog; for any
 * other error the app's own error page (given a stand-in without the message) or else Express's
 * own page, without its message or stack. Every thrown error but an AgentError goes to onError,
 * else to Express's own log (console.error, silent in Express's 'test' env, as its final handler logs).
 * @example app.use(agentFriendlyExpressErrorHandler({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyExpressErrorHandler(options: AgentFriendlyOptions = {}): ErrorHandler {
  checkOptions('agentFriendlyExpressErrorHandler', options);
  const handler: ErrorHandler = (error, req, res, next) => {
    const page = () => import('./express-page.js');
    const a: Answers<unknown> = {
      ...nodeAnswers(req, res, options),
      log: (e) => (req as ExpressRequest).app?.get('env') !== 'test' && console.error(e),
      page: (e) => page().then((p) => (p.follows(req, handler) ? (p.asErrorPage(res, e), next(e)) : catalogPage(e, a, options))),
      failed: () => page().then((p) => (p.follows(req, handler) ? next(p.standIn(UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT)) : a.send(p.expressPage(UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT)))),
    };
    void answer(error, a, options);
  };
  return handler;
}
