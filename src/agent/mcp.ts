// @agent-index/errors/agent/mcp: a failed call as an MCP tool result a language model can act on.
// The text is built from the catalog (what failed, what to do, which field, when), never from the
// site's page; structuredContent holds the envelope, which ENVELOPE_OUTPUT_SCHEMA describes. The
// result is typed structurally, so the MCP SDK is no dependency of this package.
import { RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import { quote } from '../core/refuse.js';
import { ENVELOPE_OUTPUT_SCHEMA, type ObjectJsonSchema } from '../../generated/envelope-output-schema.js';
import type { Envelope, EnvelopeError } from '../../generated/types.js';
import { adviceFor, lookup } from '../core/catalog.js';
import { cleanText } from '../core/html.js';
import { validateEnvelope } from '../core/validate.js';
import type { AgentFailure, AgentResult } from './client.js';
import { failureOf } from './drop-in.js';
import type { FetchPageFailure } from './fetcher.js';

export { ENVELOPE_OUTPUT_SCHEMA };
export type { ObjectJsonSchema };

/**
 * A failure toToolResult reads: a client result with ok false, an error Response an agentFetch
 * function returned, a fetchPage failure, what failureOf says, an envelope, or its error.
 */
export type ToolFailure = Extract<AgentResult, { ok: false }> | Response | FetchPageFailure | AgentFailure | Envelope | EnvelopeError;

/** An MCP CallToolResult for a failed call: assignable to the SDK's CallToolResult. */
export interface ToolErrorResult {
  readonly isError: true;
  /** One text block: the paragraph a model reads. */
  readonly content: [{ readonly type: 'text'; readonly text: string }];
  /** The envelope; ENVELOPE_OUTPUT_SCHEMA is its schema, for the tool's outputSchema. */
  readonly structuredContent: Envelope & { readonly [member: string]: unknown };
  readonly [member: string]: unknown;
}

/**
 * The outputSchema of a tool whose successes carry the structured content `success` describes and
 * whose failures are toToolResult's envelopes. A tool that declares an outputSchema must return
 * structuredContent matching it on every result (the MCP SDK's client refuses a success without
 * any, and checks an error's too), so ENVELOPE_OUTPUT_SCHEMA alone suits only a tool whose every
 * result is a failure; any other tool declares toolOutputSchema(its success schema).
 * @example { name: 'get_order', inputSchema, outputSchema: toolOutputSchema({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'] }) }
 */
export function toolOutputSchema(success: ObjectJsonSchema): ObjectJsonSchema {
  return { type: 'object', anyOf: [success, ENVELOPE_OUTPUT_SCHEMA] };
}

/** The envelope error a failure carries, or a TypeError when it carries none. */
function errorOf(failure: ToolFailure): EnvelopeError {
  if (failure instanceof Response) {
    const info = failureOf(failure);
    if (info) return info.error;
    throw new TypeError(
      `toToolResult takes a failure; this ${failure.status} Response is not an error response an agentFetch function returned (a success, or a response of another fetch)`,
    );
  }
  const given = (typeof failure === 'object' && failure !== null ? failure : {}) as Partial<Record<'ok' | 'error' | 'code', unknown>>;
  if (given.ok === true) throw new TypeError('toToolResult takes a failure; this result has ok: true');
  if (typeof given.error === 'object' && given.error !== null) return given.error as EnvelopeError;
  if (typeof given.code === 'string') return given as unknown as EnvelopeError;
  throw new TypeError(`toToolResult takes a failure: an AgentResult, Response, FetchPageFailure, envelope or envelope error (got ${quote(failure)})`);
}

/** Markup in a message: a tag, comment or declaration opening. */
const MARKUP = /<[a-z/!?]/i;

/** The site's message as the text quotes it: one line, cut short, and only when it carries no markup. */
function quotable(message: string): string | null {
  const line = cleanText(message);
  return line === '' || MARKUP.test(line) ? null : line;
}

/** The paragraph a model reads: what failed, what to do, which field, and when, all from the catalog but the site's message. */
function describe(error: EnvelopeError): string {
  const info = lookup(error.code);
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  const message = quotable(error.message);
  const sentences = [
    `The request failed with ${error.code}${info.known ? ` (${info.title})` : ''}${message === null ? '' : `: ${JSON.stringify(message)}`}.`,
    // A site's own code has no advice of its own in the catalog: its retry word's says what to do, as does a wait whose length is unknown.
    `What to do: ${adviceFor(error)} Retry word ${error.retry}, next step ${word.next_step}.`,
  ];
  if (error.field !== null) sentences.push(`Field at fault: ${cleanText(error.field)}.`);
  if (error.errors?.length) sentences.push(`Each field at fault: ${error.errors.map((e) => `${cleanText(e.field)} (${e.code})`).join(', ')}.`);
  sentences.push(
    error.retry_after !== null
      ? `When: the site gave a delay of ${error.retry_after} seconds (retry_after).`
      : word.requires.includes('retry_after')
        ? 'When: the site said to wait but gave no delay (retry_after is null).'
        : 'When: the site gave no delay (retry_after is null).',
  );
  return sentences.join(' ');
}

/**
 * A failed call as an MCP tool result: `isError: true`, one text block a model reads in one pass
 * (the code and the site's message, the catalog's advice and next step, the field, the delay or
 * that none was given; never the site's page, and the message only when it has no markup), and
 * the envelope as `structuredContent` (declare `outputSchema: ENVELOPE_OUTPUT_SCHEMA`). Throws a
 * TypeError for a success (ok: true, or a Response failureOf knows nothing of: it is for
 * failures) and for an envelope that is not valid as received (validateEnvelope with received: true).
 * @example
 * const response = await fetchPage(url); // fetchPage = agentFetch()
 * if (failureOf(response)) return toToolResult(response);
 */
export function toToolResult(failure: ToolFailure): ToolErrorResult {
  const { code, message, field, retry, retry_after, errors } = errorOf(failure);
  const envelope: ToolErrorResult['structuredContent'] = { error: { code, message, field, retry, retry_after, ...(errors ? { errors } : {}) } };
  const checked = validateEnvelope(envelope, { received: true });
  if (!checked.valid) {
    throw new TypeError(`toToolResult: not a valid envelope: ${checked.errors.map((e) => `${e.pointer || '/'} ${e.message}`).join('; ')}`);
  }
  return { isError: true, content: [{ type: 'text', text: describe(envelope.error) }], structuredContent: envelope };
}
