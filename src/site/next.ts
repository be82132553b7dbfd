// AgentFriendly for Next.js App Router route handlers: `export const GET = agentFriendlyNext(handler)`.
// It is agentFriendlyFetch around one handler, with what Next adds: its control-flow errors
// (notFound(), redirect() and the rendering signals) pass through untouched, and any other thrown
// error becomes a generic 500 for everyone. Nothing is imported from 'next', not even its types, so
// this entry loads without Next and fits Next 15 and 16 alike.
import { agentFriendlyFetch } from './fetch.js';
import { isHost, type AgentFriendlyOptions } from './friendly.js';
import { checkOptions } from './policy.js';

/** A route handler as Next calls it: a NextRequest (a Request) and `{ params: Promise<...> }`. */
export type RouteHandler<R extends Request = Request, C = unknown> = (request: R, context: C) => Response | Promise<Response>;

/** The digests Next gives its control-flow errors outside the `NEXT_` prefix (dynamic rendering, bail-outs, prerender signals). */
const NEXT_DIGESTS: ReadonlySet<string> = new Set(['DYNAMIC_SERVER_USAGE', 'BAILOUT_TO_CLIENT_SIDE_RENDERING', 'HANGING_PROMISE_REJECTION', 'CLIENT_HOOK_DYNAMIC']);

/**
 * True for a value Next throws to steer rendering rather than to fail: notFound(), forbidden(),
 * unauthorized() (digest `NEXT_HTTP_ERROR_FALLBACK;404`), redirect() (`NEXT_REDIRECT;...`), older
 * Nexts' `NEXT_NOT_FOUND`, a dynamic-usage or prerender signal, or React's postpone. By duck typing,
 * as Next's own isNextRouterError and unstable_rethrow check it, through the `cause` chain as
 * unstable_rethrow follows it.
 */
export function isNextControlFlow(error: unknown): boolean {
  for (let depth = 0; depth < 8 && typeof error === 'object' && error !== null; depth++) {
    const { digest, code } = error as { digest?: unknown; code?: unknown };
    if (typeof digest === 'string' && (digest.startsWith('NEXT_') || NEXT_DIGESTS.has(digest))) return true;
    // A StaticGenBailoutError (dynamic = 'error' and a dynamic API used) carries a code, not a digest.
    if (code === 'NEXT_STATIC_GEN_BAILOUT') return true;
    if ((error as { $$typeof?: unknown }).$$typeof === Symbol.for('react.postpone')) return true;
    error = (error as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * The request as agentFriendlyFetch reads it (its URL, method and headers only), the URL on the host
 * the caller named. Next's own request.url names the address `next start` listens on
 * (http://localhost:3000 behind a proxy), so type URIs and the problem pages' examples would point
 * there; its scheme is right (Next reads X-Forwarded-Proto). With `base` set, the request as it is.
 */
function asServed(request: Request, options: AgentFriendlyOptions): Request {
  if (options.base !== undefined) return request;
  const host = request.headers.get('host');
  // A Host with anything but host[:port] characters is not reflected into a URI, as baseOf keeps it out.
  if (!isHost(host)) return request;
  return { url: request.url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*/i, `$1${host}`), method: request.method, headers: request.headers } as Request;
}

/** Where a control-flow error waits while agentFriendlyFetch, which would render it for an agent, is passed. */
interface Held {
  thrown: boolean;
  error?: unknown;
}

/** Keeps a control-flow error out of agentFriendlyFetch's reach (a success goes through it untouched); any other error goes on to it. */
function hold(error: unknown, held: Held): Response {
  if (!isNextControlFlow(error)) throw error;
  held.thrown = true;
  held.error = error;
  return new Response(null, { status: 204 });
}

/**
 * Wraps an App Router route handler. For an agent: the handler's error Responses (status >= 400)
 * converted to this contract, a thrown AgentError rendered, and any other thrown error `internal` with
 * a generic message. A browser gets the handler's Responses as they are (an error's with Accept in its
 * Vary), a thrown AgentError's page from the catalog (its status, Retry-After, Vary: Accept), and a
 * plain 500 for any other thrown error. Every thrown error that is not an AgentError goes to
 * `onError`, else to console.error (where Next logs a failed handler), never to a caller. Next's control-flow errors (notFound(), redirect(), ...) are
 * re-thrown untouched, for Next to answer as it would without the wrapper.
 * @example export const GET = agentFriendlyNext(async (request, { params }) => Response.json(await find((await params).id)));
 */
export function agentFriendlyNext<R extends Request, C>(handler: RouteHandler<R, C>, options: AgentFriendlyOptions = {}): (request: R, context: C) => Promise<Response> {
  checkOptions('agentFriendlyNext', options);
  // The handler gets Next's own request, passed alongside the one agentFriendlyFetch reads.
  const friendly = agentFriendlyFetch<[C, Held, R]>((_served, context, held, request) => {
    let result: Response | Promise<Response>;
    try {
      result = handler(request, context);
    } catch (error) {
      return hold(error, held);
    }
    return typeof (result as Promise<Response>).then === 'function' ? Promise.resolve(result).catch((error: unknown) => hold(error, held)) : result;
  }, options);
  return async (request, context) => {
    const held: Held = { thrown: false };
    // What agentFriendlyFetch lets out (Next's signal from reading the request's headers, in a static
    // prerender) goes back to Next as it came.
    const response = await friendly(asServed(request, options), context, held, request);
    if (held.thrown) throw held.error;
    return response;
  };
}

/**
 * The problem pages for a catch-all route, `app/problems/[code]/route.ts`: `export const GET =
 * agentFriendlyNextDocs()`. A catalog code's page as HTML for a browser and as JSON for an agent; any other
 * code a 404, converted for an agent. `base` as for agentFriendlyNext, so the pages' prefix matches the
 * type URIs the site sends (its path prefix, when it has one, in front of /problems/).
 */
export function agentFriendlyNextDocs(options: AgentFriendlyOptions = {}): (request: Request) => Promise<Response> {
  checkOptions('agentFriendlyNextDocs', options);
  const notFound = (): Response => new Response('Not Found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const handler = agentFriendlyNext<Request, unknown>(notFound, { ...options, docs: true });
  return (request) => handler(request, undefined);
}
