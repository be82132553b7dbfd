// @agent-index/errors/site: errors agents can act on, and AgentFriendly for the app's own error pages.
export { isKnownCode, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { validateEnvelope, validateProblem } from '../core/validate.js';
export { AgentError, agentError, isAgentError, siteError } from './agent-error.js';
export type { AgentErrorBaseOptions, AgentErrorOptions, SiteErrorOptions } from './agent-error.js';
export { acceptsLikeAnAgent, parseAccept, prefersProblem } from './accept.js';
export type { MediaRange } from './accept.js';
export { convertAppError, docsResponse, isAgentRequest, isSignedRequest, renderEnvelope } from './friendly.js';
export type { AgentFriendlyOptions, CapturedError, Rendered } from './friendly.js';
export { agentFriendly } from './node.js';
export { agentErrorHandler, agentFriendlyExpress } from './express.js';
export { agentFriendlyFetch, readCapped } from './fetch.js';
export type { CappedBody, FetchHandler } from './fetch.js';
// Fastify and Hono adapters have subpaths of their own (./site/fastify, ./site/hono), so that the
// types of /site never name a framework a user may not have installed.
