// @agent-index/errors/site/node: AgentFriendly around a node:http request listener.
export { agentFriendlyNode } from '../node.js';
export type { AgentFriendlyOptions } from '../friendly.js';
