// @agent-index/errors/site: what a site needs to send errors agents can act on.
export { isKnownCode, lookup } from '../core/catalog.js';
export type { CodeInfo } from '../core/catalog.js';
export { validateEnvelope, validateProblem } from '../core/validate.js';
