// AgentFriendly for Express 5: agentFriendlyExpress() mounted first converts the app's error
// responses for agents; agentErrorHandler() mounted last renders thrown errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UNKNOWN_STATUS, UNKNOWN_STATUS_TEXT } from '../core/catalog.js';
import { isAgentError } from './agent-error.js';
import { checkOptions, isAgentRequest, type AgentFriendlyOptions } from './friendly.js';
import { answerThrown, captureErrors, mayBeDocs, serveDocs } from './node.js';

type Next = (error?: unknown) => void;
type ErrorHandler = (error: unknown, req: IncomingMessage, res: ServerResponse, next: Next) => void;

/**
 * Express middleware, mounted before the routes. Mounted at the app's root, it watches every
 * response of the app from its first request on; mounted on a path, the requests under that path.
 * @example app.use(agentFriendlyExpress());
 */
export function agentFriendlyExpress(options: AgentFriendlyOptions = {}) {
  checkOptions(options);
  const proceed = (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    // Mounted at the app's root, it sees every request: the app's own response prototype can watch
    // them all. Mounted on a path, only the requests under it are watched, each on its own.
    captureErrors(req, res, options, (req as { baseUrl?: string }).baseUrl === '');
    next();
  };
  return (req: IncomingMessage, res: ServerResponse, next: Next): void => {
    if (!mayBeDocs(req, options)) return proceed(req, res, next);
    serveDocs(req, res, options).then((served) => (served ? undefined : proceed(req, res, next)), next);
  };
}

/**
 * Express error handler, mounted after the routes. Agents get the thrown AgentError, or the
 * unknown-code error with a generic message for anything else. A browser gets a thrown AgentError's
 * status, Retry-After and Vary: Accept, with the app's own error page when an error middleware of
 * the app's follows this one (it gets the error), else the error's page from the catalog; for any
 * other error Express's own error page, without its message or stack.
 * @example app.use(agentErrorHandler({ onError: (e) => log.error(e) }));
 */
export function agentErrorHandler(options: AgentFriendlyOptions = {}): ErrorHandler {
  checkOptions(options);
  const handler: ErrorHandler = (error, req, res, next) => {
    if (res.headersSent) {
      // Too late to answer: Express cuts the response off; the site still hears of the error.
      if (!isAgentError(error)) options.onError?.(error);
      return next(error);
    }
    if (isAgentRequest(req)) return answerThrown(req, res, error, options);
    if (isAgentError(error)) {
      // The app's own page, when an error middleware of the app's follows this one (it gets the error); else the catalog's.
      return void import('./express-page.js').then((page) => (page.appPage(req, res, error, handler) ? next(error) : answerThrown(req, res, error, options, error)));
    }
    options.onError?.(error);
    const generic = Object.assign(new Error(UNKNOWN_STATUS_TEXT), { status: UNKNOWN_STATUS, expose: false });
    generic.stack = '';
    next(generic);
  };
  return handler;
}
