// The fields at fault in a validation body, whoever sent it. Frameworks name them in a dozen shapes:
// lists of items (express-validator, Zod issues, JSON:API, Spring Boot, FastAPI, RFC 9457, GitHub),
// maps of field to sentences (Laravel, Rails, Django REST Framework, ASP.NET Core, Zod's flatten(),
// format() and treeifyError()), sentences that start with the field (NestJS's ValidationPipe,
// Fastify's ajv message) and hapi's list of keys. Each is read into one list of violations; whether a
// violation is a missing value comes from the catalog's validation_keyword and validation_phrase tables.
import { READERS } from '../../generated/catalog.js';
import type { FieldError } from '../../generated/types.js';
import { anyOfPattern, cleanText, firstLine } from './html.js';
import { isRecord, own, str, unescapeToken, type JsonObject } from './json.js';
import { looksLikeDump } from './signals.js';

/** One field at fault, as a body reported it. */
export interface Violation {
  /** A dotted path of the request's own keys (`address.city`, `items.0.sku`), or null when the body names none. */
  readonly field: string | null;
  /** missing_field or invalid_input, or the code the body itself gave (this package's own bodies). */
  readonly code: string;
  /** The violation's own sentence, prefixed with the field when it does not name it; null when the body gave none. */
  readonly message: string | null;
}

/** The most violations read of one body, and how deep nested maps are followed. */
const MAX_VIOLATIONS = 100;
const MAX_DEPTH = 8;
const MAX_FIELD = 200;

const MISSING = READERS.validation_keyword.required;
const INVALID = READERS.validation_keyword.default;
const KEYWORDS: Readonly<Record<string, string>> = READERS.validation_keyword;
const PHRASES = Object.entries(READERS.validation_phrase as Readonly<Record<string, string>>);
/** Any phrase at all, in one pass: most sentences hold none, and then no phrase is looked for one by one. */
const ANY_PHRASE = anyOfPattern(PHRASES.map(([phrase]) => phrase));

/** Where a framework says a value came from, before the field's own path: FastAPI's loc, Fastify's message, hapi's source. */
const LOCATIONS = new Set(['body', 'query', 'querystring', 'path', 'params', 'header', 'headers', 'cookie', 'cookies', 'payload']);
/** Keys that hold the errors of the object they sit in, not of a field named so. */
const OWN_ERRORS = new Set(['errors', '_errors', 'formErrors', 'non_field_errors', '__all__']);

/** A code from a keyword the body gave (ajv's keyword, Joi's type, pydantic's type, a Bean Validation code), else from the sentence. */
function codeOf(keyword: unknown, sentence: string | null): string {
  if (typeof keyword === 'string' && keyword !== 'default' && Object.hasOwn(KEYWORDS, keyword)) return KEYWORDS[keyword]!;
  if (sentence === null) return INVALID;
  const lower = sentence.toLowerCase();
  if (!ANY_PHRASE.test(lower)) return INVALID;
  // The first phrase in the table's order decides, wherever it sits in the sentence.
  for (const [phrase, code] of PHRASES) if (lower.includes(phrase)) return code;
  return INVALID;
}

/** A field path as the package spells it: dots between segments, `items[0]` as `items.0`, no control characters, bounded. */
function fieldOf(segments: readonly unknown[], dropLocation = false): string | null {
  const parts: string[] = [];
  for (const segment of segments) {
    if (typeof segment === 'string' && segment !== '') parts.push(segment);
    else if (typeof segment === 'number' && Number.isInteger(segment)) parts.push(String(segment));
  }
  if (dropLocation && parts.length > 0 && LOCATIONS.has(parts[0]!.toLowerCase())) parts.shift();
  let joined = parts.length === 1 ? parts[0]! : parts.join('.');
  // Most paths have neither an index in brackets nor a control character: one test, not two replacements.
  if (/[[\u0000-\u001f\u007f]/.test(joined)) joined = joined.replace(/\[(\d+)\]/g, '.$1').replace(/[\u0000-\u001f\u007f]/g, '');
  const field = (joined.length > MAX_FIELD ? joined.slice(0, MAX_FIELD) : joined).trim();
  return field === '' ? null : field;
}

/** A JSON pointer (RFC 6901, or a URI fragment `#/...`) into the request body as a field; JSON:API's /data/attributes/ is left out. */
function fromPointer(pointer: string): string | null {
  const tokens = pointer.replace(/^#/, '').split('/').slice(1).map(unescapeToken);
  if (tokens[0] === 'data') tokens.splice(0, tokens[1] === 'attributes' || tokens[1] === 'relationships' ? 2 : 1);
  return fieldOf(tokens);
}

/** `sentence`, with the field in front when it does not name the field's last segment ("can't be blank" becomes "title: can't be blank"). */
function sentenceOf(field: string | null, sentence: string | null): string | null {
  if (sentence === null || field === null) return sentence;
  const last = field.slice(field.lastIndexOf('.') + 1).toLowerCase();
  return sentence.toLowerCase().includes(last) ? sentence : `${field}: ${sentence}`;
}

/** Collects violations up to MAX_VIOLATIONS. */
class Found {
  readonly list: Violation[] = [];

  get full(): boolean {
    return this.list.length >= MAX_VIOLATIONS;
  }

  /** Adds a violation; `asIs` keeps its sentence as the body wrote it (this package's own bodies), without the field put in front. */
  add(field: string | null, sentence: string | null, keyword?: unknown, code?: string, asIs = false): void {
    if (this.full || (field === null && sentence === null)) return;
    this.list.push({ field, code: code ?? codeOf(keyword, sentence), message: asIs ? sentence : sentenceOf(field, sentence) });
  }
}

/** The first string of a list, or a string. */
const text = (value: unknown): string | null => {
  let candidate = value;
  if (Array.isArray(value)) {
    candidate = undefined;
    for (const item of value) {
      if (typeof item === 'string') {
        candidate = item;
        break;
      }
    }
  }
  return typeof candidate === 'string' && candidate.trim() !== '' ? candidate : null;
};

/** One item of a list of violations, in any of the item shapes frameworks send. */
function readItem(item: JsonObject, found: Found, keywordTable?: Readonly<Record<string, string>>): void {
  const source = own(item, 'source');
  const loc = own(item, 'loc');
  const path = own(item, 'path');
  const constraints = own(item, 'constraints');
  let field: string | null;
  if (Array.isArray(loc)) field = fieldOf(loc, true); // FastAPI and pydantic
  else if (Array.isArray(path)) field = fieldOf(path); // Zod issues
  else if (isRecord(source)) field = str(source, 'pointer') !== null ? fromPointer(str(source, 'pointer')!) : fieldOf([str(source, 'parameter')]); // JSON:API
  else if (str(item, 'pointer') !== null) field = fromPointer(str(item, 'pointer')!); // RFC 9457's own example
  else field = fieldOf([str(item, 'path') ?? str(item, 'field') ?? str(item, 'param') ?? str(item, 'name') ?? str(item, 'property') ?? str(item, 'propertyPath')]);
  const sentence =
    text(own(item, 'msg')) ?? text(own(item, 'message')) ?? text(own(item, 'detail')) ?? text(own(item, 'defaultMessage')) ??
    text(own(item, 'description')) ?? text(own(item, 'reason')) ?? text(own(item, 'title')) ??
    (isRecord(constraints) ? text(Object.values(constraints)) : null); // class-validator's ValidationError
  const keyword = own(item, 'keyword') ?? own(item, 'type') ?? own(item, 'code');
  if (keywordTable) {
    const code = typeof keyword === 'string' && Object.hasOwn(keywordTable, keyword) ? keywordTable[keyword] : undefined;
    return found.add(field, sentence, undefined, code ?? INVALID);
  }
  // express-validator leaves `value` out of a field the request did not send; Zod 3 says received "undefined".
  const absent = (own(item, 'type') === 'field' && typeof own(item, 'location') === 'string' && !Object.hasOwn(item, 'value')) || own(item, 'received') === 'undefined';
  found.add(field, sentence, absent ? 'required' : keyword);
}

/**
 * A map of field to sentences (Laravel, Rails, DRF, ASP.NET Core, Zod's flatten(), NestJS's grouped
 * format): a list of sentences or one sentence per key, a nested map for a nested object, a list of
 * maps for a list of objects (by index). Keys are followed to MAX_DEPTH.
 */
function readMap(node: JsonObject, prefix: string[], found: Found, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const [key, value] of Object.entries(node)) {
    if (found.full) return;
    const path = OWN_ERRORS.has(key) ? prefix : [...prefix, key];
    if (typeof value === 'string') found.add(fieldOf(path), value);
    else if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        if (typeof item === 'string') found.add(fieldOf(path), item);
        // Discord's {"errors": {"access_token": {"_errors": [{"code", "message"}]}}}: a node's own
        // violation items, about the node itself (https://discord.com/developers/docs/reference#error-messages).
        else if (isRecord(item) && OWN_ERRORS.has(key) && typeof own(item, 'message') === 'string') found.add(fieldOf(path), own(item, 'message') as string, own(item, 'code'));
        else if (isRecord(item)) readMap(item, [...path, String(index)], found, depth + 1);
      }
    } else if (isRecord(value)) {
      // express-validator's mapped(): each field's value is its violation item.
      if (typeof own(value, 'msg') === 'string') readItem(value, found);
      else readMap(value, path, found, depth + 1);
    }
  }
}

/**
 * One of Zod's trees. treeifyError() keeps a node's own sentences in `errors` and its children under
 * `properties` (by name) and `items` (by index); format() keeps them in `_errors`, its children being
 * the members that are nodes themselves. Nothing else of a node is read: a tree's root sits beside
 * whatever else a body carries (a debug member, a stack), which is never a field.
 */
function readTree(node: JsonObject, prefix: string[], found: Found, depth: number): void {
  const treeify = Array.isArray(own(node, 'errors'));
  const sentences = own(node, treeify ? 'errors' : '_errors');
  if (depth > MAX_DEPTH || !Array.isArray(sentences)) return;
  for (const sentence of sentences) if (typeof sentence === 'string') found.add(fieldOf(prefix), sentence);
  const properties = treeify ? own(node, 'properties') : node;
  for (const [key, child] of isRecord(properties) ? Object.entries(properties) : []) {
    if (isRecord(child) && key !== '_errors') readTree(child, [...prefix, key], found, depth + 1);
  }
  const items = treeify ? own(node, 'items') : undefined;
  if (Array.isArray(items)) {
    for (let index = 0; index < items.length; index++) {
      const child: unknown = items[index];
      if (isRecord(child)) readTree(child, [...prefix, String(index)], found, depth + 1);
    }
  }
}

/** True when every member of a body is a list (or map) of sentences: a DRF or Rails scaffold body, `{email: ["..."]}`. */
function isFieldMap(body: JsonObject, depth = 0): boolean {
  if (depth > MAX_DEPTH) return false;
  const values = Object.values(body);
  if (values.length === 0) return false;
  for (const value of values) {
    if (!Array.isArray(value)) {
      if (!(isRecord(value) && isFieldMap(value, depth + 1))) return false;
      continue;
    }
    if (value.length === 0) return false;
    for (const item of value) {
      if (!(typeof item === 'string' || (isRecord(item) && (Object.keys(item).length === 0 || isFieldMap(item, depth + 1))))) return false;
    }
  }
  return true;
}

/** The issues of a ZodError serialised by JSON.stringify: `{name: 'ZodError', message: '[{...}]'}`. */
function zodIssues(error: JsonObject): unknown {
  const message = str(error, 'message');
  if (own(error, 'name') !== 'ZodError' || message === null || !message.trimStart().startsWith('[')) return undefined;
  try {
    return JSON.parse(message);
  } catch {
    return undefined;
  }
}

/**
 * The userErrors of a GraphQL mutation answered with data (Shopify's Admin API: a 200 whose payload
 * holds `userErrors: [{field, message, code?}]`, https://shopify.dev/docs/api/admin-graphql/latest/objects/UserError),
 * when every field of data is null or such a payload with errors: the list of the first. A response
 * where one mutation of several succeeded is the partial success it says it is.
 */
export function userErrorsOf(body: JsonObject): unknown[] | null {
  const data = own(body, 'data');
  if (!isRecord(data)) return null;
  let found: unknown[] | null = null;
  for (const payload of Object.values(data)) {
    if (payload === null) continue;
    const errors = isRecord(payload) ? own(payload, 'userErrors') : undefined;
    if (!Array.isArray(errors) || !errors.some(isRecord)) return null;
    found ??= errors;
  }
  return found;
}

/** The code of a userErrors item that says one (graphql_user_error_code, its default for any other), else undefined: its sentence decides. */
function userErrorCode(item: JsonObject): string | undefined {
  const code = str(item, 'code');
  if (code === null) return undefined;
  const table: Readonly<Record<string, string>> = READERS.graphql_user_error_code;
  return code !== 'default' && Object.hasOwn(table, code) ? table[code] : table.default;
}

/**
 * Zendesk's validation map, `details: {field: [{description, error}]}` beside `error: "RecordInvalid"`
 * (https://developer.zendesk.com/api-reference/introduction/requests/, 422), whose key `base` holds
 * what belongs to the whole record: each item's description, and its error as the keyword.
 */
function readDetails(details: JsonObject, found: Found): boolean {
  const entries = Object.entries(details);
  if (entries.length === 0 || !entries.every(([, items]) => Array.isArray(items) && items.every((item) => isRecord(item) && typeof own(item, 'description') === 'string'))) return false;
  for (const [key, items] of entries) for (const item of items as JsonObject[]) found.add(key === 'base' ? null : fieldOf([key]), str(item, 'description'), own(item, 'error'));
  return true;
}

/** Lists of violation items, where each framework puts them. */
const LIST_KEYS = ['errors', 'issues', 'detail', 'violations', 'invalid-params', 'invalid_params'];

/** Fastify's ajv message: `body must have required property 'email'`, `querystring/limit must be integer`, several joined with ", ". */
const AJV_MESSAGE = /^(body|querystring|params|headers)(\/\S*)? (.+)$/;

function readBody(body: JsonObject, found: Found): void {
  // A GraphQL mutation's userErrors, whose field is a path of the input's keys.
  const userErrors = userErrorsOf(body);
  if (userErrors) {
    for (const item of userErrors) {
      if (!isRecord(item)) continue;
      const field = own(item, 'field');
      found.add(Array.isArray(field) ? fieldOf(field) : fieldOf([str(item, 'field')]), str(item, 'message'), undefined, userErrorCode(item));
    }
    return;
  }
  const details = own(body, 'details');
  if (typeof own(body, 'error') === 'string' && isRecord(details) && readDetails(details, found)) return;
  // This package's own envelope and problem details: the site's own codes, kept as they are.
  const error = own(body, 'error');
  const mine = isRecord(error) && Array.isArray(own(error, 'errors')) ? (own(error, 'errors') as unknown[]) : null;
  if (mine || (typeof own(body, 'code') === 'string' && Array.isArray(own(body, 'errors')))) {
    for (const item of mine ?? (own(body, 'errors') as unknown[])) {
      if (!isRecord(item)) continue;
      const code = str(item, 'code');
      const ours = code !== null && /^[a-z][a-z0-9_]*$/.test(code);
      found.add(fieldOf([str(item, 'field') ?? str(item, 'param')]), str(item, 'message') ?? str(item, 'detail'), undefined, ours ? code : undefined, ours);
    }
    return;
  }
  // google.rpc.BadRequest: error.details[].fieldViolations[{field, description}].
  if (isRecord(error) && Array.isArray(own(error, 'details'))) {
    for (const detail of own(error, 'details') as unknown[]) {
      if (isRecord(detail) && str(detail, '@type')?.endsWith('google.rpc.BadRequest')) {
        for (const violation of (own(detail, 'fieldViolations') as unknown[] | undefined) ?? []) if (isRecord(violation)) readItem(violation, found);
      }
    }
    if (found.list.length > 0) return;
  }
  // Lists of items; GitHub's codes are read through its own table. A ZodError sent as it is, `{error}`,
  // serialises its issues as the JSON text of its message.
  for (let index = 0; index <= LIST_KEYS.length; index++) {
    const list = index < LIST_KEYS.length ? own(body, LIST_KEYS[index]!) : isRecord(error) ? (own(error, 'issues') ?? zodIssues(error)) : undefined;
    if (!Array.isArray(list) || !list.some(isRecord)) continue;
    const table = str(body, 'documentation_url') !== null ? READERS.github_error_code : undefined;
    for (const item of list) if (isRecord(item) && !found.full) readItem(item, found, table);
    if (found.list.length > 0) return;
  }
  // Maps and trees: Laravel, Rails and ASP.NET Core's `errors`, Zod's flatten(), format() and treeifyError().
  const flat = own(body, 'fieldErrors');
  const map = isRecord(flat) ? flat : isRecord(own(body, 'errors')) ? (own(body, 'errors') as JsonObject) : null;
  if (map) {
    readMap(map, [], found, 0);
    // flatten()'s formErrors: the errors of the whole body, which no field owns.
    for (const sentence of map === flat && Array.isArray(own(body, 'formErrors')) ? (own(body, 'formErrors') as unknown[]) : []) {
      if (typeof sentence === 'string') found.add(null, sentence);
    }
  } else readTree(body, [], found, 0);
  if (found.list.length > 0) return;
  const message = own(body, 'message');
  // NestJS's ValidationPipe: each sentence starts with the property path ("address.city must be a string",
  // "email: Invalid input" from a Standard Schema pipe); grouped by property when the pipe is asked to.
  if (isRecord(message) && isFieldMap(message)) return readMap(message, [], found, 0);
  if (Array.isArray(message)) {
    for (const sentence of message) {
      if (typeof sentence !== 'string') continue;
      // class-validator's `each: true` says "each value in tags ...", and forbidNonWhitelisted "property x should not exist".
      const head = /^(?:each value in |property )?([A-Za-z_$][\w$]*(?:\.[\w$]+)*):? /.exec(sentence);
      found.add(head ? fieldOf([head[1]]) : null, sentence);
    }
    return;
  }
  // hapi with Joi: validation.keys, and a message of Joi's sentences joined with ". ".
  const validation = own(body, 'validation');
  if (isRecord(validation) && Array.isArray(own(validation, 'keys'))) {
    const sentences = typeof message === 'string' ? message.split(/\. (?=")/) : [];
    for (const key of own(validation, 'keys') as unknown[]) {
      if (typeof key !== 'string') continue;
      const last = key.slice(key.lastIndexOf('.') + 1);
      found.add(fieldOf([key]), sentences.find((s) => s.includes(`"${key}"`) || s.includes(`"${last}"`)) ?? null);
    }
    return;
  }
  // Fastify: {statusCode, code: 'FST_ERR_VALIDATION', error, message}.
  if (typeof message === 'string' && typeof own(body, 'statusCode') === 'number') {
    for (const part of message.split(/, (?=(?:body|querystring|params|headers)[ /])/)) {
      const ajv = AJV_MESSAGE.exec(part);
      if (!ajv) return;
      const required = /^must have required property '(.+)'$/.exec(ajv[3]!);
      found.add(fieldOf([...(ajv[2] ?? '').split('/'), required?.[1]].map((s) => (s === undefined ? s : unescapeToken(s)))), part, required ? 'required' : undefined);
    }
    return;
  }
  // A body that is nothing but fields and their sentences: DRF, and Rails' scaffold.
  if (isFieldMap(body)) readMap(body, [], found, 0);
}

/**
 * Every violation a 4xx body reports, in its own order, at most MAX_VIOLATIONS. Never throws: a
 * body of no known validation shape, or a hostile one, gives an empty list.
 */
export function violationsOf(body: unknown): Violation[] {
  const found = new Found();
  if (!isRecord(body)) return found.list;
  try {
    readBody(body, found);
  } catch {
    // A getter-laden or otherwise hostile object: what was read so far.
  }
  return found.list;
}

/** A violation's sentence, fit to show: one line, no dump, else a sentence naming the field. */
export function violationMessage(violation: Violation): string | null {
  if (violation.message === null || looksLikeDump(violation.message)) return null;
  return cleanText(firstLine(violation.message)) || null;
}

/** The envelope's `errors`, when a body reports more than one field: every violation that names one. */
export function fieldErrors(violations: readonly Violation[]): [FieldError, ...FieldError[]] | undefined {
  const named: FieldError[] = [];
  for (const v of violations) if (v.field !== null) named.push({ field: v.field, code: v.code, message: '' });
  if (named.length < 2) return undefined;
  let at = 0;
  for (const v of violations) if (v.field !== null) named[at++]!.message = violationMessage(v) ?? `${v.field} is not valid`;
  return named as [FieldError, ...FieldError[]];
}

// Sentences that name the field they are about, in the shapes vendors write them; each pattern is
// anchored on fixed words around one bounded capture, so a long message costs one linear pass.
const FIELD_SENTENCES: readonly RegExp[] = [
  // AWS's validation errors: "1 validation error detected: Value null at 'tableName' failed to satisfy constraint: ..."
  /\bValue .{0,200}? at '([^'\s]{1,100})' failed to satisfy constraint/,
  // pydantic's, as Anthropic's API and FastAPI services word them: "messages.1.content.0.image.source.base64.media_type: Field required"
  /^([A-Za-z_][\w-]{0,63}(?:\.[\w-]{1,64}){0,15}): (?:Field required|Input should|Extra inputs are not permitted|String should|Value error)/,
  // "'from' parameter is missing", "The 'To' parameter is required"
  /'([\w.-]{1,64})' parameter is (?:missing|required|invalid|not valid)/i,
  // Notion's validation errors: "body failed validation: body.parent.page_id should be defined, ..."
  /\bbody\.([\w-]{1,64}(?:\.[\w-]{1,64}){0,15}) should be /,
  // Twilio's, its parameter (PascalCase) in quotes: "The 'To' number +1555 is not a valid phone number.", "A 'From' phone number is required."
  /\b(?:The|A|An|No) '([A-Z][A-Za-z]{0,63})' (?:phone number|number|parameter|value|URL|Url)\b/,
];

/** The code a sentence says of its field: missing_field for a value left out (the catalog's validation_phrase), else invalid_input. */
export const sentenceCode = (sentence: string | null): string => codeOf(undefined, sentence);

/** What the first of `sentences` that matches a message's first 2,000 characters captures, or null. */
function captured(sentences: readonly RegExp[], message: string | null): string | null {
  if (message === null) return null;
  const text = message.slice(0, 2000);
  for (const pattern of sentences) {
    const found = pattern.exec(text);
    if (found) return found[1]!;
  }
  return null;
}

/** The field a message names in a sentence shape vendors use, or null. */
export const fieldInMessage = (message: string | null): string | null => captured(FIELD_SENTENCES, message);

// Refusals that name the access scope they lack, in the words Shopify uses: its REST API's "[API]
// This action requires merchant approval for write_script_tags scope." and its GraphQL Admin API's
// ACCESS_DENIED "Access denied for orders field. Required access: `read_orders` access scope."
// (https://shopify.dev/docs/api/usage/access-scopes).
const SCOPE_SENTENCES: readonly RegExp[] = [/\brequires merchant approval for ([a-z][a-z0-9_]{0,63}) scope\b/, /\bRequired access: [`"]([a-z][a-z0-9_]{0,63})[`"] access scope\b/];

/** The access scope a refusal's message says it lacks, or null. */
export const scopeInMessage = (message: string | null): string | null => captured(SCOPE_SENTENCES, message);
