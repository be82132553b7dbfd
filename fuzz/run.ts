// Runs one fuzz target with fast-check, seeded so any run replays: the target's own check, the
// per-input time limit (only when asked: tests never assert on wall-clock speed), and after every
// input a check that no built-in prototype gained, lost or changed a member.
import fc from 'fast-check';
import type { Target } from './check.js';

/** How to run a target. */
export interface RunOptions {
  readonly seed: number;
  readonly numRuns: number;
  /** A counterexample path printed by an earlier failure: replays that input only. */
  readonly path?: string;
  /** Fail an input that takes longer than this many ms on each of three runs. @default no limit */
  readonly limitMs?: number;
}

/** What one target's run found. */
export interface TargetReport {
  readonly name: string;
  readonly seed: number;
  readonly runs: number;
  readonly failed: boolean;
  /** The longest time one input took the code under test, in ms. */
  readonly maxMs: number;
  readonly slowest: string;
  readonly error: string | null;
  readonly counterexample: string | null;
  readonly path: string | null;
  readonly shrinks: number;
}

// Pollution shows as a member added to, removed from or replaced on a built-in prototype.
const PROTOTYPES: readonly object[] = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype, Error.prototype, TypeError.prototype, Map.prototype];
const snapshot = (proto: object): Map<PropertyKey, unknown> => {
  const members = new Map<PropertyKey, unknown>();
  for (const key of Reflect.ownKeys(proto)) {
    const descriptor = Reflect.getOwnPropertyDescriptor(proto, key)!;
    members.set(key, 'value' in descriptor ? descriptor.value : descriptor.get);
  }
  return members;
};
const BASELINE = PROTOTYPES.map(snapshot);

/** Throws when a prototype changed since this module loaded, after putting it back so later inputs are judged on their own. */
export function checkPrototypes(): void {
  const changes: string[] = [];
  PROTOTYPES.forEach((proto, i) => {
    const before = BASELINE[i]!;
    const now = snapshot(proto);
    for (const [key, value] of now) {
      if (!before.has(key)) {
        changes.push(`added ${String(key)}`);
        Reflect.deleteProperty(proto, key);
      } else if (before.get(key) !== value) changes.push(`replaced ${String(key)}`);
    }
    for (const key of before.keys()) if (!now.has(key)) changes.push(`removed ${String(key)}`);
  });
  if (({} as Record<string, unknown>).polluted !== undefined) changes.push('({}).polluted is defined');
  if (changes.length > 0) throw new Error(`prototype pollution: ${changes.join(', ')}`);
}

/** A value as a short, readable line: long strings and byte arrays are cut, with their length. */
export function show(value: unknown, depth = 0): string {
  if (typeof value === 'string') return value.length > 160 ? `${JSON.stringify(value.slice(0, 120))}…(${value.length} chars)` : JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'undefined' || typeof value === 'bigint' || typeof value === 'symbol') {
    return Object.is(value, -0) ? '-0' : String(value);
  }
  if (typeof value === 'function') return '[function]';
  if (value === null) return 'null';
  if (depth > 4) return '…';
  if (value instanceof Headers) return `new Headers(${show([...value], depth + 1)})`;
  if (value instanceof Uint8Array) return `Uint8Array(${value.length}) ${show(new TextDecoder().decode(value.subarray(0, 200)), depth + 1)}`;
  if (value instanceof ArrayBuffer) return `ArrayBuffer(${value.byteLength})`;
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${value.byteLength})`;
  if (value instanceof Error) return `${value.name}(${show(value.message, depth + 1)})`;
  if (Array.isArray(value)) return `[${value.slice(0, 20).map((v) => show(v, depth + 1)).join(', ')}${value.length > 20 ? `, …${value.length} items` : ''}]`;
  const proto: unknown = Object.getPrototypeOf(value);
  const prefix = proto === null ? 'Object.create(null) ' : proto === Object.prototype ? '' : `${(value as object).constructor?.name ?? '?'} `;
  const entries = Reflect.ownKeys(value).map((k) => `${JSON.stringify(String(k))}: ${show((value as Record<PropertyKey, unknown>)[k], depth + 1)}`);
  return `${prefix}{${entries.join(', ')}}`;
}

/** Runs `target` for `options.numRuns` inputs (or replays `options.path`) and reports what it found. */
export function runTarget(target: Target, options: RunOptions): TargetReport {
  let maxMs = 0;
  let slowest: unknown;
  const { limitMs } = options;
  const property = fc.property(target.arbitrary, (input) => {
    try {
      let ms = target.check(input);
      // One slow run can be a garbage collection or a neighbour on the machine: an input fails only when it is slow every time.
      for (let again = 0; limitMs !== undefined && ms > limitMs && again < 2; again += 1) ms = Math.min(ms, target.check(input));
      if (limitMs !== undefined && ms > limitMs) throw new Error(`took ${ms.toFixed(1)} ms, over the ${limitMs} ms limit, on each of three runs`);
      if (ms > maxMs) {
        maxMs = ms;
        slowest = input;
      }
    } finally {
      checkPrototypes();
    }
  });
  const details = fc.check(property, { seed: options.seed, numRuns: options.numRuns, ...(options.path === undefined ? {} : { path: options.path }) });
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : details.failed ? String(details.errorInstance) : null;
  return {
    name: target.name,
    seed: details.seed,
    runs: details.numRuns,
    failed: details.failed,
    maxMs,
    slowest: show(slowest),
    error,
    counterexample: details.counterexample === null ? null : show(details.counterexample[0]),
    path: details.counterexamplePath,
    shrinks: details.numShrinks,
  };
}

/** The command that replays a failure. */
export const reproduce = (report: TargetReport): string => `npx tsx fuzz/main.ts --target ${report.name} --seed ${report.seed}${report.path === null ? '' : ` --path ${report.path}`}`;

/** A failure as lines a person (or a CI log) reads: what broke, on which input, and how to replay it. */
export function describeFailure(report: TargetReport): string {
  return [
    `${report.name} failed after ${report.runs} runs (${report.shrinks} shrinks), seed ${report.seed}, path ${report.path}:`,
    `  ${(report.error ?? '').split('\n').slice(0, 12).join('\n  ')}`,
    `  counterexample: ${report.counterexample}`,
    `  reproduce: ${reproduce(report)}`,
  ].join('\n');
}
