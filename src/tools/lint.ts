// @agent-index/errors/lint: checks a team runs in CI over error bodies and specs.
export { validateEnvelope, validateProblem } from '../core/validate.js';
export type { ValidationIssue, ValidationResult } from '../core/validate.js';
