// createAgentFetch: the client's rules behind fetch's own signature, for the SDKs and clients that
// take a `fetch` option. The caller gets the site's final Response, its body unread; agentErrorOf
// says what an error response means without reading the body again.
import { READERS } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { isKnownCode, lookup } from '../core/catalog.js';
import { errorHeaders } from '../core/render.js';
import { createRunner, type AgentClientOptions } from './client.js';

/** The header of a Response createAgentFetch made from memory, without calling the site: `Agent-Errors-Source: memory`. */
export const SOURCE_HEADER = 'agent-errors-source';

/** What an error response returned by createAgentFetch means. */
export interface AgentErrorInfo {
  /** The envelope's error: code, message, field, retry word and delay. */
  readonly error: EnvelopeError;
  /** The catalog's advice for the code. */
  readonly advice: string;
  /** True when the answer came from memory, without calling the site. */
  readonly remembered: boolean;
}

const read = new WeakMap<Response, AgentErrorInfo>();

/**
 * What an error response that a createAgentFetch function returned means: read once, when it
 * arrived, so the caller's body stays unread. Undefined for a success, or a response it did not return.
 * @example const info = agentErrorOf(response); if (info) console.log(info.error.code, info.advice);
 */
export function agentErrorOf(response: Response): AgentErrorInfo | undefined {
  return read.get(response);
}

/** The answer to a wait remembered for the origin: the code's status, Retry-After, the envelope as JSON, and the memory header. */
export function memoryAnswer(error: EnvelopeError): { status: number; headers: Record<string, string>; body: string } {
  // A site's own code, whose status the store does not keep, gets the status of the catalog's rate-limit code.
  const status = lookup(isKnownCode(error.code) ? error.code : READERS.signals.rate_limit_headers).status;
  const headers = { ...errorHeaders('envelope', error.retry_after), [SOURCE_HEADER]: 'memory' };
  return { status, headers, body: JSON.stringify({ error }) };
}

/** The Response of a wait remembered for the origin (memoryAnswer). */
function fromMemory(error: EnvelopeError): Response {
  const { status, headers, body } = memoryAnswer(error);
  return new Response(body, { status, headers });
}

/**
 * A fetch that follows the client's rules: it waits a delay out once, told (in a header or the body)
 * or remembered, when it is at most `maxWaitSeconds`; retries a `once` error one time for idempotent
 * requests; remembers what each origin asked for; and hands everything else back as the site's own
 * Response. A wait still running and too long to take comes back without a call, as a Response made
 * from the envelope with `Agent-Errors-Source: memory`. A request that got no response rejects as
 * fetch does.
 * @example const openai = new OpenAI({ fetch: createAgentFetch() });
 */
export function createAgentFetch(options: AgentClientOptions = {}): typeof fetch {
  const run = createRunner(options);
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const outcome = await run(input, init);
    if ('thrown' in outcome) throw outcome.thrown;
    const { response, error, remembered } = outcome;
    const answer = response ?? fromMemory(error!);
    if (error) read.set(answer, { error, advice: lookup(error.code).advice, remembered: remembered === true });
    return answer;
  };
}
