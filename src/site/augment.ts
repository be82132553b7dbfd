// An app's own JSON error, with what this contract needs and the body lacks added in the body's own
// format (seed 002: "Add the four fields to the format you have"). Nothing the app sent is changed
// or taken away: not its status, not a member, not a header. What is added is where the format
// keeps it: the team's declared format (the lint config's `format`), else the first of the formats
// this package recognises (schema/formats.json) whose members the body has.
import { FORMAT_PLACES } from '../../generated/formats.js';
import { RETRY_WORDS, type RetryWordEntry } from '../../generated/catalog.js';
import type { Envelope } from '../../generated/types.js';
import { PARTS, type ErrorFormat, type Part, type RetryByCode } from '../core/format.js';
import { fromResponseUnchecked } from '../core/from-response.js';
import { isRecord, unescapeToken, type JsonObject } from '../core/json.js';
import type { HeadersInput } from '../core/headers.js';

/** A place as its keys, unescaped once (`*` for every item of a list). */
type Path = readonly string[];

/** Where a format keeps each part, first place first, each place as its keys. */
type Places = Readonly<Record<Part, readonly Path[]>>;

/** A JSON pointer as its keys. */
const pathOf = (place: string): Path => place.slice(1).split('/').map(unescapeToken);

const compile = (places: Readonly<Partial<Record<Part, readonly string[]>>>): Places =>
  Object.fromEntries(PARTS.map((part) => [part, (places[part] ?? []).map(pathOf)])) as unknown as Places;

// Compiled once: a response is read by keys, never by splitting pointers (an error answer costs about a microsecond less per place).
const KNOWN: readonly (Places & { readonly match: readonly Path[] })[] = FORMAT_PLACES.map((f) => ({
  // A format whose codes say what to do (google.rpc.Status, Stripe) has no place for a word.
  ...compile({ ...f, retry: 'retry' in f ? f.retry : [] }),
  match: f.match.map(pathOf),
}));

/** The format of last resort: what a body that matches no other keeps at its top. */
const TOP: Places = KNOWN[KNOWN.length - 1]!;

/** The places of each team's declared format, compiled once per format object (an adapter's options hold one). */
const DECLARED = new WeakMap<ErrorFormat, Places>();

/** What a body has at a place: its value, or undefined; `*` takes the first item. */
function at(body: unknown, path: Path): unknown {
  let current = body;
  for (const key of path) {
    if (key === '*') current = Array.isArray(current) ? current[0] : undefined;
    else current = isRecord(current) && Object.hasOwn(current, key) ? current[key] : undefined;
    if (current === undefined) return undefined;
  }
  return current;
}

/** The places to add into: the team's format, else the first recognised format whose members the body has (the last has none to match). */
function placesOf(body: JsonObject, format: ErrorFormat | undefined): Places {
  if (format !== undefined) {
    let places = DECLARED.get(format);
    if (places === undefined) DECLARED.set(format, (places = compile(Object.fromEntries(PARTS.map((part) => [part, format[part] === undefined ? [] : [format[part]]])))));
    return places;
  }
  for (const f of KNOWN) if (f.match.every((path) => at(body, path) !== undefined)) return f;
  return TOP;
}

/**
 * Sets `value` at `path` in `body` where nothing is there: through members it makes as it goes,
 * and into every item of a list at `*`. False when the way is blocked (a member on the way is a
 * string, a list is empty): the part is then not added, and nothing else is touched. With `dry`,
 * only says whether it would succeed.
 */
function addAt(body: unknown, tokens: Path, value: unknown, dry = false): boolean {
  const [token, ...rest] = tokens;
  if (token === '*') {
    // Every item, or none: a list half-changed would say two things.
    if (!Array.isArray(body) || body.length === 0 || !body.every((item) => addAt(item, rest, value, true))) return false;
    if (!dry) for (const item of body) addAt(item, rest, value);
    return true;
  }
  if (!isRecord(body) || token === undefined) return false;
  const has = Object.hasOwn(body, token);
  if (rest.length === 0) {
    if (!has && !dry) body[token] = value;
    return !has;
  }
  if (has) return addAt(body[token], rest, value, dry);
  if (rest[0] === '*') return false;
  if (!dry) body[token] = {};
  return dry || addAt(body[token], rest, value);
}

/** True when the body has something at one of the places. */
const hasAny = (body: unknown, paths: readonly Path[]): boolean => paths.some((path) => (at(body, path) ?? null) !== null);

/** What augment adds: the body (null when nothing was added to it) and the delay to send as Retry-After too (null for none). */
export interface Augmented {
  readonly body: JsonObject | null;
  readonly delay: number | null;
}

/** What augment needs to know of the site. */
export interface AugmentOptions {
  readonly format?: ErrorFormat;
  readonly retryByCode?: RetryByCode;
  /** The delay of a wait the response names none for. */
  readonly retryAfter: number;
}

/**
 * Adds to an app's own JSON error body (parsed; changed in place) what an agent acts on and it
 * lacks: its code (a site's own passes through as it is), the retry word (the body's, the team's
 * retryByCode, the catalog's for a catalog code, else its status's), its message, the field at
 * fault and the delay of a wait, each at the first place its format keeps it.
 */
export function augment(body: JsonObject, status: number, headers: HeadersInput, options: AugmentOptions): Augmented {
  const { error } = fromResponseUnchecked(status, headers, body, options) as Envelope;
  const word: RetryWordEntry = RETRY_WORDS[error.retry];
  // A wait says how long: the response's delay, else its word's default, else the site's.
  const delay = word.next_step !== 'wait' ? null : (error.retry_after ?? word.default_retry_after ?? (word.requires.includes('retry_after') ? options.retryAfter : null));
  const places = placesOf(body, options.format);
  const values: Readonly<Record<Part, unknown>> = { code: error.code, retry: error.retry, message: error.message, delay, field: error.field };
  let added = false;
  for (const part of PARTS) {
    const value = values[part];
    const where = places[part];
    if (value === null || hasAny(body, where)) continue;
    // A format with no room for the part (a member on the way is a string: {"error": "Not Found"})
    // takes it at the top of the body, once: there, what was added before is not added again (a
    // response that passes two adapters). A format with room is not judged by the top of the body.
    const room = where.some((path) => addAt(body, path, value, true));
    if (!room && hasAny(body, TOP[part])) continue;
    for (const path of room ? where : TOP[part]) {
      if (addAt(body, path, value)) {
        added = true;
        break;
      }
    }
  }
  return { body: added ? body : null, delay };
}

/** The first JSON object of a body an app sent as JSON, or null: anything else (an array, a number, text that does not parse) is not one this adds to. */
export function jsonObjectOf(body: Uint8Array | string | null): JsonObject | null {
  if (body === null) return null;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  if (text.trimStart()[0] !== '{') return null;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/**
 * Sets `value` at `place` in `body`, making the objects on the way and, at `*`, a list of one item
 * where there is none (every item of a list there is). What is at the place is replaced; nothing
 * else is touched. False when a member on the way is neither an object nor a list.
 */
export function putAt(body: JsonObject, place: string, value: unknown): boolean {
  const tokens = place.slice(1).split('/');
  let nodes: unknown[] = [body];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const last = i === tokens.length - 1;
    const next: unknown[] = [];
    for (const node of nodes) {
      if (token === '*') {
        if (!Array.isArray(node)) return false;
        if (node.length === 0) node.push(last ? value : {});
        if (last) node.fill(value);
        else next.push(...node);
      } else {
        if (!isRecord(node)) return false;
        const key = unescapeToken(token);
        if (last) node[key] = value;
        else next.push((node[key] ??= tokens[i + 1] === '*' ? [] : {}));
      }
    }
    nodes = next;
  }
  return true;
}