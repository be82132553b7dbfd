// What keeps a fleet from making an outage worse, per scope: a retry budget (the retries the
// package makes on its own are at most a share of the scope's recent requests, plus a small floor)
// and a circuit (when most recent calls failed with a server failure or no answer, calls stop but
// for one probe per window). The rules and their options live here; the memory store keeps them in
// one process, the Redis store (redis-store.ts, in Lua) for the whole fleet, with the same numbers.
import { checkRules, isCount, isWhole, refuse, type Checks } from '../core/refuse.js';

/** Options of the retry budget: retries at most `ratio` of the scope's recent requests, plus `floor`. */
export interface RetryBudgetOptions {
  /** The most retries per request, over the last 5 to 10 s. @default 0.1 */
  readonly ratio?: number;
  /** Retries always allowed in that window, so a quiet client can still retry. @default 3 */
  readonly floor?: number;
}

/** Options of the circuit: when it opens, and how long it stays open between probes. */
export interface CircuitOptions {
  /** The share of the last 1 to 2 s of calls that must have failed (server failures or no answer) to open it. @default 0.8 */
  readonly failureRatio?: number;
  /** The fewest failed calls in that window that open it. @default 10 */
  readonly minFailures?: number;
  /** How long it stays open before the first probe, in ms. @default 250 */
  readonly openMs?: number;
  /** The longest it stays open between probes, in ms: each failed probe doubles the window up to this. @default 1000 */
  readonly maxOpenMs?: number;
}

/** The guards a store keeps per scope, each on by default; false turns one off. */
export interface GuardOptions {
  /** The retry budget per scope, or false for none (every retry the rules allow is made). @default { ratio: 0.1, floor: 3 } */
  readonly retryBudget?: RetryBudgetOptions | false;
  /** The circuit per scope, or false for none (every request calls the site, however it fails). @default { failureRatio: 0.8, minFailures: 10, openMs: 250, maxOpenMs: 1000 } */
  readonly circuit?: CircuitOptions | false;
}

/** The budget's window: two buckets of this many ms, so it counts the last 5 to 10 s. */
export const BUDGET_BUCKET_MS = 5000;
/** The circuit's window: two buckets of this many ms, so it counts the last 1 to 2 s. */
export const CIRCUIT_BUCKET_MS = 1000;

export interface Budget {
  readonly ratio: number;
  readonly floor: number;
}

export interface CircuitRule {
  readonly failureRatio: number;
  readonly minFailures: number;
  readonly openMs: number;
  readonly maxOpenMs: number;
}

const isShare = (v: unknown): boolean => typeof v === 'number' && v >= 0 && v <= 1;
const BUDGET_CHECKS: Checks<RetryBudgetOptions> = {
  ratio: [isShare, 'a share of requests, from 0 to 1'],
  floor: [isWhole, 'a whole number of retries, 0 or more'],
};
const CIRCUIT_CHECKS: Checks<CircuitOptions> = {
  failureRatio: [(v) => isShare(v) && (v as number) > 0, 'a share of calls, above 0 and at most 1'],
  minFailures: [isCount, 'a whole number of calls, 1 or more'],
  openMs: [isCount, 'a whole number of milliseconds, 1 or more'],
  maxOpenMs: [isCount, 'a whole number of milliseconds, 1 or more'],
};
const isGuard = (v: unknown): boolean => v === false || (typeof v === 'object' && v !== null && !Array.isArray(v));

/** The checks of the guard options every store takes (their members are checked by resolveGuards). */
export const GUARD_CHECKS: Checks<GuardOptions> = {
  retryBudget: [isGuard, 'false or { ratio, floor }'],
  circuit: [isGuard, 'false or { failureRatio, minFailures, openMs, maxOpenMs }'],
};

/** The guards of a store's options, their members checked by name (a TypeError naming `who` and the member). */
export function resolveGuards(who: string, options: GuardOptions): { budget: Budget | null; circuit: CircuitRule | null } {
  const b = options.retryBudget;
  const c = options.circuit;
  if (b) checkRules(`${who}: retryBudget`, b, BUDGET_CHECKS);
  if (c) checkRules(`${who}: circuit`, c, CIRCUIT_CHECKS);
  const circuit = c === false ? null : { failureRatio: c?.failureRatio ?? 0.8, minFailures: c?.minFailures ?? 10, openMs: c?.openMs ?? 250, maxOpenMs: c?.maxOpenMs ?? 1000 };
  if (circuit && circuit.maxOpenMs < circuit.openMs) refuse(`${who}: circuit`, 'maxOpenMs', `at least openMs (${circuit.openMs})`, circuit.maxOpenMs);
  return { budget: b === false ? null : { ratio: b?.ratio ?? 0.1, floor: b?.floor ?? 3 }, circuit };
}

/** Counts in two buckets of a window: the current one and the one before it. */
export interface Counts {
  at: number;
  current: [number, number];
  previous: [number, number];
}

export const freshCounts = (): Counts => ({ at: 0, current: [0, 0], previous: [0, 0] });

/** Moves `c` to the bucket of `t`: the current bucket becomes the previous one, or both empty after a gap. */
export function roll(c: Counts, t: number, bucketMs: number): Counts {
  const at = Math.floor(t / bucketMs);
  if (at !== c.at) {
    c.previous = at === c.at + 1 ? c.current : [0, 0];
    c.current = [0, 0];
    c.at = at;
  }
  return c;
}

/** Count `i` over both buckets. */
export const total = (c: Counts, i: 0 | 1): number => c.current[i] + c.previous[i];

/** Whether one more retry fits the budget: with it, retries are at most the floor plus `ratio` of the requests. */
export const retryFits = (budget: Budget, requests: number, retries: number): boolean => retries + 1 <= budget.floor + budget.ratio * requests;

/** Whether the circuit opens on these counts: at least minFailures failed, and at least failureRatio of the calls. */
export const opens = (rule: CircuitRule, calls: number, failures: number): boolean => failures >= rule.minFailures && failures >= rule.failureRatio * calls;

/** The next window of a circuit whose probe failed: twice the last, at most maxOpenMs. */
export const nextOpenMs = (rule: CircuitRule, lastMs: number): number => Math.min(rule.maxOpenMs, lastMs * 2);
