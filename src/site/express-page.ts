// What an Express app answers for a thrown error, beyond an agent's failure: Express's own page, as
// its final handler renders it in production (converted for an agent); the page of the app's own
// error middleware for a thrown AgentError, with the error's status; and an agent's AgentError in
// place of what that middleware writes for it. A module loaded only when first needed, importing
// nothing at run time (express.ts hands it what it needs of friendly.js): a module both imported
// would be a chunk of its own in a bundle, which costs the entry's gzip more than its code does.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { AgentError } from './agent-error.js';
import type { AgentFriendlyOptions, convertAppError, Rendered, varyAccept } from './friendly.js';

/** Makes the app's own page of a thrown AgentError go out with the error's status and page headers (Retry-After, what to pay), whatever status the page sets, as an error page (a redirect stays one). */
export function asErrorPage(res: ServerResponse, error: AgentError): void {
  const writeHead = res.writeHead;
  res.statusCode = error.status;
  res.writeHead = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    if (status >= 400) for (const [name, value] of Object.entries(error.pageHeaders())) this.setHeader(name, value);
    return Reflect.apply(writeHead, this, [status < 400 ? status : error.status, ...rest]);
  } as typeof writeHead;
}

type Methods = Pick<ServerResponse, 'writeHead' | 'write' | 'end'>;

/**
 * Makes an agent get `send`'s answer (its thrown AgentError) in place of what the app's own error
 * middleware writes for it, as the Fastify adapter does, while that middleware still runs on the
 * error as it would without AgentFriendly (its log, its metrics): its head and writes are dropped,
 * and its end (or Express's final handler's, when it passes the error on) sends the answer instead.
 */
export function instead(res: ServerResponse, send: () => void): void {
  const before: Methods = { writeHead: res.writeHead, write: res.write, end: res.end };
  const drop = { writeHead: () => res, write: (...args: unknown[]) => (callBack(args), true) } as unknown as Methods;
  Object.assign(res, drop, {
    end(...args: unknown[]) {
      // What the response had before, so that the answer goes out through the capture's wrappers, which let it through.
      Object.assign(res, before);
      callBack(args);
      send();
      return res;
    },
  });
}

/** Calls a write's or end's callback, as node would once it was written. */
function callBack(args: readonly unknown[]): void {
  const done = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
  if (done) queueMicrotask(done);
}

/** What express.ts hands this module of friendly.js. */
export interface Friendly {
  readonly convertAppError: typeof convertAppError;
  readonly varyAccept: typeof varyAccept;
}

/**
 * Express's own page for an error of `status` (a failure's, 500, or an error's own status, with
 * the error's `headers`), as its final handler (finalhandler 2) sends it in production: the
 * error's headers, then its security headers, and the status's reason phrase as the message, never
 * the error's message or stack; Accept merged into the Vary (the error's, else `vary`, the app's).
 */
export function expressPage(friendly: Friendly, status: number, vary: unknown, headers?: unknown): Rendered {
  const own: Record<string, string> = {};
  // Lower case, so that a header of the error's named in another case is replaced, not doubled, by Express's own below.
  if (headers && typeof headers === 'object') for (const [name, value] of Object.entries(headers)) own[name.toLowerCase()] = value as string;
  return {
    status,
    headers: {
      ...own,
      'content-security-policy': "default-src 'none'",
      'x-content-type-options': 'nosniff',
      'content-type': 'text/html; charset=utf-8',
      vary: friendly.varyAccept(own.vary ?? vary),
    },
    // The reason phrase escaped as finalhandler's escape-html does it (418's apostrophe is the only
    // one that needs it), and, for a status without one, what it prints for none.
    body: `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>${String(STATUS_CODES[status]).replace(/'/g, '&#39;')}</pre>\n</body>\n</html>\n`,
  };
}

/** What an agent and a browser are: as an adapter's Answers tell them. */
interface Caller {
  readonly agent: boolean;
  readonly accept: string | null;
  readonly base: string;
}

/**
 * Express's answer to an error with a status of its own (`status`, 400 to 599: an http-errors
 * error, body-parser's): for a browser its page, for an agent that page converted as the capture
 * converts any error page of the app's, keeping the headers Express sends beside its page (the
 * error's own: Allow, WWW-Authenticate, Retry-After, which the conversion reads).
 */
export function expressAnswer(friendly: Friendly, res: ServerResponse, error: unknown, status: number, caller: Caller, options: AgentFriendlyOptions): Rendered {
  const page = expressPage(friendly, status, res.getHeader('vary'), (error as { headers?: unknown }).headers);
  if (!caller.agent) return page;
  for (const [name, value] of Object.entries(page.headers)) res.setHeader(name, value);
  const converted = friendly.convertAppError({ status, headers: page.headers, body: page.body }, caller.accept, caller.base, options)!;
  return { status: converted.status, headers: converted.set, body: converted.body };
}
