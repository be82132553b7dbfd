// @agent-index/errors/site/next: AgentFriendly for Next.js App Router route handlers
// (`export const GET = agentFriendlyNext(handler)`) and the problem pages as a route.
export { agentFriendlyNext, agentFriendlyNextDocs } from '../next.js';
export type { RouteHandler } from '../next.js';
export type { AgentFriendlyOptions } from '../friendly.js';
