// How a misconfiguration is refused, in one wording for every function the package exports: a
// TypeError naming the call, the option, what it takes and the value received, quoted; and an
// option the call does not know, named with the closest one it does.

/** How a value reads in an error message: as JSON (a string in quotes), else as String gives it (a number, undefined, a function). */
export function quote(value: unknown): string {
  try {
    return (typeof value === 'number' || typeof value === 'function' ? undefined : JSON.stringify(value)) ?? String(value);
  } catch {
    try {
      return String(value);
    } catch {
      // What neither JSON nor String can show (a bigint inside an object with no prototype, a toString that is no function).
      return Object.prototype.toString.call(value);
    }
  }
}

/**
 * Throws the TypeError of a value `name` may not have: the call (`who`), what the name takes, and the
 * value received, quoted and cut to 120 characters (a whole document passed by mistake stays a
 * readable message).
 */
export function refuse(who: string, name: string, takes: string, value: unknown): never {
  const got = quote(value);
  throw new TypeError(`${who}: ${name} must be ${takes} (got ${got.length > 120 ? `${got.slice(0, 119)}…` : got})`);
}

/** What one option takes: whether a value passes, and what it takes, in words. Undefined always passes. */
export type Check = readonly [ok: (value: unknown) => boolean, takes: string];

/**
 * The checks of an options type, one per option: a table that leaves an option out, or names one the
 * type does not have, does not compile, so a new option cannot be forgotten by the check.
 */
export type Checks<O> = { readonly [K in keyof O]-?: Check };

/** Edit distance between two lower-cased names, two letters swapped counting as one edit (cdoe, code): optimal string alignment. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The known name closest to `name`: the same but for case, _ and - (retry_after, retryAfter), else one
 * that starts with it or it starts with (maxWait, maxWaitSeconds), else the nearest within a third of
 * its length (onerrr, onError); undefined when none is near.
 */
export function closest(name: string, known: readonly string[]): string | undefined {
  // Case, _ and - ignored: retry_after and RetryAfter are retryAfter, spelt as the wire or another language spells it.
  const plain = (s: string): string => s.toLowerCase().replace(/[-_]/g, '');
  const lower = plain(name);
  let best: string | undefined;
  let bestScore = Math.max(2, Math.floor(name.length / 3)) + 1;
  for (const k of known) {
    const l = plain(k);
    // The same name is nearest; then a prefix either way, the closer in length the nearer (retryAfterX: retryAfter, not retry).
    const score = l === lower ? 0 : l.startsWith(lower) || lower.startsWith(l) ? 1 + Math.abs(l.length - lower.length) / 1000 : distance(lower, l) + 1;
    if (score < bestScore || (score === bestScore && best !== undefined && k.length < best.length)) [best, bestScore] = [k, score];
  }
  return best;
}

/** Throws the TypeError of an option `who` does not know: its new name when it was renamed, else the closest it knows. */
export function unknownOption(who: string, name: string, known: readonly string[], renamed: Readonly<Record<string, string>> = {}): never {
  const now = Object.hasOwn(renamed, name) ? renamed[name] : undefined;
  if (now !== undefined) throw new TypeError(`${who}: the option "${name}" is called "${now}" now`);
  const near = closest(name, known);
  throw new TypeError(`${who}: unknown option "${name}"${near === undefined ? `; it takes ${known.map((k) => `"${k}"`).join(', ') || 'none'}` : ` (did you mean "${near}"?)`}`);
}

/**
 * Checks the options a function was called with: an object (or undefined), each of whose own keys is
 * an option of `checks` holding a value it takes; else a TypeError naming `who`. `renamed` maps an old
 * option name to its new one.
 */
export function checkRules(who: string, values: unknown, checks: Readonly<Record<string, Check>>, renamed?: Readonly<Record<string, string>>): void {
  if (values === undefined) return;
  if (typeof values !== 'object' || values === null || Array.isArray(values)) refuse(who, 'options', 'an object', values);
  for (const name of Object.keys(values)) {
    const check = Object.hasOwn(checks, name) ? checks[name] : undefined;
    if (check === undefined) unknownOption(who, name, Object.keys(checks), renamed);
    const value = (values as Record<string, unknown>)[name];
    if (value !== undefined && !check[0](value)) refuse(who, name, check[1], value);
  }
}

/**
 * A whole, non-negative number: a delay Retry-After can carry, a count of bytes. A safe integer, so
 * the body's number and the Retry-After digits are the same (String(1e21) is "1e+21").
 */
export const isWhole = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** A whole number, 1 or more: a count of calls, bytes, origins. */
export const isCount = (value: unknown): boolean => isWhole(value) && (value as number) >= 1;

/** A function: a hook, a clock, a fetch. */
export const isFunction = (value: unknown): boolean => typeof value === 'function';

/** What a delay takes, in words. */
export const DELAY = 'a whole, non-negative number of seconds, as Retry-After is';
