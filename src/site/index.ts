// @agent-index/errors/site: errors agents can act on, and what every AgentFriendly adapter shares.
export { isKnownCode, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { AgentError, agentError, defineSiteCodes, isAgentError, siteError } from './agent-error.js';
export type { SiteCodeEntry } from './site-codes.js';
export type { AgentErrorBaseOptions, AgentErrorOptions, SiteErrorOptions } from './agent-error.js';
export { acceptsLikeAnAgent, parseAccept, prefersMarkdown, prefersProblem } from './accept.js';
export type { MediaRange } from './accept.js';
export { convertAppError, renderProblemPage, isAgentRequest, isSignedRequest, renderEnvelope } from './checked.js';
export type { AgentFriendlyOptions, CapturedError, Rendered } from './friendly.js';
export { translateUpstream } from './upstream.js';
export type { TranslateUpstreamOptions } from './upstream.js';
// Each adapter has a subpath of its own (./site/node, ./site/express, ./site/fetch, ./site/fastify,
// ./site/hono): a user of one framework loads none of the others, and the types of /site never name
// a framework a user may not have installed.
