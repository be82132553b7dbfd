// What an Express app shows a browser for a thrown error, in a module loaded only when a browser
// first gets one, and importing nothing at run time: the app's own error page, when it has one
// after agentFriendlyExpressErrorHandler, else Express's own page for a failure.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AgentError } from './agent-error.js';
import type { Rendered } from './friendly.js';

/** A layer of an Express router: its function. */
interface Layer {
  readonly handle?: { readonly length: number };
}

/** True when an error middleware of the app's (four parameters, as Express tells them) follows `handler` in the app's router: the app's own error page. */
export function follows(req: IncomingMessage, handler: unknown): boolean {
  const stack = (req as { app?: { router?: { stack?: readonly Layer[] } } }).app?.router?.stack ?? [];
  const at = stack.findIndex((layer) => layer.handle === handler);
  return at >= 0 && stack.slice(at + 1).some((layer) => layer.handle?.length === 4);
}

/** Makes the app's own page of a thrown AgentError go out with the error's status and page headers (Retry-After, what to pay), whatever status the page sets, as an error page (a redirect stays one). */
export function asErrorPage(res: ServerResponse, error: AgentError): void {
  const writeHead = res.writeHead;
  res.statusCode = error.status;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status >= 400) for (const [name, value] of Object.entries(error.pageHeaders())) this.setHeader(name, value);
    return Reflect.apply(writeHead, this, [status < 400 ? status : error.status, ...rest]);
  } as typeof writeHead;
}

/**
 * What the app's own error page gets for a failure: Express's own error for it, a stand-in that
 * carries neither the failure's message nor its stack (an empty one, so that no page shows one).
 */
export function standIn(status: number, text: string): Error {
  const error = Object.assign(new Error(text), { status, expose: false });
  error.stack = '';
  return error;
}

/** Express's own page for a failure (`text` its reason phrase), as its final handler sends it in production: never the message. */
export function expressPage(status: number, text: string): Rendered {
  return {
    status,
    headers: { 'content-security-policy': "default-src 'none'", 'x-content-type-options': 'nosniff', 'content-type': 'text/html; charset=utf-8', vary: 'Accept' },
    body: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${text}</pre>\n</body>\n</html>\n`,
  };
}
