// Response headers in whatever shape a caller holds them (fetch Headers, Node's IncomingHttpHeaders,
// a plain record, entry pairs), read as one set of fields without ever throwing.

/** Headers as a fetch Response, Node's http module, an axios response or a test gives them. */
export type HeadersInput =
  | Headers
  | Record<string, string | string[] | number | undefined | null>
  | Iterable<readonly [string, string]>
  | null
  | undefined;

/**
 * One header value as a string, or null when the value cannot be a field value: strings as they
 * are, finite numbers in decimal, arrays (Node gives repeated fields as arrays) joined with ", "
 * as RFC 9110 section 5.3 combines field lines; null, undefined and anything else are dropped.
 */
function fieldValue(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : null;
  if (Array.isArray(value)) {
    const parts: string[] = [];
    for (const part of value as unknown[]) {
      const text = typeof part === 'string' || typeof part === 'number' ? fieldValue(part) : null;
      if (text !== null) parts.push(text);
    }
    return parts.length > 0 ? parts.join(', ') : null;
  }
  return null;
}

/** What the package reads of a set of response headers: a value by name, in any case. A WHATWG Headers is one. */
export interface Fields extends Iterable<[string, string]> {
  get(name: string): string | null;
  has(name: string): boolean;
}

/** RFC 9110 5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** RFC 9110 5.5: what a field value may not hold (CR, LF, NUL), and what a WHATWG Headers refuses besides (above U+00FF). */
const NOT_FIELD_VALUE = /[\0\r\n\u0100-\uffff]/;
/** The whitespace a WHATWG Headers strips from each end of a value: tab, LF, CR and space. */
const isEdgeWhitespace = (code: number): boolean => code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;

/** `value` without the whitespace at its ends; by index, as a regular expression for the end would backtrack over long inner runs. */
function trimEdges(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isEdgeWhitespace(value.charCodeAt(start))) start++;
  while (end > start && isEdgeWhitespace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

/**
 * Response headers as this package holds them: what a WHATWG Headers keeps of the same field
 * lines (names lower-cased, values trimmed, repeated fields joined with ", ", invalid lines
 * refused), without one. node's Headers is its fetch implementation, which a server on node:http
 * would otherwise load for the first error it converts, and keep paying for on every request.
 */
class FieldMap implements Fields {
  readonly #values = new Map<string, string>();

  /** Adds one field line; false, and nothing added, for a line a Headers would refuse. */
  append(name: string, value: string): boolean {
    const text = trimEdges(value);
    if (!TOKEN.test(name) || NOT_FIELD_VALUE.test(text)) return false;
    const key = name.toLowerCase();
    const known = this.#values.get(key);
    this.#values.set(key, known === undefined ? text : `${known}, ${text}`);
    return true;
  }

  get(name: string): string | null {
    return typeof name === 'string' ? (this.#values.get(name.toLowerCase()) ?? null) : null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  /** The names of the fields, lower case. */
  names(): IterableIterator<string> {
    return this.#values.keys();
  }

  /** The fields sorted by name, as a Headers iterates them. */
  *[Symbol.iterator](): IterableIterator<[string, string]> {
    yield* [...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** Appends one field line; a name or value that a Headers would refuse is skipped. */
function appendSafely(headers: FieldMap, name: unknown, value: unknown): void {
  if (typeof name !== 'string') return;
  try {
    const text = fieldValue(value);
    if (text !== null) headers.append(name, text);
  } catch {
    // Skipped on purpose: one bad field line (or a throwing array proxy) must not hide the others.
  }
}

/** One member of a record as a field line; a throwing getter skips this field only. */
function appendField(headers: FieldMap, record: Record<string, unknown>, name: string): void {
  let value: unknown;
  try {
    value = record[name];
  } catch {
    return;
  }
  appendSafely(headers, name, value);
}

/**
 * A record whose names are all lower case, read by name when asked: the same answers as the
 * FieldMap made from it (a name that is no token, or a value a Headers would refuse, is absent),
 * without copying every field of a response of which a reader asks for a few.
 */
class RecordFields implements Fields {
  #copy: FieldMap | undefined;

  constructor(
    readonly record: Record<string, unknown>,
    readonly names: readonly string[],
  ) {}

  get(name: string): string | null {
    if (typeof name !== 'string') return null;
    const key = name.toLowerCase();
    if (!Object.hasOwn(this.record, key) || !TOKEN.test(key)) return null;
    try {
      const text = fieldValue(this.record[key]);
      if (text === null) return null;
      const trimmed = trimEdges(text);
      return NOT_FIELD_VALUE.test(trimmed) ? null : trimmed;
    } catch {
      return null; // A throwing getter or array proxy: as FieldMap, this field only is absent.
    }
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    if (!this.#copy) {
      this.#copy = new FieldMap();
      for (const name of this.names) appendField(this.#copy, this.record, name);
    }
    return this.#copy[Symbol.iterator]();
  }
}

/** True for a WHATWG Headers, or another fetch implementation's: read by name, not copied. */
function isHeadersLike(input: object): input is Fields {
  const candidate = input as { get?: unknown; has?: unknown };
  return !(input instanceof Map) && typeof candidate.get === 'function' && typeof candidate.has === 'function';
}

/**
 * The usable fields of `input`. Names match in any case. Repeated fields, and array values, are
 * joined with ", ". Field lines a Headers object would refuse (invalid names; values with CR, LF,
 * NUL or characters outside Latin-1) are skipped. A Headers (anything with get and has, other than
 * a Map) is returned as it is. Never throws: a throwing getter or iterator ends the copy with the
 * fields read so far.
 */
export function toHeaders(input: HeadersInput): Fields {
  const headers = new FieldMap();
  if (input === null || typeof input !== 'object') return headers;
  try {
    if (isHeadersLike(input)) return input;
    if (Symbol.iterator in input && typeof (input as Iterable<unknown>)[Symbol.iterator] === 'function') {
      // Entry pairs: a Map, Object.entries(...).
      for (const entry of input as Iterable<unknown>) {
        if (Array.isArray(entry) && entry.length >= 2) appendSafely(headers, entry[0], entry[1]);
      }
      return headers;
    }
    const record = input as Record<string, unknown>;
    const names = Object.keys(record);
    // Node's IncomingHttpHeaders and most records hold lower-case names only: each is then read when asked for.
    let lower = true;
    for (const name of names) if (name !== name.toLowerCase()) lower = false;
    if (lower) return new RecordFields(record, names);
    for (const name of names) appendField(headers, record, name);
  } catch {
    // A throwing iterator or proxy: keep what was read.
  }
  return headers;
}

/**
 * The OR of the bits `watched` gives the names `fields` holds (lower case): which groups of fields
 * a response may have, from one pass over its own names, so that the rules reading a group that is
 * absent are not run. A name whose value turns out unusable still counts (get then says null). A
 * Headers, which is only asked by name, gives every bit.
 */
export function presentBits(fields: Fields, watched: ReadonlyMap<string, number>): number {
  if (!(fields instanceof RecordFields || fields instanceof FieldMap)) return -1;
  let bits = 0;
  for (const name of fields instanceof RecordFields ? fields.names : fields.names()) bits |= watched.get(name) ?? 0;
  return bits;
}

/** Fields holding only the named ones of `headers` that are present. */
export function pickHeaders(headers: Fields, names: readonly string[]): Fields {
  const out = new FieldMap();
  for (const name of names) {
    const value = headerValue(headers, name);
    if (value !== null) out.append(name, value);
  }
  return out;
}

/** The value of header `name` (any case; repeated fields joined with ", "), or null when absent or `name` is not a valid field name. */
export function headerValue(headers: Fields, name: string): string | null {
  try {
    return headers.get(name);
  } catch {
    return null;
  }
}
