// @agent-index/errors/agent/loop: the experiment npm start runs. A scripted agent loop in which a
// policy decides after each failed call whether to call again and how long to sleep first, on a
// clock the caller provides, within a budget of calls.
import { retryAfterSeconds } from '../core/delay.js';
import { toHeaders } from '../core/headers.js';
import { checkRules, isCount, isFunction, refuse, type Checks } from '../core/refuse.js';
import type { WireResponse } from '../core/dialects.js';
import { DEFAULT_BACKOFF } from './policy.js';
import { decode, type Decoded } from './decode.js';

export { decode, DEFAULT_BACKOFF, type Decoded };
export type { WireResponse };
// The dialects the experiment sends each failure in: the demo's, not a site's (a site sends the contract).
export { DIALECTS, renderDialect } from '../core/dialects.js';
export type { Dialect, DialectError, DialectOptions } from '../core/dialects.js';

/** A policy's decision after a failed call. */
export interface Decision {
  readonly retry: boolean;
  /** Seconds to sleep before the next call. */
  readonly sleep?: number;
}

/** A retry policy: the decoded failure, how many retries came before, the raw response and the clock (ms). */
export type Policy = (decoded: Decoded, attempt: number, response: WireResponse, now: number) => Decision;


const isWait = (d: Decoded): boolean => d.action === 'wait';

/** The three policies the seed compares. */
export const POLICIES = {
  /** Retries anything that looks temporary, at once, until the budget is gone. */
  hammer: (decoded: Decoded): Decision => (isWait(decoded) ? { retry: true, sleep: 0 } : { retry: false }),
  /** What most HTTP retry middleware does: retries a 429 or a 5xx, honours Retry-After, and reads no body. */
  header: (_decoded: Decoded, _attempt: number, response: WireResponse, now: number): Decision =>
    response.status === 429 || response.status >= 500
      ? { retry: true, sleep: retryAfterSeconds(toHeaders(response.headers).get('retry-after'), now) ?? 0 }
      : { retry: false },
  /** Waits exactly as long as it was told, or backs off doubling when it was told nothing. */
  contract: (decoded: Decoded, attempt: number): Decision =>
    isWait(decoded) ? { retry: true, sleep: decoded.delay ?? DEFAULT_BACKOFF[Math.min(attempt, DEFAULT_BACKOFF.length - 1)]! } : { retry: false },
} satisfies Record<string, Policy>;

export type PolicyName = keyof typeof POLICIES;

/** How one run ended: `ok`, `fix <param>`, `fix (no param)`, `give_up`, or `budget spent`; calls made; seconds slept. */
export interface LoopResult {
  readonly outcome: string;
  readonly calls: number;
  readonly slept: number;
}

/** The seed's cell: `ok 2c 30s`. */
export function formatCell(r: LoopResult): string {
  if (typeof r !== 'object' || r === null) refuse('formatCell', 'result', 'what runLoop returns', r);
  return `${r.outcome} ${r.calls}c ${r.slept}s`;
}

/** How a decoded failure the agent stops at reads in a cell. */
export function outcomeOf(decoded: Decoded): string {
  if (typeof decoded !== 'object' || decoded === null) refuse('outcomeOf', 'decoded', 'what decode returns', decoded);
  if (decoded.action === 'fix') return `fix ${decoded.param ?? '(no param)'}`;
  return decoded.action === 'wait' ? 'wait' : 'give_up';
}

/** Options of runLoop. */
export interface LoopOptions {
  /** The most calls. @default 8 */
  readonly maxCalls?: number;
  /** The clock, ms. */
  readonly now: () => number;
  /** Sleeps this many seconds (on a virtual clock, by moving it). */
  readonly sleep: (seconds: number) => Promise<void> | void;
}

const LOOP_CHECKS: Checks<LoopOptions> = {
  maxCalls: [isCount, 'a whole number of calls, 1 or more'],
  now: [isFunction, 'a function returning ms'],
  sleep: [isFunction, 'a function (seconds) => Promise<void> or void'],
};

/** Calls until success, until the policy stops, or until maxCalls calls are spent. */
export async function runLoop(call: () => Promise<WireResponse> | WireResponse, policy: Policy, options: LoopOptions): Promise<LoopResult> {
  if (!isFunction(call)) refuse('runLoop', 'call', 'a function returning a response', call);
  if (!isFunction(policy)) refuse('runLoop', 'policy', 'a policy function, such as one of POLICIES', policy);
  checkRules('runLoop', options, LOOP_CHECKS, { budget: 'maxCalls' });
  if (options === undefined || !isFunction(options.now) || !isFunction(options.sleep)) refuse('runLoop', 'options', '{ now, sleep, maxCalls? }', options);
  const budget = options.maxCalls ?? 8;
  let calls = 0;
  let slept = 0;
  for (let attempt = 0; calls < budget; attempt++) {
    const response = await call();
    calls += 1;
    if (response.status < 400) return { outcome: 'ok', calls, slept };
    const decoded = decode(response, options.now());
    const decision = policy(decoded, attempt, response, options.now());
    if (!decision.retry) return { outcome: outcomeOf(decoded), calls, slept };
    if (calls >= budget) break;
    const seconds = decision.sleep ?? 0;
    await options.sleep(seconds);
    slept += seconds;
  }
  return { outcome: 'budget spent', calls, slept };
}
