// agentFetch: the client's rules behind fetch's own signature, for the SDKs and clients that
// take a `fetch` option. The caller gets the site's final Response, its body unread; failureOf
// says what an error response means without reading the body again.
import type { EnvelopeError } from '../../generated/types.js';
import { createRunner, failure, loadErrorPath, type AgentFailure } from './client.js';
import type { AgentClientOptions } from './policy.js';
import type { KeptAnswer } from './store.js';

const read = new WeakMap<Response, AgentFailure>();

/**
 * What an error response that an agentFetch function returned means, in the failure shape of the
 * whole agent side (`{ ok: false, error, advice, remembered? }`): read once, when it arrived, so
 * the caller's body stays unread. Undefined for a success, or a response it did not return.
 * @example const failure = failureOf(response); if (failure) console.log(failure.error.code, failure.advice);
 */
export function failureOf(response: Response): AgentFailure | undefined {
  return read.get(response);
}

/** The Response of a wait remembered for the site (memoryAnswer): what the site said, or the envelope. */
async function fromMemory(error: EnvelopeError, answer: KeptAnswer | undefined): Promise<Response> {
  const { memoryAnswer } = (await loadErrorPath())[1];
  const { status, headers, body } = memoryAnswer(error, answer);
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
    const { response, error, remembered } = outcome;
    const answer = response ?? (await fromMemory(error!, outcome.answer));
    if (error) read.set(answer, failure({ url: outcome.url, error, remembered }));
    return answer;
  };
}
