// @agent-index/errors/agent/mcp: a failed call as an MCP tool result a language model can act on.
// The text is built from the catalog (what failed, what to do, which field, when), never from the
// site's page; structuredContent holds the envelope, which ENVELOPE_OUTPUT_SCHEMA describes. The
// result is typed structurally, so the MCP SDK is no dependency of this package.
import { CODES, READERS, RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import { quote } from '../core/refuse.js';
import { ENVELOPE_OUTPUT_SCHEMA, type ObjectJsonSchema } from '../../generated/envelope-output-schema.js';
import type { Envelope, EnvelopeError } from '../../generated/types.js';
import { adviceFor, lookup, UNKNOWN_STATUS } from '../core/catalog.js';
import { cleanText } from '../core/html.js';
import { validateEnvelope } from '../core/validate.js';
import type { AgentFailure, AgentResult } from './client.js';
import { failureOf } from './drop-in.js';
import { fromResponse } from '../core/from-response.js';
import { isRecord } from '../core/json.js';
import { checkRules, isFunction, type Checks } from '../core/refuse.js';
import { isAgentError } from '../site/brand.js';
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

/** The status a tool execution error told in text is read with: the status of the catalog's code for it. */
const TOOL_ERROR_STATUS = CODES[READERS.signals.tool_execution_error].status;

/** The text of a tool result's text blocks, joined. */
const textOf = (content: unknown): string =>
  Array.isArray(content) ? content.flatMap((block) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? [block.text] : [])).join('\n') : '';

/**
 * The MCP SDK's text for arguments a tool's inputSchema refuses, which McpServer answers before the
 * handler runs. @modelcontextprotocol/sdk 1.32.2 (validateToolInput): an McpError (-32602) whose
 * message is this prefix and then one line per zod issue, as getParseErrorMessage writes them
 * (`<message> at <dot path>`). @modelcontextprotocol/server 2.4.0 (protocol revision 2026-07-28,
 * its validateToolInput): a ProtocolError (-32602), no "MCP error" prefix, then every issue as its
 * formatIssue writes it (`<dot path>: <message>`, the message alone for the input as a whole),
 * joined by ", ". The tool's name is cut at the first ": " of the first line.
 */
const SDK_INPUT_ERROR = /^(?:MCP error -32602: )?Input validation error: Invalid arguments for tool .+?: /;
/** The most issue lines read of one such text (fromResponse reads at most 100 violations anyway). */
const MAX_ISSUES = 100;
/** A v2 issue's head: its dot path (keys without spaces, colons or commas), then ": ". */
const V2_ISSUE_HEAD = /^([^\s:,]+): /;
/** Where v2's ", " joins two issues: before the next issue's head. */
const V2_ISSUE_JOIN = /, (?=[^\s:,]+: )/;

/** The end of a v1 issue line that names its field: " at " and a path. */
const V1_ISSUE_END = / at \S+$/;

/**
 * The issues of the MCP SDK's input-validation text, as a validation body fromResponse reads (a
 * list of items, each with its field and sentence), or null for any other text. v1's lines are
 * `<message> at <dot path>` (`address.zip`, `items[0].sku`), or the message alone for the input as
 * a whole: only a path with no space after the last " at " is taken as one, so a sentence that
 * says "at least" names no field. v2's issues (the SDK 2.x text, told by one line whose first issue
 * opens with a path and ": " and which does not end as a v1 line that names its field does) are
 * `<dot path>: <message>`, split where ", " comes before the next `<path>: `; fromResponse writes
 * either path the same way (`items.0.sku`). The sentence kept is the whole issue, which names its field.
 */
function sdkInputIssues(text: string): { issues: { message: string; field?: string }[] } | null {
  const head = SDK_INPUT_ERROR.exec(text);
  if (!head) return null;
  const tail = text.slice(head[0].length);
  if (!tail.includes('\n') && V2_ISSUE_HEAD.test(tail) && !V1_ISSUE_END.test(tail)) {
    const issues = tail
      .split(V2_ISSUE_JOIN, MAX_ISSUES)
      .map((issue) => {
        const path = V2_ISSUE_HEAD.exec(issue)?.[1];
        return path === undefined ? { message: issue } : { message: issue, field: path };
      });
    return { issues };
  }
  const issues = tail
    .split('\n', MAX_ISSUES)
    .map((line) => {
      const at = line.lastIndexOf(' at ');
      const path = at < 0 ? '' : line.slice(at + 4);
      return /^\S+$/.test(path) ? { message: line, field: path } : { message: line };
    });
  return { issues };
}

/** The envelope of a tool execution error told in text, read as fromResponse reads a body. */
function fromToolText(text: string): Envelope {
  // The SDK's own validation text is its issues; other text that is no JSON is the tool's sentence,
  // read as a body's message is (a field it names in quotes is the field).
  const body = sdkInputIssues(text) ?? (/^\s*[[{]/.test(text) ? text : { message: text });
  return fromResponse(TOOL_ERROR_STATUS, null, body);
}

/**
 * What an MCP server asks before a request can complete (MCP 2026-07-28, Multi Round-Trip Requests,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr, InputRequiredResult):
 * its `inputRequests` (keys the server chose, each an `elicitation/create`, `sampling/createMessage`
 * or `roots/list` request) and its opaque `requestState`. The retry of the original request, on a new
 * JSON-RPC id, carries `inputResponses` under the same keys and `requestState` byte for byte.
 */
export interface InputRequired {
  readonly inputRequests?: Readonly<Record<string, { readonly method: string; readonly params?: Readonly<Record<string, unknown>> }>>;
  readonly requestState?: string;
}

/** fromToolResult's failure: for an input_required result, also what the server asks (`inputRequired`). */
export type ToolResultFailure = AgentFailure & { readonly inputRequired?: InputRequired };

/** The result type of a 2026-07-28 interim result (schema.ts, ResultType): the request needs more input. */
const INPUT_REQUIRED = 'input_required';
/** The longest message read of an input_required result's elicitations. */
const MAX_INPUT_MESSAGE = 300;

/**
 * The failure an input_required result is read as. With `inputRequests` the request cannot complete
 * until the client answers them ("the client MUST construct the requested inputs before retrying the
 * original request", MRTR, Client Requirements): elicitation is the user's own input, the step an
 * agent cannot take by itself, so it is the catalog's input_required signal (needs_human, ask_human),
 * its message the elicitations' own (the methods asked for when none has one). Sampling and roots
 * requests read the same: the same request sent again without the answers never succeeds. With
 * `requestState` alone "the client MAY retry the original request immediately" (the schema's example
 * calls it load shedding): the input_required_state_only signal (temporarily_unavailable) with a
 * retry_after of 0. Either way `inputRequired` holds what the retry must echo.
 */
function fromInputRequired(result: Record<string, unknown>): ToolResultFailure {
  const requests = isRecord(result.inputRequests) ? result.inputRequests : {};
  const entries = Object.entries(requests).filter(([, request]) => isRecord(request) && typeof request.method === 'string') as [string, { method: string; params?: Record<string, unknown> }][];
  const inputRequired: InputRequired = {
    ...(entries.length > 0 ? { inputRequests: Object.fromEntries(entries) } : {}),
    ...(typeof result.requestState === 'string' ? { requestState: result.requestState } : {}),
  };
  const code = entries.length > 0 ? READERS.signals.input_required : READERS.signals.input_required_state_only;
  const asked = entries.flatMap(([, request]) => (typeof request.params?.message === 'string' ? [cleanText(request.params.message)] : [])).filter((m) => m !== '');
  const message =
    asked.length > 0
      ? asked.join(' ').slice(0, MAX_INPUT_MESSAGE)
      : entries.length > 0
        ? `The server needs input before the request can complete: ${entries.map(([key, request]) => `${cleanText(request.method)} (${cleanText(key)})`).join(', ')}`.slice(0, MAX_INPUT_MESSAGE)
        : 'The server asked for the request again with its requestState';
  const error: EnvelopeError = { code, message, field: null, retry: lookup(code).retry, retry_after: entries.length > 0 ? null : 0 };
  return { ok: false, error, advice: adviceFor(error), inputRequired };
}

/**
 * What a tool result an MCP server sent means when it failed (`isError: true`) or asks for more input
 * (`resultType: "input_required"`, MCP 2026-07-28), in the failure shape of the agent side;
 * undefined for a success. Its structuredContent when that is this contract's
 * envelope (toToolResult's), else its text read as fromResponse reads a body (JSON an MCP server
 * passed on from an API is read as that API's error). A tool execution error with nothing more says
 * its input can be corrected (MCP 2025-11-25 and 2026-07-28, Tools, Error Handling,
 * https://modelcontextprotocol.io/specification/2026-07-28/server/tools#error-handling: "actionable
 * feedback that language models can use to self-correct and retry with adjusted parameters"), so the
 * text is read as the catalog's tool_execution_error signal (invalid_input, fix_input), with the field when the text names one.
 * The MCP SDK's own text for arguments a tool's inputSchema refuses (v1's and v2's) is read as a validation body:
 * `field` is the first issue's dot path, `errors` every issue's field in order, and the code
 * missing_field when the first issue's sentence says so in the catalog's validation phrases.
 * An input_required result (an interim result, neither success nor isError: the request did not
 * complete) is read by fromInputRequired: needs_human while it asks for input, with `inputRequired`
 * holding its inputRequests and requestState for the retry. A result without `resultType` is
 * "complete" (2026-07-28, Key Changes 8: clients MUST treat an absent field as "complete").
 * @example const result = await client.callTool({ name: 'get_order', arguments: { id } }); const failure = fromToolResult(result);
 */
export function fromToolResult(result: unknown): ToolResultFailure | undefined {
  if (!isRecord(result)) return undefined;
  if (result.resultType === INPUT_REQUIRED) return fromInputRequired(result);
  if (result.isError !== true) return undefined;
  const structured = result.structuredContent;
  const error = isRecord(structured) && validateEnvelope(structured, { received: true }).valid ? (structured as unknown as Envelope).error : fromToolText(textOf(result.content)).error;
  return { ok: false, error, advice: adviceFor(error) };
}

/** Options of agentToolErrors. */
export interface AgentToolErrorsOptions {
  /** Called once with every error a tool handler threw that is not an AgentError, whose message no caller is shown. @default console.error */
  readonly onError?: (error: unknown) => void;
}

const TOOL_ERROR_CHECKS: Checks<AgentToolErrorsOptions> = { onError: [isFunction, 'a function'] };

/** The result of a tool whose handler failed: internal, with a generic message and the word's default delay. */
const FAILED = (): ToolErrorResult => toToolResult(fromResponse(UNKNOWN_STATUS, null, null).error);

/** A tool handler whose thrown errors become tool results: an AgentError its own, anything else a generic one. */
function wrapHandler(handler: unknown, options: AgentToolErrorsOptions): unknown {
  if (typeof handler !== 'function') return handler;
  return async function agentToolHandler(this: unknown, ...args: unknown[]) {
    try {
      return await (handler as (...a: unknown[]) => unknown).apply(this, args);
    } catch (error) {
      if (isAgentError(error)) return toToolResult(error.toEnvelope());
      // A URL elicitation the user must complete (MCP 2025-11-25, -32042) goes to the client as the SDK sends it.
      if (isRecord(error) && (error as { code?: unknown }).code === -32042) throw error;
      (options.onError ?? console.error)(error);
      return FAILED();
    }
  };
}

/**
 * Makes an MCP server's tools answer failures in this contract: every tool registered after the call
 * (the MCP SDK's McpServer, `registerTool` and the older `tool`) has its handler wrapped, so that a
 * thrown AgentError becomes toToolResult's structured result (its code, word, field and delay), and
 * any other thrown error a generic `internal` result that shows nothing of its message (the SDK's
 * own answer is the message itself), handed to `onError` once. Arguments a tool's inputSchema
 * refuses never reach a handler: the SDK answers them itself, in text, through its McpServer's
 * `createToolError` method (a private one, as of @modelcontextprotocol/sdk 1.32.2; a public one of
 * the v2 SDK's McpServer, @modelcontextprotocol/server 2.4.0, which serves protocol revision
 * 2026-07-28 and has `registerTool` alone). Each method is used only when the server has it, so the
 * same call suits either SDK. When the server has createToolError, it is replaced on this instance: the SDK's input-validation text (v1's or v2's) becomes
 * toToolResult's structured result of what fromToolResult reads of it (invalid_input or
 * missing_field, the first issue's field, every issue in `errors`), and any other message is the
 * SDK's own result. An SDK without the method keeps its text, which fromToolResult still reads; the
 * tests with the real SDKs (test/agent/mcp-errors.test.ts for v1, test/agent/mcp-current.test.ts for
 * v2) fail if the method or its text changes. A handler may return a 2026-07-28 input_required
 * result (the v2 SDK's `inputRequired(...)`): it is returned as it is, never read as a failure.
 * A tool that declares an outputSchema declares toolOutputSchema(its success schema), since the
 * SDK's client checks an error's structuredContent too. Returns the server.
 * @example const server = agentToolErrors(new McpServer({ name: 'shop', version: '1.0.0' }), { onError: log.error });
 */
export function agentToolErrors<S extends object>(server: S, options: AgentToolErrorsOptions = {}): S {
  const target = server as unknown as Record<string, unknown> | null;
  if (typeof target !== 'object' || target === null || typeof target.registerTool !== 'function') throw new TypeError(`agentToolErrors: the server must be an MCP SDK McpServer, with registerTool (got ${quote(server)})`);
  checkRules('agentToolErrors', options, TOOL_ERROR_CHECKS);
  for (const method of ['registerTool', 'tool'] as const) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    // The handler is the last argument of either method.
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (args.length > 0) args[args.length - 1] = wrapHandler(args[args.length - 1], options);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  // The SDK's answer to arguments the inputSchema refuses, made before any handler runs.
  const createToolError = target.createToolError;
  if (typeof createToolError === 'function') {
    target.createToolError = function agentToolError(this: unknown, ...args: unknown[]) {
      const issues = typeof args[0] === 'string' ? sdkInputIssues(args[0]) : null;
      return issues ? toToolResult(fromResponse(TOOL_ERROR_STATUS, null, issues)) : (createToolError as (...a: unknown[]) => unknown).apply(this, args);
    };
  }
  return server;
}
