// @agent-index/errors/agent: what an agent needs to read any error response and decide what to do.
export { codeForStatus, isKnownCode, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { validateEnvelope, validateProblem } from '../core/validate.js';
