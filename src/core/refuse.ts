// How a site's misconfiguration is refused, in one wording for every builder and adapter: a
// TypeError naming the call, the value's name, what it takes, and the value received, quoted.

/** How a value reads in an error message: as JSON (a string in quotes), else as String gives it (a number, undefined, a function). */
export function quote(value: unknown): string {
  try {
    return (typeof value === 'number' || typeof value === 'function' ? undefined : JSON.stringify(value)) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Throws the TypeError of a value `name` may not have: the call (`who`), what the name takes, and the value received, quoted. */
export function refuse(who: string, name: string, takes: string, value: unknown): never {
  throw new TypeError(`${who}: ${name} must be ${takes} (got ${quote(value)})`);
}

/** One check of a set of values: its name, whether a value passes, and what it takes, in words. Undefined always passes. */
export type Rule = readonly [name: string, ok: (value: unknown) => boolean, takes: string];

/** Refuses the first value of `values` a rule does not pass (see refuse). */
export function checkRules(who: string, values: object, rules: readonly Rule[]): void {
  for (const [name, ok, takes] of rules) {
    const value = (values as Record<string, unknown>)[name];
    if (value !== undefined && !ok(value)) refuse(who, name, takes, value);
  }
}

/**
 * A whole, non-negative number: a delay Retry-After can carry, a count of bytes. A safe integer, so
 * the body's number and the Retry-After digits are the same (String(1e21) is "1e+21").
 */
export const isWhole = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** What a delay takes, in words. */
export const DELAY = 'a whole, non-negative number of seconds, as Retry-After is';
