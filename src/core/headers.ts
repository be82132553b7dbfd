// Response headers in whatever shape a caller holds them (fetch Headers, Node's IncomingHttpHeaders,
// a plain record, entry pairs), turned into one WHATWG Headers object without ever throwing.

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

/** Appends one field line; a name or value that Headers refuses (RFC 9110 5.1 token, 5.5 field-value) is skipped. */
function appendSafely(headers: Headers, name: unknown, value: unknown): void {
  if (typeof name !== 'string') return;
  try {
    const text = fieldValue(value);
    // Headers lower-cases the name, trims surrounding whitespace, and throws on a name that is not
    // a token or a value with CR, LF, NUL or a character above U+00FF (a ByteString).
    if (text !== null) headers.append(name, text);
  } catch {
    // Skipped on purpose: one bad field line (or a throwing array proxy) must not hide the others.
  }
}

/**
 * A Headers object holding every usable field of `input`. Names match in any case. Repeated
 * fields, and array values, are joined with ", ". Field lines a Headers object would refuse
 * (invalid names; values with CR, LF, NUL or characters outside Latin-1) are skipped. A Headers
 * instance is returned as it is. Never throws: a throwing getter or iterator ends the copy with
 * the fields read so far.
 */
export function toHeaders(input: HeadersInput): Headers {
  if (input instanceof Headers) return input;
  const headers = new Headers();
  if (input === null || typeof input !== 'object') return headers;
  try {
    if (Symbol.iterator in input && typeof (input as Iterable<unknown>)[Symbol.iterator] === 'function') {
      // Entry pairs: a Map, Object.entries(...), another fetch implementation's Headers.
      for (const entry of input as Iterable<unknown>) {
        if (Array.isArray(entry) && entry.length >= 2) appendSafely(headers, entry[0], entry[1]);
      }
      return headers;
    }
    const record = input as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      let value: unknown;
      try {
        value = record[name];
      } catch {
        continue; // A throwing getter: skip this field only.
      }
      appendSafely(headers, name, value);
    }
  } catch {
    // A throwing iterator or proxy: keep what was read.
  }
  return headers;
}

/** The value of header `name` (any case; repeated fields joined with ", "), or null when absent or `name` is not a valid field name. */
export function headerValue(headers: Headers, name: string): string | null {
  try {
    return headers.get(name);
  } catch {
    return null;
  }
}
