// What an agent remembers between requests: the delays sites asked for, and copies of pages it
// may serve when a site fails. One small interface, so a process, a disk or a fleet can hold it.
import { LRUCache } from 'lru-cache';
import type { EnvelopeError } from '../../generated/types.js';
import type { Quota } from '../core/quota.js';
import { checkRules, isCount, isFunction, isWhole, refuse, type Check, type Checks } from '../core/refuse.js';
import { BUDGET_BUCKET_MS, CIRCUIT_BUCKET_MS, freshCounts, GUARD_CHECKS, nextOpenMs, opens, resolveGuards, retryFits, roll, total, type Counts, type GuardOptions } from './guard.js';

/** A site's request to wait: until when (ms since the epoch, on the clock of the client that learnt it) and the error that said so. */
export interface Backoff {
  readonly until: number;
  readonly error: EnvelopeError;
  /** What the site answered, kept to answer from memory in its own words (the drop-in fetch and the interceptor). */
  readonly answer?: KeptAnswer;
  /** Where and when the wait was learnt. */
  readonly learnt?: Learnt;
  /**
   * The path the wait covers, when it covers that path only (a 503 of one endpoint); absent when
   * the site's signal covers the whole scope (a rate limit, a maintenance page).
   */
  readonly path?: string;
  /**
   * The rate-limit partition the wait is for, when the site named one (RateLimit's `pk`): it
   * covers the requests to the paths whose last answer named the same partition.
   */
  readonly partition?: string;
}

/** Where a wait was learnt: the URL whose answer asked for it, and when (ms since the epoch). */
export interface Learnt {
  readonly url: string;
  readonly at: number;
}

/** A site's error answer as kept: status, headers (none of the connection's or the encoding's) and the decoded body. */
export interface KeptAnswer {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
}

/** A copy of a successful GET response. */
export interface CachedCopy {
  readonly url: string;
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string;
  /** When the copy was received, ms since the epoch, less the Age the response already had. */
  readonly storedAt: number;
}

/**
 * What a store tells a request before it calls a site (Store.admit). Deadlines are ms since the
 * epoch on the clock of the store's caller.
 * - `call`: call the site. `probe` is the lease token when this call is the one that probes the
 *   site after a shared wait ended; `counted` its number among the calls counted against the quota
 *   the site announced, when it was.
 * - `wait`: a wait the site asked for is running until `until`.
 * - `follow`: a wait ended and another caller is probing the site; its lease ends at `until`.
 *   `error` is the wait that ended.
 * - `hold`: the quota the site announced is spent until `until`.
 */
export type Admission =
  | { readonly kind: 'call'; readonly probe?: string; readonly counted?: number; readonly circuit?: true }
  | { readonly kind: 'wait' | 'follow'; readonly until: number; readonly error: EnvelopeError; readonly answer?: KeptAnswer; readonly learnt?: Learnt }
  | { readonly kind: 'hold'; readonly until: number; readonly limit?: number }
  | Tripped;

/**
 * The scope's circuit is open: `failures` of its last `calls` calls failed (server failures or no
 * answer), and no call is made until `until`, when one caller probes (or another's probe is on
 * its way until then).
 */
export interface Tripped {
  readonly kind: 'open';
  readonly until: number;
  readonly failures: number;
  readonly calls: number;
}

/** The scope's retry budget is spent: `retries` retries against `requests` requests lately. */
export interface Spent {
  readonly kind: 'spent';
  readonly retries: number;
  readonly requests: number;
}

/** What a request tells admit besides its scope. */
export interface AdmitAsk {
  /** This call repeats a request admitted before (its retry drawn from the budget by drawRetry): it is not counted as a new request. */
  readonly retry?: boolean;
  /** The request's path, for the waits learnt on one path only. */
  readonly path?: string;
}

/** What a call's answer told, for Store.settle. */
export interface Settlement {
  /** What admit answered for this call (the same object): the probe lease to release, its number among the calls counted against a quota. */
  readonly admitted: Extract<Admission, { kind: 'call' }>;
  /** True when the site answered at all; a probe that got no answer leaves the shared wait to the next one. */
  readonly answered: boolean;
  /** The wait the answer asked for, to share; without one, a probe's answer ends the shared wait. */
  readonly wait?: Backoff;
  /** The quota the answer announced. */
  readonly quota?: Quota;
  /** The call failed as a site that is down fails: a server failure (5xx, not a told wait) or no answer. Counted by the circuit. */
  readonly failed?: boolean;
  /** The request's path: a quota that names its partition tells which partition the path counts in. */
  readonly path?: string;
}

/**
 * Where clients and fetchers keep what they learnt. Every method may be synchronous or return a
 * promise. Implementations expire backoffs at `until` and bound what copies they keep, and keep a
 * backoff with a `path` or a `partition` under `waitKey(key, backoff)`, where getBackoff finds it
 * for the requests it covers.
 *
 * `admit` and `settle` are optional: a store that has them lets one caller probe a site when a
 * shared wait ends while the others follow its answer, and paces callers to the quota sites
 * announce. Without them, callers read backoffs with getBackoff before they call, as before.
 */
export interface Store {
  getBackoff(key: string): Promise<Backoff | undefined> | Backoff | undefined;
  setBackoff(key: string, backoff: Backoff): Promise<void> | void;
  getCopy(key: string): Promise<CachedCopy | undefined> | CachedCopy | undefined;
  setCopy(key: string, copy: CachedCopy): Promise<void> | void;
  deleteCopy(key: string): Promise<void> | void;
  /** Whether a request to `key` may call now, in one step: a running wait, another caller's probe, a spent quota, an open circuit, a spent retry budget, or a call. */
  admit?(key: string, ask?: AdmitAsk): Promise<Admission> | Admission;
  /** Reports a call's answer: releases its probe lease, shares the wait it asked for, counts the quota it announced, counts it for the circuit. */
  settle?(key: string, settlement: Settlement): Promise<void> | void;
  /** Draws one retry the package makes on its own from the scope's retry budget: undefined when drawn; the counts that spent it; or the scope's circuit, when it is open. */
  drawRetry?(key: string): Promise<Spent | Tripped | undefined> | Spent | Tripped | undefined;
}

/** Options of the stores that pace a fleet (the memory and Redis stores). */
export interface PacingOptions extends GuardOptions {
  /**
   * How long one caller may probe a site after a shared wait ended, in ms, while the others wait
   * on its answer; a caller that dies mid-call is replaced when this runs out. 0 lets every
   * caller call the moment a wait ends. @default 5000
   */
  readonly probeLeaseMs?: number;
  /** Whether to keep callers within the quota sites announce (RateLimit, X-RateLimit-*). @default true */
  readonly paceQuota?: boolean;
}

/** How long after a wait ended its first call is still a probe, in ms: longer than any caller keeps trying. */
export const PROBE_GRACE_MS = 60_000;
/** How long after the first call let through before any quota was known such calls count against the first one announced, in ms. */
export const UNCOUNTED_MS = 10_000;
/** A quota answer whose reset lies at most this far past the known one is the same window (resets come in whole seconds). */
const SAME_WINDOW_MS = 1000;

/** Options of createMemoryStore. */
export interface MemoryStoreOptions extends PacingOptions {
  /** The most bytes of cached copies to keep; the least recently used go first. @default 50 MiB */
  readonly maxBytes?: number;
  /** The most origins whose backoff to remember. @default 10_000 */
  readonly maxBackoffs?: number;
  /** The clock, ms since the epoch. @default Date.now */
  readonly now?: () => number;
}

/** The methods every store has, which the client calls. */
const STORE_METHODS = ['getBackoff', 'setBackoff', 'getCopy', 'setCopy', 'deleteCopy'] as const;
/** The check of an option that takes a store (the client's store, the Redis store's fallback): an object with every store method. */
export const STORE_CHECK: Check = [(v) => typeof v === 'object' && v !== null && STORE_METHODS.every((m) => isFunction((v as Record<string, unknown>)[m])), `a store with ${STORE_METHODS.join(', ')}`];

/** The checks of the pacing options every store takes. */
export const PACING_CHECKS: Checks<PacingOptions> = {
  ...GUARD_CHECKS,
  probeLeaseMs: [isWhole, 'a whole number of milliseconds, 0 or more'],
  paceQuota: [(value) => typeof value === 'boolean', 'true or false'],
};

/** The clock option of a store. */
export const NOW_CHECK = [isFunction, 'a function returning ms since the epoch'] as const;

const MEMORY_CHECKS: Checks<MemoryStoreOptions> = {
  ...PACING_CHECKS,
  maxBytes: [isCount, 'a whole number of bytes, 1 or more'],
  maxBackoffs: [isCount, 'a whole number of origins, 1 or more'],
  now: NOW_CHECK,
};

/** The approximate memory a copy takes: UTF-16 text plus headers. */
export function copySize(copy: CachedCopy): number {
  let size = 2 * (copy.body.length + copy.url.length) + 64;
  for (const [name, value] of copy.headers) size += 2 * (name.length + value.length);
  return size;
}

/**
 * A store in this process's memory, bounded by bytes (least recently used copies go first).
 * @example const store = createMemoryStore({ maxBytes: 10 * 1024 * 1024 });
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  checkRules('createMemoryStore', options, MEMORY_CHECKS);
  const { budget, circuit } = resolveGuards('createMemoryStore', options);
  const now = options.now ?? Date.now;
  const leaseMs = options.probeLeaseMs ?? 5000;
  const pace = options.paceQuota ?? true;
  const max = options.maxBackoffs ?? 10_000;
  const copies = new LRUCache<string, CachedCopy>({ maxSize: options.maxBytes ?? 50 * 1024 * 1024, sizeCalculation: (c) => Math.max(1, copySize(c)) });
  // Waits by scope, and by scope and path (pathKey) for those learnt on one path only.
  const backoffs = new LRUCache<string, Backoff>({ max });
  // After a wait: until when its first call is a probe, the wait's error, and the probing caller's lease.
  const probes = new LRUCache<string, { until: number; error: EnvelopeError; answer?: KeptAnswer | undefined; learnt?: Learnt | undefined; lease?: { token: string; until: number } }>({ max });
  const quotas = new LRUCache<string, Pace>({ max });
  // Calls let through while no quota was known and not yet answered (for UNCOUNTED_MS from the
  // first): the answers that announce a quota count those that may still be on their way.
  const uncounted = new LRUCache<string, { n: number; until: number }>({ max });
  // The retry budget's and the circuit's counts per scope, and the circuit when open.
  const guards = new LRUCache<string, Guard>({ max });
  const guardOf = (key: string): Guard => guards.get(key) ?? (guards.set(key, { budget: freshCounts(), calls: freshCounts() }), guards.get(key)!);
  /** One more uncounted call answered: those still unanswered. */
  const answeredUncounted = (key: string, t: number): number => {
    const u = uncounted.get(key);
    if (!u || u.until <= t) return 0;
    u.n = Math.max(0, u.n - 1);
    return u.n;
  };
  let tokens = 0;
  // Which wait each probe lease is for (its scope, or its scope and path).
  const leases = new LRUCache<string, string>({ max });
  // The rate-limit partition each path last answered in, by pathKey.
  const partitions = new LRUCache<string, string>({ max });

  function setBackoff(key: string, backoff: Backoff): void {
    const k = waitKey(key, backoff);
    const current = backoffs.get(k);
    // A later deadline wins: two workers that learnt two delays both honour the longer.
    if (current && current.until >= backoff.until) return;
    backoffs.set(k, backoff);
    probes.set(k, { until: backoff.until + PROBE_GRACE_MS, error: backoff.error, answer: backoff.answer, learnt: backoff.learnt });
  }

  /** The quota of `key` at `t`, refilled when its window has reset and its limit is known. */
  function paceOf(key: string, t: number): Pace | undefined {
    const q = quotas.get(key);
    if (!q || t < q.reset) return q;
    if (q.limit === undefined) return void quotas.delete(key);
    refill(q, t);
    return q;
  }

  return {
    getBackoff(key) {
      const backoff = backoffs.get(key);
      if (backoff && backoff.until <= now()) {
        backoffs.delete(key);
        return undefined;
      }
      return backoff;
    },
    setBackoff,
    getCopy: (key) => copies.get(key),
    setCopy(key, copy) {
      copies.set(key, copy);
    },
    deleteCopy(key) {
      copies.delete(key);
    },
    admit(key, ask) {
      const t = now();
      const keys = coveringKeys(key, ask?.path, partitions);
      for (const k of keys) {
        const backoff = backoffs.get(k);
        if (backoff && backoff.until > t) return waiting('wait', backoff.until, backoff);
      }
      const g = budget || circuit ? guardOf(key) : undefined;
      // An open circuit: no call until its window ends, then one probe, whose lease the others wait out.
      const open = circuit ? g!.open : undefined;
      if (open) {
        if (t < open.until) return tripped(open.until, open);
        if (leaseMs > 0 && open.lease && open.lease.until > t) return tripped(open.lease.until, open);
      }
      let probeKey: string | undefined;
      if (leaseMs > 0) {
        for (const k of keys) {
          const probe = probes.get(k);
          if (probe === undefined || probe.until <= t) continue;
          if (probe.lease && probe.lease.until > t) return waiting('follow', probe.lease.until, probe);
          probeKey ??= k;
        }
      }
      const q = pace ? paceOf(key, t) : undefined;
      if (q && q.left <= 0) return { kind: 'hold', until: q.reset, ...(q.limit === undefined ? {} : { limit: q.limit }) };
      // A request is counted for the budget once, when its first call is let through.
      if (budget && !ask?.retry) roll(g!.budget, t, BUDGET_BUCKET_MS).current[0] += 1;
      if (q) take(q);
      else if (pace) {
        const u = uncounted.get(key);
        if (u && u.until > t) u.n += 1;
        else uncounted.set(key, { n: 1, until: t + UNCOUNTED_MS });
      }
      const counted = q ? { counted: q.taken } : {};
      if (open && leaseMs > 0) {
        open.lease = { token: String(++tokens), until: t + leaseMs };
        return { kind: 'call', probe: open.lease.token, circuit: true, ...counted };
      }
      if (probeKey === undefined) return { kind: 'call', ...counted };
      const probe = probes.get(probeKey)!;
      probe.lease = { token: String(++tokens), until: t + leaseMs };
      leases.set(probe.lease.token, probeKey);
      return { kind: 'call', probe: probe.lease.token, ...counted };
    },
    drawRetry(key) {
      const t = now();
      const open = circuit ? guards.get(key)?.open : undefined;
      if (open && (t < open.until || (open.lease?.until ?? 0) > t)) return tripped(Math.max(open.until, open.lease?.until ?? 0), open);
      if (!budget) return undefined;
      const c = roll(guardOf(key).budget, t, BUDGET_BUCKET_MS);
      if (!retryFits(budget, total(c, 0), total(c, 1))) return { kind: 'spent', retries: total(c, 1), requests: total(c, 0) };
      c.current[1] += 1;
      return undefined;
    },
    settle(key, settlement) {
      const t = now();
      const { probe: token, counted } = settlement.admitted;
      const k = token === undefined || settlement.admitted.circuit ? undefined : leases.get(token);
      const probe = k === undefined ? undefined : probes.get(k);
      if (probe !== undefined && probe.lease?.token === token) {
        leases.delete(token!);
        probe.lease = undefined;
        // The probe's answer asked for no wait: the shared wait is over, and everyone may call.
        if (settlement.answered && !settlement.wait) probes.delete(k!);
      }
      notePartition(partitions, key, settlement);
      if (settlement.wait) setBackoff(key, settlement.wait);
      if (circuit) count(guardOf(key), settlement, t);
      if (!pace) return;
      const q = paceOf(key, t);
      const current = q !== undefined && counted !== undefined && counted > q.start;
      if (current) q.inflight = Math.max(0, q.inflight - 1);
      // An answer from an earlier window of the quota says nothing of this one.
      const pending = counted === undefined ? answeredUncounted(key, t) : 0;
      if (!settlement.quota || (counted !== undefined && !current)) return;
      if (!q) quotas.set(key, started(settlement.quota, t, pending));
      else if (q.young && counted === undefined) young(q, settlement.quota, t, pending);
      else heed(q, settlement.quota, t);
    },
  };

  /** Counts a call's answer in the circuit: the first success closes it, a failed probe opens it for longer, enough failures open it. */
  function count(g: Guard, settlement: Settlement, t: number): void {
    const ok = settlement.answered && !settlement.failed;
    const open = g.open;
    if (open) {
      if (ok) {
        g.open = undefined;
        g.calls = freshCounts();
      } else if ((settlement.admitted.circuit && open.lease?.token === settlement.admitted.probe) || (leaseMs === 0 && t >= open.until)) {
        // The probe failed, or (with no probe lease, probeLeaseMs 0) a call after the window did: open it again, for longer.
        const ms = nextOpenMs(circuit!, open.ms);
        g.open = { ...open, until: t + ms, ms, lease: undefined };
      }
      return;
    }
    const c = roll(g.calls, t, CIRCUIT_BUCKET_MS);
    c.current[0] += 1;
    if (!settlement.failed) return;
    c.current[1] += 1;
    const [calls, failures] = [total(c, 0), total(c, 1)];
    if (opens(circuit!, calls, failures)) g.open = { until: t + circuit!.openMs, ms: circuit!.openMs, failures, calls };
  }
}

/** The key of the waits learnt on one path of a scope. */
export const pathKey = (key: string, path: string): string => `${key}\u0000${path}`;

/** The key of the waits of one rate-limit partition of a scope (no path starts with #). */
export const partitionKey = (key: string, partition: string): string => pathKey(key, `#${partition}`);

/** The key a wait is kept under: its partition's, its path's, or its scope's. */
export function waitKey(key: string, b: Backoff): string {
  if (typeof key !== 'string') refuse('waitKey', 'key', 'a store key (a string)', key);
  if (typeof b !== 'object' || b === null) refuse('waitKey', 'backoff', 'a Backoff ({ until, error, path?, partition? })', b);
  return typeof b.partition === 'string' ? partitionKey(key, b.partition) : typeof b.path === 'string' ? pathKey(key, b.path) : key;
}

/**
 * The keys whose waits cover a request to `path` of scope `key`: the scope's, the path's, and the
 * partition's the path last answered in (`partitions`, by pathKey).
 */
export function coveringKeys(key: string, path: string | undefined, partitions: { get(k: string): string | undefined }): string[] {
  if (path === undefined) return [key];
  const p = pathKey(key, path);
  const partition = partitions.get(p);
  return partition === undefined ? [key, p] : [key, p, partitionKey(key, partition)];
}

/** A running wait, or another caller's probe after one, as admit answers it. */
function waiting(kind: 'wait' | 'follow', until: number, b: { error: EnvelopeError; answer?: KeptAnswer | undefined; learnt?: Learnt | undefined }): Admission {
  return { kind, until, error: b.error, ...(b.answer ? { answer: b.answer } : {}), ...(b.learnt ? { learnt: b.learnt } : {}) };
}

/** Notes the partition a settled call's quota named for its path (or that it named none). */
export function notePartition(partitions: { set(k: string, v: string): unknown; delete(k: string): unknown }, key: string, settlement: Settlement): void {
  if (!settlement.quota || settlement.path === undefined) return;
  const p = pathKey(key, settlement.path);
  if (settlement.quota.partition === undefined) partitions.delete(p);
  else partitions.set(p, settlement.quota.partition);
}

const tripped = (until: number, open: { failures: number; calls: number }): Tripped => ({ kind: 'open', until, failures: open.failures, calls: open.calls });

/** A scope's guards in one process: the budget's counts [requests, retries], the circuit's [calls, failures], and the circuit when open. */
interface Guard {
  budget: Counts;
  calls: Counts;
  open?: { until: number; ms: number; failures: number; calls: number; lease?: { token: string; until: number } | undefined } | undefined;
}

/**
 * A quota as a store keeps it: requests left, calls counted and not yet answered, calls counted
 * ever (each call's number is what it says when it settles) and when the window started by that
 * count (a call counted in an earlier window is not settled against this one), the limit and
 * window length when known, when it resets, and whether that reset is only an estimate. While
 * calls let through before it was known are unanswered (`young`), `low` is the least any of their
 * answers said was left.
 */
interface Pace {
  left: number;
  young: boolean;
  low: number;
  inflight: number;
  taken: number;
  start: number;
  limit?: number;
  window: number;
  reset: number;
  estimated: boolean;
}

/** The quota a first answer announced, less the `pending` calls let through uncounted that may not have reached the site yet. */
function started(quota: Quota, t: number, pending: number): Pace {
  return { left: quota.remaining - pending, young: pending > 0, low: quota.remaining, inflight: 0, taken: 0, start: 0, ...(quota.limit === undefined ? {} : { limit: quota.limit }), window: quota.windowMs ?? quota.resetMs, reset: t + quota.resetMs, estimated: false };
}

/** Takes one request of the quota. */
function take(q: Pace): void {
  q.left -= 1;
  q.inflight += 1;
  q.taken += 1;
}

/**
 * Starts the quota's next window at `t`: the limit, less the calls still unanswered (they may land
 * in this window), ending a window's length from now, an estimate the next answer replaces.
 */
function refill(q: Pace, t: number): void {
  q.left = q.limit! - q.inflight;
  q.young = false;
  q.inflight = 0;
  q.start = q.taken;
  q.reset = t + q.window;
  q.estimated = true;
}

/**
 * What a new answer tells of the current window: never more requests left than it says, nor more
 * than were counted here. (The calls counted since it are already off the count here; what it says
 * is less only when others spent the quota too.) Its reset, rounded up by the site, replaces an
 * estimate, and narrows one it says the same of; a later one means the window is later than known.
 */
function heed(q: Pace, quota: Quota, t: number): void {
  const reset = t + quota.resetMs;
  q.left = Math.min(q.left, quota.remaining);
  if (q.estimated || reset > q.reset + SAME_WINDOW_MS) q.reset = reset;
  else if (reset > q.reset - SAME_WINDOW_MS) q.reset = Math.min(q.reset, reset);
  q.estimated = false;
  if (quota.limit !== undefined) q.limit = quota.limit;
  q.window = quota.windowMs ?? Math.max(q.window, quota.resetMs);
}

/**
 * An answer to a call let through before the quota was known, while others are unanswered: the
 * least any such answer said was left is what the site had left once it had seen them all, less
 * those still on their way and the calls counted since. It may say more is left than the first
 * answer did (answers come back in any order); once all are answered, it is exact.
 */
function young(q: Pace, quota: Quota, t: number, pending: number): void {
  q.low = Math.min(q.low, quota.remaining);
  q.young = pending > 0;
  heed(q, quota, t);
  q.left = q.low - pending - q.taken;
}

let shared: Store | undefined;

/** The process-wide store that clients and fetchers use when given none. */
export function defaultStore(): Store {
  shared ??= createMemoryStore();
  return shared;
}
