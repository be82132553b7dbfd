// @agent-index/errors: the catalog of error codes, their retry words, and validators for both bodies.
export { CODES, EQUIVALENTS, EXAMPLES, READERS, RETRY_WORDS, STATUS_DEFAULTS, STATUS_FALLBACKS, UNKNOWN_CODE } from '../generated/catalog.js';
export type { CodeEntry, EquivalentEntry, RetryWordEntry } from '../generated/catalog.js';
export type {
  AnyCode,
  Code,
  CodeRequirements,
  CodeRetry,
  DelaySeconds,
  Envelope,
  EnvelopeError,
  FieldError,
  NextStep,
  Payment,
  PaymentOption,
  PaymentPrice,
  PaymentResource,
  Problem,
  ProblemFieldError,
  RetryWord,
} from '../generated/types.js';
export { adviceFor, codeForStatus, isKnownCode, lookup } from './core/catalog.js';
export type { CodeInfo } from './core/catalog.js';
export { validateEnvelope, validateProblem } from './core/validate.js';
export type { ValidateEnvelopeOptions, ValidationIssue, ValidationResult } from './core/validate.js';
export { errorHeaders, problemFrom } from './core/render.js';
export type { ProblemOptions } from './core/render.js';
