// Whether an Express app shows a browser its own page for a thrown AgentError, in a module loaded
// only when a browser first gets one, and importing nothing at run time.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentError } from './agent-error.js';

/** A layer of an Express router: its function. */
interface Layer {
  readonly handle?: { readonly length: number };
}

/**
 * True when an error middleware of the app's (four parameters, as Express tells them) follows
 * `handler` in the app's router: the app's own error page. Its head is then made to go out with the
 * error's status and Retry-After, whatever status the page sets, as an error page; false when the
 * app has no such middleware, and the catalog's page is shown.
 */
export function appPage(req: IncomingMessage, res: ServerResponse, error: AgentError, handler: unknown): boolean {
  const stack = (req as { app?: { router?: { stack?: readonly Layer[] } } }).app?.router?.stack ?? [];
  const at = stack.findIndex((layer) => layer.handle === handler);
  if (at < 0 || !stack.slice(at + 1).some((layer) => layer.handle?.length === 4)) return false;
  const writeHead = res.writeHead;
  res.statusCode = error.status;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status >= 400 && error.retryAfter !== null) this.setHeader('retry-after', String(error.retryAfter));
    return Reflect.apply(writeHead, this, [status < 400 ? status : error.status, ...rest]);
  } as typeof writeHead;
  return true;
}
