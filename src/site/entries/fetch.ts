// @agent-index/errors/site/fetch: AgentFriendly around any Fetch handler (Request in, Response out),
// on Node or any runtime with the Fetch API.
export { agentFriendlyFetch } from '../fetch.js';
export type { FetchHandler } from '../fetch.js';
export type { AgentFriendlyOptions } from '../friendly.js';
