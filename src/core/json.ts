// Reading parsed JSON whose shape nothing promises: only own members are read, so nothing inherited
// (`constructor`, `__proto__`) is taken for data, and a member of the wrong type reads as absent
// (as RFC 9457 section 3.1 says a problem's reader treats it). Nothing here throws on a JSON value.

/** A JSON object, as JSON.parse gives `{...}`. */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a JSON object: an object, not null, not an array. */
export const isRecord = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** An own member of an object; undefined when it has none or is no object. */
export const own = (object: unknown, key: string): unknown => (isRecord(object) && Object.hasOwn(object, key) ? object[key] : undefined);

/** A member of an object, or an item of an array by its decimal index. */
export const member = (value: unknown, key: string): unknown =>
  Array.isArray(value) ? (/^(?:0|[1-9]\d*)$/.test(key) ? (value as unknown[])[Number(key)] : undefined) : own(value, key);

/** A member that is a string with some text in it (not only white space), else null. */
export const str = (object: unknown, key: string): string | null => {
  const value = own(object, key);
  return typeof value === 'string' && value.trim() !== '' ? value : null;
};

/** A value that is a string, any string, else undefined. */
export const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A value that is an integer, else undefined. */
export const asInteger = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) ? value : undefined);

/** The members of an object as [key, value] pairs; none for anything else. */
export const entries = (value: unknown): [string, unknown][] => (isRecord(value) ? Object.entries(value) : []);

/** One key as a JSON pointer (RFC 6901) token: ~ as ~0, / as ~1. */
export const escapeToken = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** One JSON pointer token as the key it stands for. */
export const unescapeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');

/** The JSON pointer `base` followed by `keys`. */
export const pointer = (base: string, ...keys: (string | number)[]): string => base + keys.map((k) => `/${escapeToken(String(k))}`).join('');
