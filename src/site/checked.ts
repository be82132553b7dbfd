// The low-level pieces of AgentFriendly that /site exports for a custom adapter, each checking what
// it is given first (a TypeError naming the function and the argument). The package's own adapters
// call the unchecked ones in friendly.ts with what their framework gives, so no adapter carries
// these checks on its hot path or in its size budget.
import type { Envelope } from '../../generated/types.js';
import { isRetryWord } from '../core/catalog.js';
import { isRecord } from '../core/json.js';
import { checkRules, refuse } from '../core/refuse.js';
import * as friendly from './friendly.js';

/** What a request's headers are, in words. */
const HEADERS = 'a Headers or a record';

/** True when the request carries an HTTP Message Signature (RFC 9421; Web Bot Auth adds Signature-Agent). */
export function isSignedRequest(headers: friendly.RequestHeadersLike): boolean {
  if (!isRecord(headers)) refuse('isSignedRequest', 'headers', HEADERS, headers);
  return friendly.isSignedRequest(headers);
}

/**
 * True when the caller is an agent: it signs its requests, or its Accept ranks JSON, problem details
 * or Markdown at least as high as HTML. A signature only chooses the error format; it grants nothing.
 */
export function isAgentRequest(request: Request | { headers: friendly.RequestHeadersLike }, options?: Pick<friendly.AgentFriendlyOptions, 'agents'>): boolean {
  if (!isRecord((request as Partial<Request> | null | undefined)?.headers)) refuse('isAgentRequest', 'request', 'a request with headers', request);
  if (options !== undefined) checkRules('isAgentRequest', options, { agents: friendly.FRIENDLY_CHECKS.agents });
  return friendly.isAgentRequest(request, options);
}

/**
 * Renders an envelope for a caller. The body is Markdown when the caller ranks text/markdown above
 * JSON (its fields as YAML front matter, which fromResponse reads back), problem details when it
 * prefers them, else the envelope. A wait with no delay gets one: its word's default (retry-once),
 * else `retryAfter`.
 */
export function renderEnvelope(received: Envelope, status: number, accept: string | null, base: string, retryAfter?: number): friendly.Rendered {
  if (!isRecord(received) || !isRecord(received.error) || !isRetryWord(received.error.retry)) refuse('renderEnvelope', 'received', 'an envelope { error: { code, message, field, retry, retry_after } }', received);
  return friendly.renderEnvelope(received, status, accept, base, retryAfter);
}

/**
 * How an agent's answer differs from an app's own error response, or null when it goes out as the
 * app sent it. The status is always the app's: its own JSON error keeps every member and gains what
 * the contract needs in its own format's places; a page is converted through fromResponse and negotiated.
 */
export function convertAppError(captured: friendly.CapturedError, accept: string | null, base: string, options: friendly.ConvertOptions = {}): friendly.Conversion | null {
  if (!isRecord(captured) || typeof captured.status !== 'number') refuse('convertAppError', 'captured', "an app's error response { status, headers, body }", captured);
  const { retryAfter, format, retryByCode } = friendly.FRIENDLY_CHECKS;
  checkRules('convertAppError', options, { retryAfter, format, retryByCode });
  return friendly.convertAppError(captured, accept, base, options);
}

/**
 * The documentation page for `GET {base path}/problems/{code}`, so every type URI a site emits
 * dereferences (RFC 9457 section 3.1.1): HTML for browsers, the catalog entry as JSON for agents.
 * Null for any other request, or a code the catalog does not have.
 */
export function renderProblemPage(method: string, pathname: string, headers: friendly.RequestHeadersLike, options: friendly.AgentFriendlyOptions = {}, base?: string): Promise<friendly.Rendered | null> {
  checkRules('renderProblemPage', options, friendly.FRIENDLY_CHECKS);
  if (!isRecord(headers)) refuse('renderProblemPage', 'headers', HEADERS, headers);
  if (typeof method !== 'string') refuse('renderProblemPage', 'method', 'a string', method);
  if (typeof pathname !== 'string') refuse('renderProblemPage', 'pathname', 'a string', pathname);
  return friendly.renderProblemPage(method, pathname, headers, options, base);
}
