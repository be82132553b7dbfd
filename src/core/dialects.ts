// One failure, rendered in each dialect an API might speak: this package's problem details and
// envelope, Google's google.rpc.Status (AIP-193), Stripe's error object, and a vague sentence.
// The loop (agent/loop.ts) feeds each to an agent and counts what each costs.
import { CODES, EQUIVALENTS, RETRY_WORDS, STATUS_TEXT } from '../../generated/catalog.js';
import type { RetryWord } from '../../generated/types.js';
import { codeForStatus, isKnownCode } from './catalog.js';
import { errorHeaders, problemFrom } from './render.js';
import { checkRules, refuse, type Checks } from './refuse.js';

/** What every renderer needs to know of a failure; an AgentError is one. */
export interface DialectError {
  readonly code: string;
  readonly status: number;
  readonly retry: RetryWord;
  readonly field: string | null;
  readonly retryAfter: number | null;
  readonly message: string;
  readonly detail: string;
  readonly title: string;
}

/** A response as the wire carries it. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The dialects, in the order the tables show them. */
export const DIALECTS = ['problem', 'google', 'stripe', 'vague', 'envelope'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** Where rendered bodies point: problem type URIs, Google's ErrorInfo domain, Stripe's doc_url. */
export interface DialectOptions {
  /** @default 'https://api.example.com' */
  readonly base?: string;
  /** @default 'https://docs.example.com' */
  readonly docs?: string;
}

/** The vendor names a code renders with; a site's own code borrows its status's. */
const entryOf = (error: DialectError) => EQUIVALENTS[isKnownCode(error.code) ? error.code : codeForStatus(error.status)];

const json = (status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): WireResponse => ({
  status,
  headers,
  body: JSON.stringify(body),
});

/** google.rpc.Status as HTTP JSON (AIP-193): an ErrorInfo always, RetryInfo for a delay, BadRequest for a field. */
function google(error: DialectError, options: DialectOptions): WireResponse {
  const details: Record<string, unknown>[] = [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: error.code.toUpperCase().slice(0, 63),
      domain: new URL(options.base ?? 'https://api.example.com').host,
      // AIP-193: what changes between occurrences goes in metadata, so no one parses the message.
      metadata: error.field === null ? {} : { field: error.field },
    },
  ];
  // error_details.proto: RetryInfo.retry_delay, a Duration, "30s" in JSON.
  if (error.retryAfter !== null) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfter}s` });
  if (error.field !== null) {
    details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: error.field, description: error.message }] });
  }
  // No Retry-After header: Google's APIs put the delay in RetryInfo only.
  return json(error.status, { error: { code: error.status, message: error.message, status: entryOf(error).google, details } });
}

/** Stripe's error object: a type, a code, the param, a message and a doc_url; no delay anywhere. */
function stripe(error: DialectError, options: DialectOptions): WireResponse {
  const body: Record<string, unknown> = { type: entryOf(error).stripe, code: error.code, message: error.message };
  if (error.field !== null) body.param = error.field;
  body.doc_url = `${options.docs ?? 'https://docs.example.com'}/errors/${error.code}`;
  return json(error.status, { error: body });
}

/** A status and a sentence addressed to someone who is not there. */
function vague(error: DialectError): WireResponse {
  const phrase = STATUS_TEXT[error.status] ?? 'Something went wrong';
  return json(error.status, { error: RETRY_WORDS[error.retry].next_step === 'wait' ? `${phrase}, try again later` : phrase });
}

const DIALECT_CHECKS: Checks<DialectOptions> = {
  base: [(value) => typeof value === 'string', 'a URL prefix, a string'],
  docs: [(value) => typeof value === 'string', 'a URL prefix, a string'],
};

/** Renders one failure in one dialect. */
export function renderDialect(dialect: Dialect, error: DialectError, options: DialectOptions = {}): WireResponse {
  checkRules('renderDialect', options, DIALECT_CHECKS);
  if (!(DIALECTS as readonly unknown[]).includes(dialect)) refuse('renderDialect', 'dialect', `one of ${DIALECTS.join(', ')}`, dialect);
  if (typeof error !== 'object' || error === null) refuse('renderDialect', 'error', 'a failure { code, status, retry, field, retryAfter, message, detail, title }', error);
  const envelopeError = { code: error.code, message: error.message, field: error.field, retry: error.retry, retry_after: error.retryAfter };
  switch (dialect) {
    case 'problem':
      return json(
        error.status,
        problemFrom(envelopeError, error.status, { base: options.base ?? 'https://api.example.com', title: error.title, detail: error.detail }),
        errorHeaders('problem', error.retryAfter),
      );
    case 'envelope':
      return json(error.status, { error: envelopeError }, errorHeaders('envelope', error.retryAfter));
    case 'google':
      return google(error, options);
    case 'stripe':
      return stripe(error, options);
    case 'vague':
      return vague(error);
  }
}
