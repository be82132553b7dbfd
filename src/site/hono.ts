// AgentFriendly for Hono 4: one middleware, mounted first, for an app's error responses and its
// thrown errors. Only types come from 'hono', so importing this package never requires Hono.
import type { Context, MiddlewareHandler } from 'hono';
import { convertErrorResponse, docsPage, fetchBase, renderedResponse, type RequestFacts } from './fetch.js';
import { isAgentRequest, renderThrown, type AgentFriendlyOptions } from './friendly.js';

/** Hono's HTTPException, by the shape Hono's own error handler checks: an error that carries its response. */
function isHttpException(error: Error): boolean {
  return typeof (error as { getResponse?: unknown }).getResponse === 'function';
}

/** Replaces the response: cleared first, since Hono's setter would copy the old headers onto the new one. */
function replace(c: Context, response: Response): void {
  c.res = undefined;
  c.res = response;
}

/**
 * Hono middleware, mounted before the routes. For an agent: a thrown AgentError is rendered; any
 * other thrown error becomes `internal` with a generic message (and goes to onError); an
 * HTTPException and every other error response (status >= 400: Hono's 404, a rate limiter's 429)
 * is converted. Browsers get the app's responses untouched; successes are never buffered.
 * @example app.use(agentFriendlyHono({ onError: (e) => log.error(e) }));
 */
export function agentFriendlyHono(options: AgentFriendlyOptions = {}): MiddlewareHandler {
  return async (c, next) => {
    const request = c.req.raw;
    if (options.docs !== false && c.req.path.includes('/problems/')) {
      const page = await docsPage(request, options);
      if (page) return page;
    }
    // On @hono/node-server the raw node headers are at hand; reading request.headers would build a Headers per request.
    const incoming = (c.env as { incoming?: { headers?: Record<string, string | string[] | undefined> } } | undefined)?.incoming;
    if (!isAgentRequest({ headers: incoming?.headers ?? request.headers })) return next();
    const facts = (): RequestFacts => ({ method: request.method, accept: request.headers.get('accept'), base: fetchBase(request, options) });
    const thrown = (error: unknown): void => {
      const f = facts();
      replace(c, renderedResponse(renderThrown(error, f.accept, f.base, options), f.method));
    };
    try {
      await next();
    } catch (error) {
      // What Hono's compose does not catch: a thrown non-Error, or an error handler that threw.
      return thrown(error);
    }
    // A success stays as it is, even one an inner middleware made of a caught error.
    if (c.res.status < 400) return;
    // Hono caught a thrown Error into c.error and c.res holds its error handler's answer. An
    // HTTPException's response is meant for callers, so it is converted like any error response;
    // for anything else that answer may carry the error's text, so it is replaced.
    if (c.error && !isHttpException(c.error)) {
      void c.res.body?.cancel().catch(() => undefined);
      return thrown(c.error);
    }
    replace(c, await convertErrorResponse(c.res, facts(), options));
  };
}
