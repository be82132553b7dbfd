// The agent client: calls a site, reads every failure as an envelope, waits only when told and only
// as long as told, and remembers what each origin asked for.
import type { EnvelopeError } from '../../generated/types.js';
import { adviceFor } from '../core/catalog.js';
import { fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
import type { HeadersInput } from '../core/headers.js';
import { admit, AGENT_ACCEPT, allowance, drawRetry, freshAttempts, isIdempotent, loadErrorPath, maySayError, nextWait, payWith, resolveOptions, saysError, settle, type AgentClientOptions, type Outcome, type PaymentHeaders, type Throttled } from './policy.js';

export { AGENT_ACCEPT, loadErrorPath, type AgentClientOptions, type Throttled } from './policy.js';

/**
 * Every failure the agent side hands back, from createAgentClient and fetchPage alike (and, as
 * failureOf's answer, from agentFetch): the envelope's error and what to do about it. Each
 * adds its own members beside these: the client the response, the fetcher the status.
 */
export interface AgentFailure {
  readonly ok: false;
  /** The envelope's error: code, message, field, retry word and delay (and every field at fault in `errors`). */
  readonly error: EnvelopeError;
  /** The catalog's advice for the code. */
  readonly advice: string;
  /** True when this answer came from the store: the call it would have made was not made (a request that called the site earlier and whose retry was held back says so too). */
  readonly remembered?: boolean;
  /** For a wait remembered, where and when it was learnt: the URL whose answer asked for it, and the time (ISO 8601). */
  readonly learnt?: { readonly url: string; readonly at: string };
  /**
   * Set when a guard of the scope held the request back: `retry_budget` when the failure was not
   * retried because the scope's retry budget is spent, `circuit` when no call was made because the
   * scope's circuit is open. `advice` says so in words.
   */
  readonly throttled?: Throttled;
  /** What the request threw when no response arrived (a refused connection, a reset, a timeout). */
  readonly cause?: unknown;
}

/** What the client returns: the response, or an error with what to do about it. */
export type AgentResult =
  | { readonly ok: true; readonly response: Response }
  | (AgentFailure & {
      /** The site's response (its body unread), when the site answered. */
      readonly response?: Response;
    });

/** `init` with `headers` set on it (the payment hook's, which replace any of the same name). */
function withHeaders(init: RequestInit | undefined, headers: PaymentHeaders): RequestInit {
  const merged = new Headers(init?.headers ?? undefined);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return { ...init, headers: merged };
}

/** `init` with `accept` as its Accept header, unless it already has one. */
function withAccept(init: RequestInit | undefined, accept: string): RequestInit {
  const headers = init?.headers;
  if (headers === undefined || headers === null) return { ...init, headers: { accept } };
  const merged = new Headers(headers);
  if (!merged.has('accept')) merged.set('accept', accept);
  return { ...init, headers: merged };
}

/** A client that reads every failure as an envelope. */
export interface AgentClient {
  fetch(input: string | URL | Request, init?: RequestInit): Promise<AgentResult>;
}

/**
 * The rules of the client, of agentFetch and of fetchPage, as one function from a request to
 * its outcome: wait a delay out once, told or remembered, when all the sleeping stays within
 * maxWaitSeconds; retry a `once` error one time, for an idempotent request only; remember what each
 * origin asked for; call at most `maxCalls` times; hand back everything else. An error body is read
 * once, by hold: at most MAX_BODY_BYTES and bodyTimeoutSeconds of it; so is a 2xx that may carry
 * an error (errorsIn2xx: true by default for the client only). `who` is the function the
 * user called, named by a bad option's TypeError, thrown here.
 */
export function createRunner(options: AgentClientOptions = {}, who = 'createAgentClient', errorsIn2xxByDefault = false): (input: string | URL | Request, init?: RequestInit) => Promise<Outcome> {
  const { sleep, now, store, scopeOf, bodyTimeoutMs } = resolveOptions(who, options);
  const errorsIn2xx = options.errorsIn2xx ?? errorsIn2xxByDefault;
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  const accept = options.accept ?? AGENT_ACCEPT;
  // The init of a request made with none, built once: fetch does not change what it is given.
  const acceptOnly: RequestInit | undefined = accept === false ? undefined : { headers: { accept } };

  return async (input, init) => {
    // A bodiless string or URL request is sent again as it is; anything else becomes one Request,
    // cloned per attempt only when it has a body to resend. Each extra Request costs a loopback call ~10%.
    let url: URL;
    let signal: AbortSignal | undefined;
    let idempotent: boolean;
    let method: string;
    // `paying`: the headers the payment hook paid a 402 with, sent on the one call after it.
    let send: (paying: PaymentHeaders | null) => Promise<Response>;
    if ((typeof input === 'string' || input instanceof URL) && (init?.body === undefined || init.body === null)) {
      url = new URL(String(input));
      method = (init?.method ?? 'GET').toUpperCase();
      signal = init?.signal ?? undefined;
      idempotent = isIdempotent(init?.method, init?.headers as HeadersInput | undefined);
      const sent = accept === false ? init : init === undefined ? acceptOnly : withAccept(init, accept);
      send = (paying) => fetchImpl(input, paying ? withHeaders(sent, paying) : sent);
    } else {
      const request = new Request(input, init);
      if (accept !== false && !request.headers.has('accept')) request.headers.set('accept', accept);
      url = new URL(request.url);
      method = request.method;
      signal = request.signal;
      idempotent = isIdempotent(request.method, request.headers);
      send = (paying) => {
        const copy = request.body === null ? request : request.clone();
        return fetchImpl(paying ? new Request(copy, { headers: withHeaders({ headers: copy.headers }, paying).headers }) : copy);
      };
    }
    let paying: PaymentHeaders | null = null;
    const allowed = allowance(options, idempotent);
    const attempts = freshAttempts();

    const key = scopeOf(url);

    for (;;) {
      // What the site asked for earlier, of this process or (through a shared store) of another
      // one: a running wait slept out like a told one when it fits, another caller's probe
      // followed, a spent quota waited out; handed back from memory when it does not fit.
      let admitted = admit({ store, key, url, attempts, allowed, now, sleep, signal });
      if (admitted instanceof Promise) admitted = await admitted;
      if ('error' in admitted) return { url, error: admitted.error, remembered: true, ...(admitted.answer ? { answer: admitted.answer } : {}), ...(admitted.learnt ? { learnt: admitted.learnt } : {}), ...(admitted.throttled ? { throttled: admitted.throttled } : {}) };
      attempts.calls += 1;
      let response: Response;
      try {
        response = await send(paying);
        paying = null;
      } catch (error) {
        await settle(store, key, admitted.pass, undefined, undefined, now(), undefined, url, signal?.aborted);
        if (signal?.aborted) throw signal.reason;
        return { url, thrown: error, error: (await loadErrorPath())[1].networkError(url, error) };
      }
      const success = response.status < 400;
      if (success && !(errorsIn2xx && maySayError(method, response.status, response.headers.get('content-type')))) {
        const settled = settle(store, key, admitted.pass, response, undefined, now(), undefined, url);
        if (settled) await settled;
        return { url, response };
      }

      // The error body (or a success that may carry one), read once: at most MAX_BODY_BYTES, for at most bodyTimeoutSeconds.
      const [{ hold }, { keptAnswer }] = await loadErrorPath();
      const held = await hold(response, MAX_BODY_BYTES, bodyTimeoutMs);
      if (success && !saysError(held.bytes, held.whole)) {
        await settle(store, key, admitted.pass, response, undefined, now(), undefined, url);
        return { url, response: held.response };
      }
      const { error } = fromResponse(response.status, response.headers, held.bytes, { now: now() });
      await settle(store, key, admitted.pass, response, error, now(), keptAnswer(response.status, response.headers, held.bytes, held.whole), url);
      // A 402 that says what to pay: the agent's hook decides, once per request.
      paying = await payWith(who, options.onPaymentRequired, error, attempts, allowed, { url: url.href, method });
      if (paying) {
        held.discard();
        continue;
      }
      // The server's own say on retrying, which its SDKs obey before any rule of status: false hands the failure back at once.
      const seconds = forbidsRetry(response.headers) ? null : nextWait(error, attempts, allowed);
      if (seconds === null) return { url, response: held.response, error };
      // A retry of the package's own draws from the scope's budget; spent, the failure goes back as it is.
      const throttled = await drawRetry(store, key, attempts);
      if (throttled) return { url, response: held.response, error, throttled };
      held.discard();
      await sleep(seconds * 1000, signal);
    }
  };
}

/**
 * True when the server says this request is not to be retried: `x-should-retry: false`, which
 * OpenAI's and Anthropic's SDKs (Stainless) obey before their status rules (openai-node
 * src/client.ts and anthropic-sdk-typescript src/client.ts, shouldRetry), and
 * `stripe-should-retry: false`, which stripe-node obeys likewise (src/RequestSender.ts,
 * _shouldRetry). `true` adds no retry: this client retries only when told to wait.
 */
function forbidsRetry(headers: Headers): boolean {
  return headers.get('x-should-retry')?.trim().toLowerCase() === 'false' || headers.get('stripe-should-retry')?.trim().toLowerCase() === 'false';
}

/** The failure of an outcome with an error: the error, its advice, and the response, memory or cause it came with. */
export const failure = ({ error, response, remembered, learnt, throttled, thrown }: Outcome): AgentFailure & { readonly response?: Response } => {
  const at = learnt && new Date(learnt.at).toISOString();
  return {
    ok: false,
    error: error!,
    advice: adviceFor(error!) + (learnt ? ` (Remembered: ${learnt.url} asked for this wait at ${at}.)` : '') + (throttled ? ` (${throttledWhy(throttled, !remembered)})` : ''),
    ...(response ? { response } : {}),
    ...(remembered ? { remembered } : {}),
    ...(learnt ? { learnt: { url: learnt.url, at: at! } } : {}),
    ...(throttled ? { throttled } : {}),
    ...(thrown === undefined ? {} : { cause: thrown }),
  };
};

/** What held a request back, in words: its retry, when it `called` the site, else its call. */
function throttledWhy(t: Throttled, called: boolean): string {
  if (t.by === 'circuit' && 'failures' in t.counts) return `${called ? 'Not retried' : 'Not called'}: most recent calls to ${t.scope} failed (${t.counts.failures} of ${t.counts.calls}), so the agent calls it only to probe until one succeeds.`;
  const c = t.counts as { retries: number; requests: number };
  return `Not retried: the retry budget of ${t.scope} is spent (${c.retries} retries for ${c.requests} requests lately), so a failure is handed back rather than repeated.`;
}

/**
 * Creates a client that waits a delay out once when it is at most `maxWaitSeconds`, retries a
 * `once` error one time for idempotent requests, and otherwise hands the error back.
 * @example
 * const client = createAgentClient();
 * const result = await client.fetch('https://api.example.com/orders');
 * if (!result.ok) console.log(result.error.code, result.advice);
 */
export function createAgentClient(options: AgentClientOptions = {}): AgentClient {
  const run = createRunner(options, 'createAgentClient', true);
  return {
    async fetch(input, init) {
      const outcome = await run(input, init);
      return outcome.error ? failure(outcome) : { ok: true, response: outcome.response! };
    },
  };
}
