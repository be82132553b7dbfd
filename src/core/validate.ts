// Validation of envelope and problem bodies with the generated standalone validators, with each
// error given as a JSON pointer and a sentence.
import {
  envelope as envelopeValidator,
  problem as problemValidator,
  receivedEnvelope as receivedValidator,
  receivedProblem as receivedProblemValidator,
  type Validator,
  type ValidatorError,
} from '../../generated/validators.js';
import type { Envelope, Problem } from '../../generated/types.js';
import { checkRules, type Checks } from './refuse.js';

/** How an issue ends that names a member the contract's body does not have (a site's own schema may add members). */
export const NOT_A_MEMBER = 'is not a member of this body';

/** One reason a body was refused. */
export interface ValidationIssue {
  /** JSON pointer (RFC 6901) to the member at fault; "" is the whole body. */
  readonly pointer: string;
  /** What is wrong there, in words. */
  readonly message: string;
}

/** The verdict on one body: the typed value when valid, every issue otherwise. */
export type ValidationResult<T> =
  | { readonly valid: true; readonly value: T; readonly errors: readonly [] }
  | { readonly valid: false; readonly errors: readonly ValidationIssue[] };

/** Reads a JSON pointer in `value`, or undefined when it leads nowhere. */
function resolvePointer(value: unknown, pointer: string): unknown {
  let node = value;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** One ajv error as a pointer and a sentence; null for the wrappers (if, allOf) whose inner errors say it. */
function describe(error: ValidatorError, value: unknown): ValidationIssue | null {
  const pointer = error.instancePath;
  const params = error.params;
  switch (error.keyword) {
    case 'if':
      return null;
    case 'required': {
      const member = String(params.missingProperty);
      return { pointer: `${pointer}/${member}`, message: `${member} is required here` };
    }
    case 'additionalProperties':
      return { pointer: `${pointer}/${String(params.additionalProperty)}`, message: `${String(params.additionalProperty)} ${NOT_A_MEMBER}` };
    case 'const': {
      const parent = resolvePointer(value, pointer.slice(0, pointer.lastIndexOf('/'))) as Record<string, unknown> | undefined;
      const member = pointer.slice(pointer.lastIndexOf('/') + 1);
      const code = parent && typeof parent.code === 'string' && member !== 'code' ? ` for code ${parent.code} (as the catalog says)` : '';
      const word = parent && member === 'next_step' && typeof parent.retry === 'string' ? ` for retry ${parent.retry} (as the catalog says)` : '';
      return { pointer, message: `must be ${JSON.stringify(params.allowedValue)}${word || code}` };
    }
    case 'enum':
      return { pointer, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'pattern': {
      if (pointer.endsWith('/code')) return { pointer, message: 'must be lowercase snake case, like rate_limited' };
      const pattern = String(params.pattern);
      // A length bound written as a pattern (the validators need no runtime for it), or Text's "\S".
      const bound = /^\^\[\\s\\S\]\{(\d+),(\d+)\}\$$/.exec(pattern);
      if (bound) return { pointer, message: `must be a string of ${bound[1]} to ${bound[2]} characters` };
      return { pointer, message: pattern === '\\S' ? 'must not be empty or only white space' : `must match ${pattern}` };
    }
    case 'type': {
      const types = String(params.type).split(',').map((t) => (t === 'null' ? 'null' : `${/^[aeiou]/.test(t) ? 'an' : 'a'} ${t}`));
      return { pointer, message: `must be ${types.join(' or ')}` };
    }
    default:
      return { pointer, message: error.message ?? `fails ${error.keyword}` };
  }
}

function run<T>(validator: Validator<T>, value: unknown): ValidationResult<T> {
  if (validator(value)) return { valid: true, value, errors: [] };
  const seen = new Set<string>();
  const errors: ValidationIssue[] = [];
  for (const error of validator.errors ?? []) {
    const issue = describe(error, value);
    const key = issue && `${issue.pointer}\n${issue.message}`;
    if (issue && key && !seen.has(key)) {
      seen.add(key);
      errors.push(issue);
    }
  }
  return { valid: false, errors };
}

/** Options of validateEnvelope and validateProblem. */
export interface ValidateEnvelopeOptions {
  /**
   * Check a body built from a response that did not say everything (fromResponse, or AgentFriendly
   * converting an app's error page) rather than one a site builds itself: the field or delay its
   * retry word calls for may be missing when the response did not give it.
   * @default false
   */
  readonly received?: boolean;
}

const VALIDATE_CHECKS: Checks<ValidateEnvelopeOptions> = { received: [(value) => typeof value === 'boolean', 'true or false'] };

/**
 * Checks a body against the envelope schema and the catalog: a known code carries its own retry
 * word; `fix_input` names its field and `after_delay` its delay.
 * @example validateEnvelope(JSON.parse(text)).valid
 */
export function validateEnvelope(value: unknown, options: ValidateEnvelopeOptions = {}): ValidationResult<Envelope> {
  checkRules('validateEnvelope', options, VALIDATE_CHECKS);
  return run(options.received ? receivedValidator : envelopeValidator, value);
}

/** Checks a body against the problem schema and the catalog (a known code carries its own status, retry word and next step). */
export function validateProblem(value: unknown, options: ValidateEnvelopeOptions = {}): ValidationResult<Problem> {
  checkRules('validateProblem', options, VALIDATE_CHECKS);
  return run(options.received ? receivedProblemValidator : problemValidator, value);
}
