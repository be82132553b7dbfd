// @agent-index/errors/site/fetch: AgentFriendly around any Fetch handler (Request in, Response out),
// on Node or any runtime with the Fetch API.
export { agentFriendlyFetch, readCapped } from '../fetch.js';
export type { CappedBody, FetchHandler } from '../fetch.js';
export type { AgentFriendlyOptions } from '../friendly.js';
