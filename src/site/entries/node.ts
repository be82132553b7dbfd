// @agent-index/errors/site/node: AgentFriendly around a node:http request listener.
export { agentFriendly } from '../node.js';
export type { AgentFriendlyOptions } from '../friendly.js';
