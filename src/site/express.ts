// AgentFriendly for Express 5: agentFriendlyExpress() mounted first converts the app's error
// responses for agents; agentFriendlyExpressErrorHandler() mounted last renders thrown errors.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { UNKNOWN_STATUS } from '../core/catalog.js';
import { isAgentError } from './brand.js';
import { convertAppError, varyAccept, type AgentFriendlyOptions } from './friendly.js';
import { captureErrors, nodeAnswers, serveDocs } from './node.js';
import { answer, checkOptions, mayBeDocs, report, type Answers } from './policy.js';

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

/** What express-page.ts needs of friendly.js, which it does not import (see there). */
const FRIENDLY = { convertAppError, varyAccept };

/** A layer of an Express router: its function. */
interface Layer {
  readonly handle?: { readonly length: number };
}

/** True when an error middleware of the app's (four parameters, as Express tells them) follows `handler` in the app's router: the app's own error handling. */
function follows(req: IncomingMessage, handler: unknown): boolean {
  const stack = (req as { app?: { router?: { stack?: readonly Layer[] } } }).app?.router?.stack ?? [];
  const at = stack.findIndex((layer) => layer.handle === handler);
  return at >= 0 && stack.slice(at + 1).some((layer) => layer.handle?.length === 4);
}

/** The status of an error Express answers with its own (http-errors', body-parser's): `status`, else `statusCode`, 400 to 599, as its final handler reads it; else null. */
function statusOf(error: unknown): number | null {
  const { status, statusCode } = (error ?? {}) as { status?: unknown; statusCode?: unknown };
  return ([status, statusCode].find((code) => Number.isInteger(code) && (code as number) >= 400 && (code as number) < 600) as number | undefined) ?? null;
}

/**
 * Express error handler, mounted after the routes. An error middleware of the app's mounted after
 * it gets every thrown error itself and answers it as it would without AgentFriendly (an agent gets
 * what it writes converted by agentFriendlyExpress, a thrown AgentError rendered in its place, a
 * browser the page with an AgentError's status and Retry-After). Without one: agents get the
 * thrown AgentError, an error with a status of Express's own (4xx or 5xx: http-errors',
 * body-parser's) that status with Express's own page converted, and the unknown-code error with a
 * generic message for anything else; a browser an AgentError's page from the catalog, else
 * Express's own page, without the message or stack. Every thrown error but an AgentError and a
 * client error (4xx) goes to onError, else to Express's own log (console.error, silent in Express's
 * 'test' env, as its final handler logs).
 * @example app.use(agentFriendlyExpressErrorHandler({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyExpressErrorHandler(options: AgentFriendlyOptions = {}): ErrorHandler {
  checkOptions('agentFriendlyExpressErrorHandler', options);
  const handler: ErrorHandler = (error, req, res, next) => {
    const page = () => import('./express-page.js');
    const status = statusOf(error);
    const a: Answers<unknown> = {
      ...nodeAnswers(req, res, options),
      log: (e) => (req as ExpressRequest).app?.get('env') !== 'test' && console.error(e),
      status,
      own: () => page().then((p) => a.send(p.expressAnswer(FRIENDLY, res, error, status!, a, options))),
      failed: () => page().then((p) => a.send(p.expressPage(FRIENDLY, UNKNOWN_STATUS, a.vary))),
    };
    if (!follows(req, handler)) return void answer(error, a, options);
    // An error middleware of the app's follows: it gets the error itself, as without AgentFriendly,
    // and only a thrown AgentError's answer is this handler's (an agent gets it rendered in place of
    // the middleware's, a browser the middleware's page with the error's status); the site hears of
    // a failure all the same.
    report(error, options, a.log!, status);
    if (!isAgentError(error) || a.sent) return next(error);
    void page().then((p) => (a.agent ? p.instead(res, () => a.send(error.render(a.accept, a.base, { format: options.format }))) : p.asErrorPage(res, error), next(error)));
  };
  return handler;
}
