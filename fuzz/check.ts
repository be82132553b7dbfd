// What every fuzz target is, and the small helpers their checks share.
import { strict as assert } from 'node:assert';
import { performance } from 'node:perf_hooks';
import type fc from 'fast-check';

/** One fuzz target: inputs, and a check that runs the code under test once and returns the milliseconds it took. */
export interface Target<T = unknown> {
  readonly name: string;
  readonly arbitrary: fc.Arbitrary<T>;
  /** Runs the code under test on `input`, checks every promise (throwing on a broken one), returns its time in ms. */
  check(input: T): number;
}

/** Times one call of the code under test. */
export function timed<R>(call: () => R): [R, number] {
  const start = performance.now();
  const result = call();
  return [result, performance.now() - start];
}

/** Fails with the validator's issues and the value, cut to a readable length. */
export function assertValid(result: { valid: boolean; errors: readonly unknown[] }, what: string, value: unknown): void {
  if (!result.valid) assert.fail(`${what} does not validate: ${JSON.stringify(result.errors)}\n${JSON.stringify(value)?.slice(0, 600)}`);
}

/** A code as the schema writes it: lowercase snake case. */
export const CODE_PATTERN = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
