// fromResponse: any HTTP response, from any server, read as this package's envelope. Structured
// bodies are read as they are; otherwise the status decides, refined only by documented signals.
import { CODE_PATTERN, READERS, RETRY_WORDS, STATUS_TEXT, type RetryWordEntry } from '../../generated/catalog.js';
import type { Envelope, RetryWord } from '../../generated/types.js';
import { codeForStatus, isKnownCode, isRetryWord, lookup, PAY_WORD } from './catalog.js';
import { bodyDelay, DELAY_HEADERS, delayFrom, nonNegativeInteger, retryAfterSeconds } from './delay.js';
import { fieldErrors, fieldInMessage, scopeInMessage, sentenceCode, userErrorsOf, violationMessage, violationsOf, type Violation } from './field-errors.js';
import { frontMatter } from './front-matter.js';
import { xmlError } from './xml.js';
import { bearerChallenge } from './challenge.js';
import { mayBeX402Body, PAYMENT_HEADERS, paymentFrom } from './payment.js';
import { isRecord, own, str, type JsonObject } from './json.js';
import { checkRules, type Checks } from './refuse.js';
import { FORMAT_WORDS, isErrorFormat, isRetryByCode, RETRY_BY_CODE_WORDS, valueAt, type ErrorFormat, type RetryByCode } from './format.js';
import { pickHeaders, presentBits, toHeaders, type Fields, type HeadersInput } from './headers.js';
import { cleanText, firstLine, readPage, type PageSummary } from './html.js';
import { CHALLENGE_HEADERS, headerChallenge, looksLikeDump, pageChallenge, soldOut } from './signals.js';

/** The most of a body fromResponse reads: enough for any error page's head, bounded for 10 MB pages. */
export const MAX_BODY_BYTES = 256 * 1024;

/** Options of fromResponse. */
export interface FromResponseOptions {
  /** The clock, in ms since the epoch, that HTTP-dates count from when the response has no Date header. @default Date.now() */
  readonly now?: number;
  /**
   * Where the site's error body keeps each part, as JSON pointers (the lint config's `format`): read
   * before the formats fromResponse recognises by itself.
   */
  readonly format?: ErrorFormat;
  /** The retry word of each of the site's own codes, for a body that gives none (the lint config's `retryByCode`). */
  readonly retryByCode?: RetryByCode;
}


/** What a structured body said; null members are what it did not say. */
interface Reading {
  code: string | null;
  field: string | null;
  message: string | null;
  retry: RetryWord | null;
  /** This package's own envelope or problem, or Google's: the message is the site's own sentence for the whole error, kept over a violation's. */
  keepsMessage: boolean;
  /**
   * How a vendor's own words became the code, for explainResponse: the vendor, the catalog table
   * and the value it listed (its sentence made only when asked), or a sentence's maker; else the
   * body names the code. No closure is made per response for what is almost never asked.
   */
  why: Why | undefined;
}

/** A vendor's value that a catalog table listed, or a maker of explainResponse's sentence. */
type Why = readonly [vendor: string, table: string, value: string] | (() => string);

/** explainResponse's sentence for a Why. */
const whySentence = (why: Why, code: string): string => (typeof why === 'function' ? why() : `${why[0]} ${JSON.stringify(why[2].slice(0, 80))} is ${code} (the catalog's ${why[1]} table)`);

/** A vendor's code as a catalog table gave it, and how (for explainResponse). */
interface Listed {
  code: string | null;
  why: Why | undefined;
}

/**
 * A Reading, always built here in one shape: an object spread or a member left out would give the
 * readers' results many shapes, and every later read of them a slow, generic lookup.
 */
function reading(code: string | null, field: string | null, message: string | null, retry: RetryWord | null = null, keepsMessage = false, why?: Why): Reading {
  return { code, field, message, retry, keepsMessage, why };
}

/** A Reading whose code a catalog table gave. */
const listedReading = (listed: Listed, field: string | null, message: string | null, keepsMessage = false): Reading => reading(listed.code, field, message, null, keepsMessage, listed.why);

const NONE: Reading = reading(null, null, null);

// Own members only, of the right JSON type: RFC 9457 section 3.1 says a member of the wrong type is ignored.
const obj = (o: JsonObject, key: string): JsonObject | null => {
  const value = own(o, key);
  return isRecord(value) ? value : null;
};
const list = (o: JsonObject, key: string): unknown[] => {
  const value = own(o, key);
  return Array.isArray(value) ? value : [];
};
/** The first object of a list. */
const first = (items: unknown[]): JsonObject | null => (isRecord(items[0]) ? items[0] : null);

/** A value from one of the catalog's reader tables, when it lists it. */
function readerCode(table: ReaderTable, value: string | null): string | null {
  if (value === null) return null;
  const entries = READERS[table] as Readonly<Record<string, string>>;
  return Object.hasOwn(entries, value) ? entries[value]! : null;
}

type ReaderTable = Exclude<keyof typeof READERS, 'next_step' | 'signals' | 'crawler_error_header'>;

/** The first key of a phrase table (lower case) that a message contains, or null. */
function phraseIn(table: 'google_precondition_phrase', message: string | null): string | null {
  if (message === null) return null;
  const lower = message.slice(0, 2000).toLowerCase();
  for (const phrase of Object.keys(READERS[table])) if (lower.includes(phrase)) return phrase;
  return null;
}

/** The first key of the catalog's slack_error_part that fits a string: `_x` its end, `x_` its start. */
function partOf(value: string | null): string | null {
  if (value === null) return null;
  for (const part of Object.keys(READERS.slack_error_part)) if (part.startsWith('_') ? value.endsWith(part) : value.startsWith(part)) return part;
  return null;
}

/**
 * The first of `lookups` (a table and a vendor's value) that a catalog table lists, as the code
 * and the sentence explainResponse gives for it: which vendor value, which table.
 */
function firstListed(vendor: string, lookups: readonly (readonly [ReaderTable, string | null])[]): Listed {
  for (const [table, value] of lookups) {
    const code = readerCode(table, value);
    if (code !== null) return { code, why: [vendor, table, value!] };
  }
  return { code: null, why: undefined };
}

/** A code as a site wrote it, if it is one: lowercase snake case, or a spelling that becomes it. */
function asCode(value: string | null): string | null {
  if (value === null) return null;
  if (CODE_PATTERN.test(value)) return value;
  const snake = value.trim().replace(/[-.\s]+/g, '_').toLowerCase();
  return snake.length <= 64 && CODE_PATTERN.test(snake) ? snake : null;
}

const asRetry = (value: string | null): RetryWord | null => (isRetryWord(value) ? value : null);

/** A retry word, or seed 002's next_step read as the word it means (the catalog's next_step table). */
const asWord = (value: string | null): RetryWord | null =>
  asRetry(value) ?? (value !== null && Object.hasOwn(READERS.next_step, value) ? READERS.next_step[value as keyof typeof READERS.next_step] : null);

/** What to do next as an object says it: its retry word, else its next_step (a retry word, or one of seed 002's). */
const retryIn = (object: JsonObject): RetryWord | null => asRetry(str(object, 'retry')) ?? asWord(str(object, 'next_step'));

/** A value at a place of a format, if it is a string with some text in it. */
const textAt = (body: unknown, place: string | undefined): string | null => {
  const value = place === undefined ? undefined : valueAt(body, place);
  return typeof value === 'string' && value.trim() !== '' ? value : null;
};

/** Whole seconds at a place of a format. */
const secondsAt = (body: unknown, place: string): number | null => nonNegativeInteger(valueAt(body, place));

/** A body read by the site's own format: null when it has nothing at any of the format's places. */
function readFormat(body: unknown, format: ErrorFormat): Reading | null {
  const code = asCode(textAt(body, format.code));
  const retry = asWord(textAt(body, format.retry));
  const field = textAt(body, format.field);
  const message = textAt(body, format.message);
  return code === null && retry === null && field === null && message === null ? null : reading(code, field, message, retry, true);
}

/** The word a site's map gives its code, as it spelt the code or as fromResponse snake-cases it. */
function wordOf(retryByCode: RetryByCode | undefined, code: string): RetryWord | null {
  if (retryByCode === undefined) return null;
  if (Object.hasOwn(retryByCode, code)) return retryByCode[code]!;
  for (const key in retryByCode) if (asCode(key) === code) return retryByCode[key]!;
  return null;
}

/** Seed 002's fields, other than the code, that an error member may keep beside it: the field at fault (field, or param but in a typed error), what to do (retry, next_step), the delay. */
const SEED_FIELDS = ['field', 'retry', 'next_step', 'retry_after', 'retry_after_seconds'];
/** The fields that say what to do: a word, or how long to wait. */
const SAYS_WHAT_TO_DO = SEED_FIELDS.slice(1);

// ---------------------------------------------------------------------------------------------
// Readers, one per dialect. Each returns null when the body is not of its dialect.

/**
 * This package's envelope, {error: {code, message, field, retry, retry_after}}, and any error member
 * that carries a code and another of seed 002's fields under its names (param, next_step,
 * retry_after_seconds): a site that added them to an {error: {...}} format of its own.
 */
function readEnvelope(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  // A typed error object's param is Stripe's, OpenAI's or Anthropic's (readTypedError's), not a site's field.
  if (!error || typeof own(error, 'code') !== 'string' || !(SEED_FIELDS.some((name) => name in error) || ('param' in error && !('type' in error)))) return null;
  return reading(asCode(str(error, 'code')), str(error, 'field') ?? str(error, 'param'), str(error, 'message'), retryIn(error), true);
}

/**
 * Seed 002's fields in the first error of a list, as an errors-list format keeps them
 * ({errors: [{code, message, field, retry}]}) or JSON:API beside its own members ({errors: [{code,
 * detail, source, meta: {retry, retry_after}}]}): a code with what to do or a delay, in the error or
 * its meta. GraphQL's errors, whose code is in extensions, are left to readGraphql, and a
 * validation list's (a code and a field, Spring's) to the field readers.
 */
function readListFields(body: JsonObject): Reading | null {
  const item = first(list(body, 'errors'));
  const meta = item && obj(item, 'meta');
  const code = item && typeof own(item, 'code') === 'string' ? asCode(str(item, 'code')) : null;
  // A validation list's items have a code and a field too (Spring's {code: "Email", field}): only a word or a delay makes them a site's.
  if (!item || code === null || !SAYS_WHAT_TO_DO.some((name) => name in item || (meta !== null && name in meta))) return null;
  return reading(code, str(item, 'field') ?? str(item, 'param'), str(item, 'message') ?? str(item, 'detail') ?? str(item, 'title'), retryIn(item) ?? (meta && retryIn(meta)), true);
}

/**
 * Seed 002's fields at the top of a body in a site's own format, {message, code, param, next_step,
 * retry_after_seconds} or with field and retry: a code with a field, what to do or a delay (the
 * lint's top-level format, {code, message, field}, is read the same), a code the catalog has, or a
 * field with what to do. A code alone of another vocabulary (Fastify's FST_ERR_VALIDATION, PostgREST's
 * PGRST116) says what failed inside a framework, not what to do, and a numeric code (Twilio's 21211)
 * is a vendor's number: the other readers, and the status, decide those.
 */
function readTopFields(body: JsonObject): Reading | null {
  const code = asCode(str(body, 'code'));
  const field = str(body, 'param') ?? str(body, 'field');
  const retry = retryIn(body);
  if (code === null ? field === null || retry === null : !isKnownCode(code) && field === null && retry === null && bodyDelay(body) === null) return null;
  const message = str(body, 'message') ?? str(body, 'detail');
  // A message that is no sentence (NestJS's list of a ValidationPipe's) leaves the violations' own to speak.
  return reading(code, field, message, retry, message !== null);
}

/** google.rpc.Status as HTTP JSON (AIP-193): {error: {code: <number>, message, status, details}}. */
function readGoogle(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  if (!error || typeof own(error, 'code') !== 'number' || (str(error, 'status') === null && !Array.isArray(own(error, 'details')))) return null;
  const { field, reason, a2a } = detailsOf(list(error, 'details'));
  // An A2A agent's ErrorInfo (domain a2a-protocol.org) names A2A's error; any other, Google's reason.
  const status = str(error, 'status');
  const message = str(error, 'message');
  const byReason = firstListed("google.rpc.Status's ErrorInfo reason", [[a2a ? 'a2a_reason' : 'google_reason', reason]]);
  // A failed precondition whose message says it is billing or where the caller is (the Gemini API's free tier).
  const byPhrase = byReason.code === null && status === 'FAILED_PRECONDITION' ? firstListed("google.rpc.Status's FAILED_PRECONDITION message, by its phrase", [['google_precondition_phrase', phraseIn('google_precondition_phrase', message)]]) : null;
  const resolved = byReason.code !== null ? byReason : byPhrase?.code ? byPhrase : firstListed("google.rpc.Status's status", [['google_status', status]]);
  return listedReading(resolved, field, message, true);
}

/** What google.rpc details say: a BadRequest's first field, an ErrorInfo's reason, and whether that ErrorInfo is A2A's. */
function detailsOf(details: unknown[]): { field: string | null; reason: string | null; a2a: boolean } {
  let field: string | null = null;
  let reason: string | null = null;
  let a2a = false;
  for (const detail of details) {
    if (!isRecord(detail)) continue;
    const type = str(detail, '@type');
    if (type?.endsWith('google.rpc.BadRequest')) field ??= str(first(list(detail, 'fieldViolations')) ?? {}, 'field');
    // The ErrorInfo reason says what the status does not: API_KEY_INVALID comes as INVALID_ARGUMENT.
    else if (type?.endsWith('google.rpc.ErrorInfo') && reason === null) {
      reason = str(detail, 'reason');
      a2a = str(detail, 'domain') === A2A_DOMAIN;
    }
  }
  return { field, reason, a2a };
}

/** The ErrorInfo domain of A2A's errors (A2A 1.0, sections 9.5 and 11.6). */
const A2A_DOMAIN = 'a2a-protocol.org';

/**
 * Azure's {error: {code, message, target}} (the Azure REST API guidelines), Azure OpenAI's
 * included: the code through the catalog's azure table, the target as the field.
 */
function readAzure(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  if (!error || str(error, 'code') === null || str(error, 'message') === null) return null;
  // Azure OpenAI names the input at fault in param (a filtered prompt), the other services in target.
  return listedReading(firstListed("Azure's error code", [['azure_code', str(error, 'code')]]), str(error, 'target') ?? str(error, 'param'), str(error, 'message'));
}

/** A Kubernetes Status {kind: "Status", status: "Failure", reason, details: {causes: [{field}]}}. */
function readKubernetes(body: JsonObject): Reading | null {
  if (own(body, 'kind') !== 'Status' || own(body, 'status') !== 'Failure') return null;
  const cause = first(list(obj(body, 'details') ?? {}, 'causes'));
  return listedReading(firstListed("Kubernetes' Status reason", [['kubernetes_reason', str(body, 'reason')]]), cause ? str(cause, 'field') : null, str(body, 'message'));
}

/** HubSpot's {status: "error", message, correlationId, category, errors: [{message, in, context}]}. */
function readHubSpot(body: JsonObject): Reading | null {
  if (own(body, 'status') !== 'error' || str(body, 'correlationId') === null || str(body, 'message') === null) return null;
  const detail = first(list(body, 'errors'));
  const context = detail ? obj(detail, 'context') : null;
  const scope = context ? (list(context, 'requiredGranularScopes')[0] ?? list(context, 'requiredScopes')[0]) : undefined;
  const field = (detail ? str(detail, 'in') : null) ?? (typeof scope === 'string' ? scope : null);
  return listedReading(firstListed("HubSpot's category", [['hubspot_category', str(body, 'category')]]), field, str(body, 'message'));
}

/** Notion's {object: "error", status, code, message}. */
function readNotion(body: JsonObject): Reading | null {
  if (own(body, 'object') !== 'error' || str(body, 'code') === null) return null;
  return listedReading(firstListed("Notion's code", [['notion_code', str(body, 'code')]]), null, str(body, 'message'));
}

/** Elasticsearch's {error: {root_cause, type, reason}, status}: its type, and its reason as the message. */
function readElasticsearch(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  if (!error || str(error, 'type') === null || str(error, 'reason') === null || !Array.isArray(own(error, 'root_cause'))) return null;
  return listedReading(firstListed("Elasticsearch's error type", [['elasticsearch_type', str(error, 'type')]]), null, str(error, 'reason'));
}

/** Jira's and Confluence's ErrorCollection {errorMessages: [...], errors: {field: message}}: the first message, when the body has one. */
function readAtlassian(body: JsonObject): Reading | null {
  const messages = list(body, 'errorMessages');
  if (!Array.isArray(own(body, 'errorMessages')) || !isRecord(own(body, 'errors'))) return null;
  return reading(null, null, typeof messages[0] === 'string' && messages[0].trim() !== '' ? messages[0] : null);
}

/** Salesforce's REST errors, a list: [{message, errorCode, fields}]; the first is read. */
function readSalesforce(body: JsonObject): Reading | null {
  if (str(body, 'errorCode') === null || str(body, 'message') === null) return null;
  const fields = list(body, 'fields');
  return listedReading(firstListed("Salesforce's errorCode", [['salesforce_code', str(body, 'errorCode')]]), typeof fields[0] === 'string' ? fields[0] : null, str(body, 'message'));
}

/**
 * Stripe's and OpenAI's {error: {type, code, param, message, decline_code}}; Stripe's OAuth sends
 * error as a string. Anthropic's {type: "error", error: {type, message}} reads its type first.
 */
function readTypedError(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  if (!error || str(error, 'type') === null) return null;
  const code = str(error, 'code');
  const type = str(error, 'type');
  const resolved = firstListed("the error's code or type", [
    ['anthropic_type', own(body, 'type') === 'error' ? type : null],
    ['openai_code', code],
    ['stripe_code', code],
    // A decline_code is only ever on a declined card (Stripe, "Declines").
    ['stripe_type', str(error, 'decline_code') ? 'card_error' : null],
    ['openai_code', type],
    ['stripe_type', type],
  ]);
  return listedReading(resolved, str(error, 'param'), str(error, 'message'));
}

/** RFC 9457 / 7807 problem details, this package's extension members or any other vocabulary. */
function readProblem(body: JsonObject): Reading | null {
  const type = str(body, 'type');
  const hasStatus = typeof own(body, 'status') === 'number';
  if (type === null && !(str(body, 'title') !== null && (hasStatus || str(body, 'detail') !== null))) return null;
  // A type URI whose last segment is a catalog code names it: {base}/problems/{code}.
  const segment = type?.split(/[/#]/).pop() ?? null;
  const named = asCode(str(body, 'code'));
  // A registered rate-limit problem type (the IETF RateLimit draft's, the catalog's problem_type table).
  const registered = named === null ? firstListed('the problem type', [['problem_type', type]]) : null;
  const code = named ?? registered?.code ?? (segment !== null && isKnownCode(segment) ? segment : null);
  const nested = first(list(body, 'errors'));
  const field = str(body, 'param') ?? (nested ? (str(nested, 'param') ?? str(nested, 'field')) : null);
  const retry = retryIn(body);
  // This package's own problem (it has a code member) says the occurrence in detail and the type in title.
  const ours = str(body, 'code') !== null;
  return reading(code, field, ours ? (str(body, 'detail') ?? str(body, 'title')) : (str(body, 'title') ?? str(body, 'detail')), retry, ours, registered?.code ? registered.why : undefined);
}

/**
 * Cloudflare's agent error responses, as JSON or as a Markdown body's front matter: RFC 9457 members
 * plus cloudflare_error (always true), error_code, error_category and retryable
 * (https://developers.cloudflare.com/fundamentals/reference/error-responses/). The category and
 * retryable decide the code (the catalog's cloudflare tables); the delay is retry_after.
 */
function readCloudflare(body: JsonObject): Reading | null {
  if (own(body, 'cloudflare_error') !== true || typeof own(body, 'error_code') !== 'number') return null;
  const table = own(body, 'retryable') === true ? 'cloudflare_retryable' : 'cloudflare_category';
  const category = str(body, 'error_category');
  const listed = readerCode(table, category);
  // A category the table does not list whose body says the site's owner must act, and may not be retried, needs a person.
  const owner = listed === null && table === 'cloudflare_category' && own(body, 'owner_action_required') === true ? readerCode(table, 'owner_action_required') : null;
  const code = listed ?? owner ?? readerCode(table, 'default');
  const why = (): string =>
    `Cloudflare's error_category ${JSON.stringify(category?.slice(0, 40) ?? null)}${listed ? '' : ' (any other)'} with retryable ${String(table === 'cloudflare_retryable')}${owner ? ' and owner_action_required true' : ''} is ${code} (the catalog's ${table} table)`;
  return reading(code, null, str(body, 'title') ?? str(body, 'detail'), null, true, why);
}

/** GitHub's REST errors: {message, documentation_url, errors: [{resource, field, code}]}. */
function readGitHub(body: JsonObject): Reading | null {
  const message = str(body, 'message');
  if (message === null || (str(body, 'documentation_url') === null && !Array.isArray(own(body, 'errors')))) return null;
  const detail = first(list(body, 'errors'));
  return listedReading(firstListed("GitHub's errors[].code", [['github_error_code', detail ? str(detail, 'code') : null]]), detail ? str(detail, 'field') : null, message);
}

/**
 * A GraphQL response's first error (https://spec.graphql.org/October2021/#sec-Errors): its
 * extensions.code as Apollo Server and Shopify send it, or its type as GitHub does.
 */
function readGraphql(body: JsonObject): Reading | null {
  const error = first(list(body, 'errors'));
  if (!error || str(error, 'message') === null || own(body, 'error') !== undefined) return null;
  const extensions = obj(error, 'extensions');
  const code = extensions ? str(extensions, 'code') : null;
  const resolved = firstListed("the GraphQL error's code", [
    ['graphql_apollo', code],
    ['graphql_shopify', code],
    ['graphql_github', str(error, 'type') ?? code],
  ]);
  return listedReading(resolved, null, str(error, 'message'));
}

/** A JSON-RPC 2.0 error response, as MCP servers send them: {jsonrpc: "2.0", error: {code, message}}. */
function readJsonRpc(body: JsonObject): Reading | null {
  const error = obj(body, 'error');
  if (own(body, 'jsonrpc') !== '2.0' || !error || !Number.isInteger(own(error, 'code'))) return null;
  let code = String(own(error, 'code'));
  // MCP 2026-07-28 answers a resource that does not exist with -32602 and data that is only its uri
  // (Server Features, Resources, Error Handling), where 2025-11-25 sent -32002: read as that row.
  const data = own(error, 'data');
  if (code === String(MCP_INVALID_PARAMS) && isRecord(data) && typeof own(data, 'uri') === 'string' && Object.keys(data).length === 1) code = String(MCP_RESOURCE_NOT_FOUND);
  // A2A sends an ErrorInfo of its domain in the error's data (A2A 1.0, section 9.5): its reason, else its code, is A2A's.
  const { field, reason, a2a } = detailsOf(list(error, 'data'));
  const lookups: (readonly [ReaderTable, string | null])[] = a2a ? [['a2a_reason', reason], ['a2a_jsonrpc_code', code]] : [['jsonrpc_code', code]];
  return listedReading(firstListed('the JSON-RPC error', lookups), field, str(error, 'message'));
}

/** A GraphQL mutation's userErrors answered with data: the first item's code, field and sentence, as violationsOf reads it. */
function readUserErrors(body: JsonObject): Reading | null {
  const items = userErrorsOf(body);
  const lead = items === null ? undefined : violationsOf(body)[0];
  if (!lead) return null;
  const said = str(first(items!.filter(isRecord)) ?? {}, 'code');
  const why = (): string =>
    said === null ? `the mutation's first userErrors item gives no code, and its sentence makes it ${lead.code}` : `the mutation's first userErrors item says ${JSON.stringify(said.slice(0, 40))}, which is ${lead.code} (the catalog's graphql_user_error_code table)`;
  return reading(lead.code, lead.field, lead.message, null, false, why);
}

/** JSON-RPC's invalid params, and MCP 2025-11-25's resource not found, which MCP 2026-07-28 sends as invalid params with the uri. */
const MCP_INVALID_PARAMS = -32602;
const MCP_RESOURCE_NOT_FOUND = -32002;

/** Slack's Web API answer {ok: false, error: "channel_not_found"}, with the scope it lacks in needed. */
function readSlack(body: JsonObject): Reading | null {
  const error = str(body, 'error');
  if (own(body, 'ok') !== false || error === null) return null;
  const listed = firstListed("Slack's error", [['slack_error', error]]);
  if (listed.code !== null) return listedReading(listed, str(body, 'needed'), error);
  // A string the table does not list is read by its shape (channel_not_found, invalid_blocks, restricted_action).
  const part = partOf(error);
  const code = readerCode('slack_error_part', part);
  const why = (): string => `Slack's error ${JSON.stringify(error.slice(0, 80))} ${part!.startsWith('_') ? 'ends' : 'starts'} with ${part}, so it is ${code} (the catalog's slack_error_part table)`;
  return reading(code, str(body, 'needed'), error, null, false, code === null ? undefined : why);
}

/**
 * Whether a body that came with a 2xx is an error all the same: a GraphQL response with errors and
 * no usable data (none, null, or every top-level field null: a failed field of a one-field query
 * is null), a JSON-RPC error, or Slack's ok: false. Anything else, partial GraphQL data included,
 * is the success its status says.
 */
export function isErrorBody(body: unknown): boolean {
  if (!isRecord(body)) return false;
  try {
    if (readJsonRpc(body) || readSlack(body) || userErrorsOf(body) !== null) return true;
    const data = own(body, 'data');
    return (data === undefined || data === null || (isRecord(data) && Object.values(data).every((value) => value === null))) && readGraphql(body) !== null;
  } catch {
    return false;
  }
}

/**
 * Whether the text of a 2xx body is an error all the same: isErrorBody of its JSON, or an XML
 * document whose root is S3's <Error> (a copy or a multipart upload can fail after its 200 began:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html, "If the error occurs during
 * the copy operation, the error response is embedded in the 200 OK response"). An XML answer that
 * only holds an <Error> among its results (DeleteObjects') is the partial success it says it is.
 */
export function isErrorText(text: string): boolean {
  const start = text.trimStart()[0];
  if (start === '<') return xmlError(text, true) !== null;
  if (start !== '{') return false;
  try {
    return isErrorBody(JSON.parse(text));
  } catch {
    return false;
  }
}

const AWS_DIALECT = 'an AWS error';


/**
 * AWS errors: the JSON protocols' `__type` (`com.amazonaws.dynamodb.v20120810#ThrottlingException`)
 * or `x-amzn-ErrorType` header (`ThrottlingException:http://internal.amazon.com/...`), and the XML
 * error documents' `Code` (S3, the query protocol), with `message` or `Message` and S3's
 * `ArgumentName`. The type decides whatever the status says: DynamoDB throttles with a 400.
 */
function readAws(body: JsonObject, headers: Fields): Reading | null {
  const raw = str(body, '__type') ?? str(body, 'Code') ?? headers.get('x-amzn-errortype') ?? null;
  if (raw === null) return null;
  // The SDKs' sanitizeErrorCode: the name after a namespace's '#' and before a ':' URI.
  const type = raw.split(':', 1)[0]!.split('#').pop()!.trim();
  // The AWS tables in order: what the SDKs retry first, then the common errors, then each service's.
  // Azure Storage's XML errors have the same <Error><Code> shape, so its codes are looked up last.
  const resolved = firstListed("AWS's (or Azure Storage's) error code", [['aws_throttling', type], ['aws_common', type], ['aws_dynamodb', type], ['aws_s3', type], ['azure_code', type]]);
  return listedReading(resolved, str(body, 'ArgumentName'), str(body, 'message') ?? str(body, 'Message'));
}

/** The code of a refusal, which a message naming a missing scope turns into scope_in_message's. */
const NOT_ALLOWED = codeForStatus(403);

/** Bodies that say only a sentence: Spring Boot, Rails, hapi/Fastify, OAuth, FastAPI and plain {error} or {message}. */
function readLoose(body: JsonObject): Reading | null {
  const error = str(body, 'error');
  const message = str(body, 'message');
  // FastAPI validation: {detail: [{loc: ["body", "email"], msg}]}, whose fields field-errors.ts reads; other errors {detail: "..."}.
  const detailItem = first(list(body, 'detail'));
  if (detailItem) return reading(null, null, str(detailItem, 'msg'));
  const springNoMessage = message === 'No message available';
  // Telegram's and Zendesk's description is the sentence beside a code (Zendesk's error is a code such as RecordNotFound).
  // Shopify's REST API says its sentence in a string errors: {"errors": "[API] Invalid API key or access token ..."}.
  const text = str(body, 'error_description') ?? str(body, 'description') ?? (message && !springNoMessage ? message : null) ?? error ?? str(body, 'detail') ?? str(body, 'errors');
  // An OAuth 2.0 error body names the Bearer error itself (RFC 6750 section 3.1).
  return text === null ? null : reading(readerCode('bearer_error', error), null, text);
}

type Reader = (body: JsonObject, headers: Fields) => Reading | null;

/**
 * Every dialect in the order it is tried, with the top-level members that can make a body one of
 * its kind: a body is shown only to the readers one of its own members names, so the cost of
 * reading it does not grow with the number of dialects.
 */
/** The dialect of a GraphQL mutation's userErrors, whose violations are read whatever the status (a 200). */
const USER_ERRORS_DIALECT = "a GraphQL mutation's userErrors";

const DIALECTS: readonly (readonly [name: string, read: Reader, members: readonly string[]])[] = [
  ['a JSON-RPC error', readJsonRpc, ['jsonrpc']],
  ["Elasticsearch's error", readElasticsearch, ['error']],
  ['google.rpc.Status', readGoogle, ['error']],
  ["this package's envelope", readEnvelope, ['error']],
  ['a Stripe, OpenAI or Anthropic error object', readTypedError, ['error']],
  ["Azure's error object", readAzure, ['error']],
  ["Cloudflare's agent error response", readCloudflare, ['cloudflare_error']],
  ['a Kubernetes Status', readKubernetes, ['kind']],
  ['RFC 9457 problem details', readProblem, ['type', 'title']],
  ["HubSpot's error", readHubSpot, ['correlationId']],
  ["GitHub's error body", readGitHub, ['message']],
  // An AWS error may say its type only in x-amzn-ErrorType, whatever members its body has.
  [AWS_DIALECT, readAws, ['__type', 'Code']],
  ["a site's own code and fields in a list of errors", readListFields, ['errors']],
  ['a GraphQL response with errors', readGraphql, ['errors']],
  [USER_ERRORS_DIALECT, readUserErrors, ['data']],
  ["Slack's ok: false", readSlack, ['ok']],
  ["Salesforce's error list", readSalesforce, ['errorCode']],
  ["Notion's error", readNotion, ['object']],
  ["Atlassian's ErrorCollection", readAtlassian, ['errorMessages']],
  ["a site's own code and fields", readTopFields, ['code', 'param', 'field', 'next_step', 'retry']],
  ['a JSON body with only a message', readLoose, ['error', 'message', 'detail', 'error_description', 'description', 'errors']],
];

/** For each member a dialect looks for, the dialects (a bit each, in DIALECTS' order) it may make a body. */
const DIALECTS_BY_MEMBER = new Map<string, number>();
DIALECTS.forEach(([, , members], index) => {
  for (const member of members) DIALECTS_BY_MEMBER.set(member, (DIALECTS_BY_MEMBER.get(member) ?? 0) | (1 << index));
});
const AWS_BIT = 1 << DIALECTS.findIndex(([name]) => name === AWS_DIALECT);

// The groups of headers that rules read, a bit each: a response's names are looked up once, and a
// rule whose headers are all absent is not run (the page rules of a challenge still are).
const CHALLENGE = 1;
const PAYMENT = 2;
const DELAY = 4;
const WATCHED = new Map<string, number>();
for (const [bit, names] of [[CHALLENGE, CHALLENGE_HEADERS], [PAYMENT, PAYMENT_HEADERS], [DELAY, DELAY_HEADERS]] as const) {
  for (const name of names) WATCHED.set(name, (WATCHED.get(name) ?? 0) | bit);
}

/** The first dialect that recognises the body, and its name, or nothing. Only the dialects the body's own members name are tried. */
function readStructured(body: JsonObject, headers: Fields): [Reading, string | null] {
  let candidates = 0;
  try {
    // for-in makes no array of the keys; an inherited member only adds a reader that then finds no own member.
    for (const member in body) candidates |= DIALECTS_BY_MEMBER.get(member) ?? 0;
    if (headers.has('x-amzn-errortype')) candidates |= AWS_BIT;
  } catch {
    return [NONE, null]; // A proxy whose keys throw is no body any dialect can read.
  }
  for (let index = 0; candidates >>> index !== 0; index++) {
    if ((candidates & (1 << index)) === 0) continue;
    const [name, read] = DIALECTS[index]!;
    try {
      const reading = read(body, headers);
      if (reading) return [reading, name];
    } catch {
      // A getter-laden or otherwise hostile object: the next reader, then the status, decide.
    }
  }
  return [NONE, null];
}

// ---------------------------------------------------------------------------------------------

/** The body as text (a bounded prefix) and, when it is JSON, parsed. */
function decodeBody(body: unknown): { text: string | null; json: unknown } {
  if (body === null || body === undefined) return { text: null, json: undefined };
  if (typeof body === 'string') return parseText(body.length > MAX_BODY_BYTES ? body.slice(0, MAX_BODY_BYTES) : body);
  let bytes: Uint8Array | null = null;
  if (body instanceof Uint8Array) bytes = body;
  else if (body instanceof ArrayBuffer) bytes = new Uint8Array(body);
  else if (ArrayBuffer.isView(body)) bytes = new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (bytes) return parseText(new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, MAX_BODY_BYTES)));
  return { text: null, json: body };
}

function parseText(text: string): { text: string | null; json: unknown } {
  const start = text.trimStart()[0];
  // A Markdown answer whose front matter holds the error's fields is read as those fields, and an
  // XML error document (S3, AWS's query protocol, Azure Storage) as its <Error>'s children.
  if (start === '-') return { text, json: frontMatter(text.trimStart()) ?? undefined };
  if (start === '<') return { text, json: xmlError(text) ?? undefined };
  // A list of errors (Salesforce's REST API), or text that only starts with a bracket.
  if (start === '[') {
    try {
      return { text, json: JSON.parse(text) as unknown };
    } catch {
      return { text, json: undefined };
    }
  }
  if (start !== '{') return { text, json: undefined };
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    // Truncated (by a proxy, or at MAX_BODY_BYTES) or malformed JSON is neither a page nor a
    // sentence: its "title" or first line is the raw object, debug members and all.
    return { text: null, json: undefined };
  }
}

/** Titles that name no problem: Express's "Error", Spring's "Whitelabel Error Page", a bare number. */
function informative(text: string | null): text is string {
  if (text === null) return false;
  const lower = text.toLowerCase();
  return !(lower === 'error' || lower === 'whitelabel error page' || /^\d{0,3}$/.test(lower));
}

/** How much of a candidate's first line a message is taken from; cleanText then cuts it to MAX_MESSAGE_LENGTH. */
const MAX_CANDIDATE = 4000;

/**
 * A message safe to show: its first line, cleaned, and never part of a stack trace or debug dump.
 * The whole candidate (up to MAX_BODY_BYTES) is looked at for a dump, not only the part shown: an
 * exception's message can be long (a query, a payload) and push the stack's frames far past it.
 */
function safeMessage(candidate: string | null): string | null {
  if (candidate === null) return null;
  if (looksLikeDump(candidate.length > MAX_BODY_BYTES ? candidate.slice(0, MAX_BODY_BYTES) : candidate)) return null;
  const line = firstLine(candidate.length > MAX_CANDIDATE ? candidate.slice(0, MAX_CANDIDATE) : candidate);
  const text = cleanText(line);
  return text === '' ? null : text;
}

/** A plain-text page from its first non-blank character, when the page is not HTML; safeMessage takes its first line. */
function plainText(text: string | null, page: PageSummary | null): string | null {
  if (text === null || page === null || page.text.includes('<')) return null;
  // A Markdown page: past its front matter, and its heading without the marks.
  const start = text.trimStart().replace(/^---[ \t]*\r?\n[^]{0,65536}?\r?\n---[ \t]*(?:\r?\n|$)/, '').trimStart().replace(/^#{1,6}[ \t]+/, '');
  const line = firstLine(start.length > MAX_CANDIDATE ? start.slice(0, MAX_CANDIDATE) : start);
  // Binary or mis-decoded bodies are no message: replacement characters or control characters.
  return /[\uFFFD\u0000-\u0008\u000e-\u001f]/.test(line) ? null : start;
}

/** Only the headers that ask for a retry after a time, with the Date they count from. */
const explicitRetryHeaders = (headers: Fields): Fields => pickHeaders(headers, ['retry-after', 'retry-after-ms', 'x-ms-retry-after-ms', 'date']);

/** The code of a response whose body names none, and why: its status, refined by what is safe to read. */
function statusCode(status: number, headers: Fields, page: PageSummary | null): [string, string] {
  // RFC 6750 section 3: a Bearer challenge's error says which of a missing grant or a missing scope it is.
  if (status >= 400 && status < 500) {
    const error = bearerChallenge(headers.get('www-authenticate'))?.get('error') ?? null;
    const code = readerCode('bearer_error', error);
    if (code !== null) return [code, `WWW-Authenticate's Bearer error ${JSON.stringify(error)} is ${code} (RFC 6750 section 3.1)`];
  }
  // GitHub, "Rate limits for the REST API": an exhausted primary limit is a 403 or 429 with
  // x-ratelimit-remaining: 0; a secondary limit is a 403 or 429 with retry-after. Not a permission error.
  if ((status === 403 || status === 429) && (headers.get('x-ratelimit-remaining')?.trim() === '0' || headers.has('retry-after'))) {
    return [READERS.signals.rate_limit_headers, `a ${status} with an exhausted rate limit or a Retry-After is a rate limit`];
  }
  if (status >= 400 && status < 500 && soldOut(page)) return [READERS.signals.sold_out, "the page's own title or heading says sold out"];
  // A server failure stays what its status says, whatever its page claims (seed 000).
  const code = codeForStatus(status);
  return [code, status >= 400 && status <= 599 ? `status ${status} means ${code}` : `status ${status} is no error status; read as ${code}`];
}

/** An envelope and the reasons it came out as it did. */
export interface Explained {
  readonly envelope: Envelope;
  /** One sentence per decision: which dialect the body was, which signal or status decided the code, where the delay came from. */
  readonly because: readonly string[];
}

const FROM_RESPONSE_CHECKS: Checks<FromResponseOptions> = {
  now: [(value) => typeof value === 'number', 'a number of ms since the epoch'],
  format: [isErrorFormat, FORMAT_WORDS],
  retryByCode: [isRetryByCode, RETRY_BY_CODE_WORDS],
};
const NO_OPTIONS: FromResponseOptions = {};

/** The options of fromResponse or explainResponse (`who`), checked: an option the call does not know is a programming error, a TypeError, never a response's. */
function checked(who: string, options: FromResponseOptions | undefined): FromResponseOptions {
  if (options === undefined) return NO_OPTIONS;
  checkRules(who, options, FROM_RESPONSE_CHECKS);
  return options;
}

/**
 * fromResponse with its reasons, for a person reading why (`agent-errors classify`). Never throws on a response; only an option it does not know, or a bad one, is a TypeError.
 * @example explainResponse(403, { 'cf-mitigated': 'challenge' }, page).because[0] // 'cf-mitigated ...'
 */
export function explainResponse(status: number, headers: HeadersInput, body: unknown, options?: FromResponseOptions): Explained {
  const because: string[] = [];
  return { envelope: read(status, headers, body, checked('explainResponse', options), because), because };
}

/**
 * The envelope of a response; `because`, when given, gets one sentence per decision. fromResponse
 * gives none, so no sentence is made (an optional call's arguments are not evaluated).
 */
function read(status: number, headers: HeadersInput, body: unknown, options: FromResponseOptions, because: string[] | undefined): Envelope {
  // The clock is read only by a delay that counts from it (an HTTP-date, an epoch), not on every response.
  const now = typeof options.now === 'number' && Number.isFinite(options.now) ? options.now : undefined;
  const safeStatus = Number.isInteger(status) ? status : 0;
  const isError = safeStatus >= 400 && safeStatus <= 599;
  const h = toHeaders(headers);
  const bits = presentBits(h, WATCHED);
  let text: string | null = null;
  let json: unknown;
  try {
    ({ text, json } = decodeBody(body));
  } catch {
    text = null;
  }
  // A list of errors is read by its first (Salesforce); an AWS error may say its type only in
  // x-amzn-ErrorType, over an empty or non-JSON body.
  const structured = isRecord(json) ? json : Array.isArray(json) && isRecord(json[0]) ? json[0] : h.has('x-amzn-errortype') ? {} : null;
  // The site's own format, when it declared one, before any format recognised by its members.
  const declared = options.format && json !== undefined ? readFormat(json, options.format) : null;
  let [reading, dialect]: [Reading, string | null] = declared ? [declared, "the site's declared format"] : structured ? readStructured(structured, h) : [NONE, null];
  // A code alone is a framework's unless the site maps it to a word: then it is the site's own.
  if (reading.code === null && options.retryByCode && structured) {
    const raw = str(structured, 'code') ?? str(obj(structured, 'error'), 'code');
    const code = asCode(raw);
    if (code !== null && wordOf(options.retryByCode, code) !== null) reading = { ...reading, code, keepsMessage: true, message: reading.message ?? str(structured, 'message') };
  }
  // Front matter no dialect knows is part of a page like any other, read as its text.
  if (dialect === null && json !== undefined && typeof text === 'string' && text.trimStart()[0] === '-') [json, reading] = [undefined, NONE];
  const page = text !== null && json === undefined ? readPage(text) : null;
  if (dialect) because?.push(`the body is ${dialect}`);
  // The fields a 4xx body reports at fault, in whichever framework's shape; the first that names a field leads.
  const violations: Violation[] = (isError && safeStatus < 500) || dialect === USER_ERRORS_DIALECT ? violationsOf(json) : [];
  let primary: Violation | undefined = violations[0];
  for (const violation of violations) {
    if (violation.field !== null) {
      primary = violation;
      break;
    }
  }
  if (primary) because?.push(`the body reports ${violations.length} violation${violations.length === 1 ? '' : 's'}, the first of ${primary.field ?? 'no single field'}`);

  // A challenge wins over whatever the body says: the body is the challenge page.
  const signal = ((bits & CHALLENGE) !== 0 ? headerChallenge(h, isError) : null) ?? (isError && page ? pageChallenge(h, page, safeStatus >= 500) : null);
  // A payment protocol's headers (x402, pay-per-crawl) say what to pay, and why a payment failed.
  const paid = isError && ((bits & PAYMENT) !== 0 || mayBeX402Body(json)) ? paymentFrom(h, json) : null;
  let code: string;
  let scope: string | null = null;
  if (signal) {
    code = READERS.signals.challenge;
    because?.push(`${signal} marks a bot challenge, which only a person can pass`);
  } else if (paid?.code) {
    code = paid.code;
    because?.push(paid.why());
  } else if (reading.code !== null) {
    code = reading.code;
    because?.push(reading.why ? whySentence(reading.why, code) : `the body names the code ${code}`);
    if (code === NOT_ALLOWED && (scope = scopeInMessage(reading.message)) !== null) {
      code = READERS.signals.scope_in_message;
      because?.push(`its message names the access scope it lacks, ${scope}, so it is ${code}`);
    }
  } else {
    let why: string;
    [code, why] = statusCode(safeStatus, h, page);
    // A refusal whose message names the access scope it lacks is a grant to ask for (Shopify's REST API).
    if (code === NOT_ALLOWED && (scope = scopeInMessage(reading.message)) !== null) {
      code = READERS.signals.scope_in_message;
      why += `, but its message names the access scope it lacks, ${scope}, so it is ${code}`;
    }
    // A validation body says which of the two it is: a value left out, or a value that is wrong.
    if (primary && (code === READERS.validation_keyword.required || code === READERS.validation_keyword.default) && code !== primary.code) {
      code = primary.code;
      why += `, and the violation makes it ${code}`;
    } else if (!primary && code === READERS.validation_keyword.default && fieldInMessage(reading.message) !== null && sentenceCode(reading.message) !== code) {
      // So does a sentence that names its field ("A 'To' phone number is required.").
      code = sentenceCode(reading.message);
      why += `, and its sentence makes it ${code}`;
    }
    because?.push(why);
  }

  const info = lookup(code);
  // A known code keeps its catalog word; a site's own code keeps the word its body gave, else the
  // word the site's map gives it, else what its status says (a 423's lock is not a failure to retry once).
  const mapped = info.known || reading.retry ? null : wordOf(options.retryByCode, code);
  const retry: RetryWord = info.known ? info.retry : (reading.retry ?? mapped ?? lookup(codeForStatus(safeStatus)).retry);
  because?.push(info.known ? `${code} is a catalog code: retry ${retry}` : `${code} is a site's own code: retry ${retry}, as ${reading.retry ? 'its body says' : mapped ? 'the site\'s retryByCode says' : `status ${safeStatus} says`}`);
  let delay: number | null = null;
  const word: RetryWordEntry = RETRY_WORDS[retry];
  if (word.next_step === 'wait') {
    try {
      // Quota reset headers say when a rate limit lifts, which is news only to a word that waits for
      // a delay; a retry-once word takes only an explicit Retry-After or a delay in the body.
      // A response with no header that gives a delay can give one only in its body.
      delay = (bits & DELAY) === 0 ? bodyDelay(json) : delayFrom(word.requires.includes('retry_after') ? h : explicitRetryHeaders(h), json, now);
      // Where the site's own format keeps it, when nothing else said.
      if (delay === null && options.format?.delay !== undefined) delay = secondsAt(json, options.format.delay);
    } catch {
      delay = null;
    }
    because?.push(delay === null ? 'the response says nothing of how long to wait' : `the response asks for a wait of ${delay} s`);
  }
  // The server's own say on retrying (OpenAI's and Anthropic's x-should-retry, Stripe's stripe-should-retry), which the client obeys.
  const says = because ? (h.get('x-should-retry') ?? h.get('stripe-should-retry') ?? null) : null;
  if (because && says !== null) because.push(says.trim().toLowerCase() === 'false' ? 'the server says not to retry (x-should-retry: false): the client hands the failure back at once' : `the server says x-should-retry: ${says.slice(0, 20)}, which adds no retry the word does not make`);
  // RFC 9110 section 10.2.3: Retry-After is an HTTP-date or a whole number of seconds; anything else is said so, not passed over in silence.
  const told = because ? h.get('retry-after') : null;
  if (because && typeof told === 'string' && retryAfterSeconds(told, now) === null) because.push(`Retry-After ${JSON.stringify(told.slice(0, 100))} is malformed (neither a number of seconds nor an HTTP date), so it was ignored`);
  // The Bearer challenge is read only when a message or a scope is still to be found in it.
  const message =
    // A price the agent cannot read is said so, not passed over as a bare "Payment Required".
    (paid?.unreadable ? `${info.title}: ${paid.unreadable}` : null) ??
    // The first violation's own sentence says more than a framework's "Bad Request" or "The given data was invalid.".
    (primary && !reading.keepsMessage ? violationMessage(primary) : null) ??
    safeMessage(reading.message) ??
    (page && informative(page.title) ? safeMessage(page.title) : null) ??
    (page && informative(page.heading) ? safeMessage(page.heading) : null) ??
    safeMessage(plainText(text, page)) ??
    safeMessage(bearerChallenge(h.get('www-authenticate'))?.get('error_description') ?? null) ??
    STATUS_TEXT[safeStatus] ??
    info.title;
  const named =
    paid?.field ??
    scope ??
    reading.field ??
    primary?.field ??
    // A missing scope names the scope, as the Bearer challenge gives it (RFC 6750 section 3).
    (code === READERS.bearer_error.insufficient_scope ? (bearerChallenge(h.get('www-authenticate'))?.get('scope') ?? null) : null) ??
    // A fix_input whose body names no field may name it in its sentence, in a shape vendors use.
    ((RETRY_WORDS[retry].requires as readonly string[]).includes('field') ? fieldInMessage(reading.message) : null);
  const field = named === null ? null : cleanText(named) || null;
  const errors = fieldErrors(violations);
  const error: Envelope['error'] = { code, message, field, retry, retry_after: delay };
  if (errors) error.errors = errors;
  // What to pay goes with an error whose word is to pay; a declined or malformed payment carries none.
  if (paid?.payment && retry === PAY_WORD) {
    error.payment = paid.payment;
    if (because && !paid.code) because.push(paid.why());
  }
  return { error };
}

/**
 * Reads any HTTP response as an envelope. Never throws on a response (only a bad option is a TypeError); the result always passes
 * `validateEnvelope(result, { received: true })`, and the strict check whenever the response
 * named the field and delay its code calls for.
 * @example fromResponse(429, { 'retry-after': '30' }, '<html>...</html>').error.retry_after // 30
 */
export function fromResponse(status: number, headers: HeadersInput, body: unknown, options?: FromResponseOptions): Envelope {
  return read(status, headers, body, checked('fromResponse', options), undefined);
}

/** fromResponse with options its caller checked once already (an adapter's, at its start): none are checked here. */
export const fromResponseUnchecked = (status: number, headers: HeadersInput, body: unknown, options: FromResponseOptions): Envelope => read(status, headers, body, options, undefined);
