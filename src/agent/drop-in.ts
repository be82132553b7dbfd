// agentFetch: the client's rules behind fetch's own signature, for the SDKs and clients that
// take a `fetch` option. The caller gets the site's final Response, its body unread; failureOf
// says what an error response means without reading the body again.
import type { EnvelopeError } from '../../generated/types.js';
import { createRunner, failure, loadErrorPath, type AgentFailure } from './client.js';
import type { AgentClientOptions } from './policy.js';
import type { KeptAnswer, Learnt } from './store.js';
import { thrownError } from './thrown.js';
import { adviceFor } from '../core/catalog.js';

const read = new WeakMap<Response, AgentFailure>();

/**
 * What a failure means, in the failure shape of the whole agent side (`{ ok: false, error, advice }`):
 * - an error Response an agentFetch function returned, read once when it arrived, so the caller's
 *   body stays unread;
 * - what an SDK or an HTTP client threw, read by its shape (openai, @anthropic-ai/sdk, octokit,
 *   stripe, the AWS SDK v3, @google/genai, axios, got, ky): the response it carries, as far as it
 *   kept the body (with `response` when it is a Fetch Response), or a failure before any response
 *   (a refused connection, a timeout) as `temporarily_unavailable`, with what was thrown as `cause`.
 *
 * Undefined for anything else: a success, a Response agentFetch did not return, an error of the app's own.
 * @example try { await openai.chat.completions.create(request); } catch (e) { const failure = failureOf(e); if (failure) console.log(failure.error.retry, failure.advice); }
 */
export function failureOf(thrown: unknown): (AgentFailure & { readonly response?: Response }) | undefined {
  if (thrown instanceof Response) return read.get(thrown);
  let found: ReturnType<typeof thrownError>;
  try {
    // ky's HTTPError carries the very Response an agentFetch function returned, already read whole.
    const carried = (thrown as { response?: unknown } | null)?.response;
    if (carried instanceof Response && read.has(carried)) return read.get(carried);
    found = thrownError(thrown);
  } catch {
    return undefined; // a getter that throws: nothing an SDK built
  }
  if (found === undefined) return undefined;
  const { error, response } = found;
  return { ok: false, error, advice: adviceFor(error), ...(response ? { response } : {}), ...(found.network ? { cause: thrown } : {}) };
}

/** The Response of a wait remembered for the site (memoryAnswer): what the site said, or the envelope. */
async function fromMemory(error: EnvelopeError, answer: KeptAnswer | undefined, learnt: Learnt | undefined): Promise<Response> {
  const { memoryAnswer } = (await loadErrorPath())[1];
  const { status, headers, body } = memoryAnswer(error, answer, learnt);
  return new Response(body, { status, headers });
}

/**
 * A fetch that follows the client's rules: it waits a delay out once, told (in a header or the body)
 * or remembered, when it is at most `maxWaitSeconds`; retries a `once` error one time for idempotent
 * requests; remembers what each origin asked for; and hands everything else back as the site's own
 * Response. A wait still running and too long to take comes back without a call, as the site said
 * it (its status, headers and body, so an SDK parses one shape), with Retry-After set to what
 * remains and `Agent-Errors-Source: memory` (the envelope, when the site's words were not kept). A
 * request that got no response rejects as fetch does, with what fetch threw.
 * @example const openai = new OpenAI({ fetch: agentFetch() });
 */
export function agentFetch(options: AgentClientOptions = {}): typeof fetch {
  const run = createRunner(options, 'agentFetch');
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const outcome = await run(input, init);
    if ('thrown' in outcome) throw outcome.thrown;
    const { response, error, remembered, learnt, throttled } = outcome;
    const answer = response ?? (await fromMemory(error!, outcome.answer, learnt));
    if (error) read.set(answer, failure({ url: outcome.url, error, remembered, learnt, throttled }));
    return answer;
  };
}
