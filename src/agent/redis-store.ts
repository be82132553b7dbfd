// A Store on Redis, so a fleet of agent workers on many machines shares the delays sites asked
// for and the copies they kept. It takes a node-redis client by shape and never loads `redis`.
import type { EnvelopeError } from '../../generated/types.js';
import { validateEnvelope } from '../core/validate.js';
import { checkRules, isCount, isFunction, isWhole, quote, type Checks } from '../core/refuse.js';
import { LRUCache } from 'lru-cache';
import { BUDGET_BUCKET_MS, CIRCUIT_BUCKET_MS, freshCounts, resolveGuards, roll, total, type Counts } from './guard.js';
import { coveringKeys, createMemoryStore, notePartition, NOW_CHECK, STORE_CHECK, waitKey, PACING_CHECKS, PROBE_GRACE_MS, UNCOUNTED_MS, type Admission, type AdmitAsk, type Backoff, type CachedCopy, type KeptAnswer, type Learnt, type PacingOptions, type Settlement, type Store } from './store.js';

/** What the store needs of a node-redis (v4, v5 or v6) client or cluster besides sendCommand. */
interface Connection {
  /** False while the client is not connected; the store then answers from its fallback at once. */
  readonly isReady?: boolean;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** The part of a node-redis client (createClient) the store uses. */
export interface RedisClientLike extends Connection {
  sendCommand(args: string[]): Promise<unknown>;
}

/** The part of a node-redis cluster (createCluster) the store uses: commands are routed by their first key. */
export interface RedisClusterLike extends Connection {
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  getSlotMaster(slot: number): unknown;
}

const isSecondsAbove0 = (value: unknown): boolean => typeof value === 'number' && value > 0 && value <= Number.MAX_SAFE_INTEGER;

/** The checks of createRedisStore's options. */
const REDIS_CHECKS: Checks<RedisStoreOptions> = {
  ...PACING_CHECKS,
  prefix: [(value) => typeof value === 'string', 'a string'],
  copyTtlSeconds: [isSecondsAbove0, 'a number of seconds above 0'],
  maxCopyBytes: [isCount, 'a whole number of bytes, 1 or more'],
  maxBytes: [isCount, 'a whole number of bytes, 1 or more'],
  commandTimeoutMs: [isCount, 'a whole number of milliseconds, 1 or more'],
  recheckMs: [isWhole, 'a whole number of milliseconds, 0 or more'],
  fallback: STORE_CHECK,
  onFallback: [isFunction, 'a function (error) => void'],
  onRecover: [isFunction, 'a function () => void'],
  now: NOW_CHECK,
  mirror: [(value) => typeof value === 'boolean', 'true or false'],
};

/** Options of createRedisStore. */
export interface RedisStoreOptions extends PacingOptions {
  /** Starts every key; stores with different prefixes share nothing (end it with `:`). @default 'agent-errors:' */
  readonly prefix?: string;
  /** Seconds a copy lives in Redis after it was saved. @default 604800 (a week) */
  readonly copyTtlSeconds?: number;
  /** A copy larger than this, in UTF-8 bytes of JSON, is kept only in the fallback. @default 1 MiB */
  readonly maxCopyBytes?: number;
  /** The most bytes of copies the whole fleet keeps in Redis; the least recently used go first. @default 64 MiB */
  readonly maxBytes?: number;
  /** A Redis call that takes longer than this many ms is answered from the fallback. @default 250 */
  readonly commandTimeoutMs?: number;
  /** After a failure, calls skip Redis for this many ms before trying it again. @default 1000 */
  readonly recheckMs?: number;
  /** Holds what this worker learns as well, and answers alone while Redis is down. @default createMemoryStore() */
  readonly fallback?: Store;
  /** Called once when Redis fails, until it answers again. @default a console.warn line */
  readonly onFallback?: (error: unknown) => void;
  /** Called once when Redis answers again after a failure. @default a console.info line */
  readonly onRecover?: () => void;
  /** The clock backoff deadlines are read on, ms since the epoch; give the client's own. @default Date.now */
  readonly now?: () => number;
  /**
   * Whether each worker keeps a mirror of what the fleet knows of the scopes it calls, kept current
   * by messages Redis publishes (on a second connection, `client.duplicate()`; a cluster's own
   * pub/sub connection): a call to a scope with nothing known then asks Redis nothing. false asks
   * Redis before every call, as a store without pub/sub must. @default true
   */
  readonly mirror?: boolean;
}

/** A Redis store, which says whether it is answering from its fallback. */
export interface RedisStore extends Store {
  /** True from a Redis failure until Redis answers again. */
  readonly degraded: boolean;
  /** True while the store hears the fleet's messages, so calls to a quiet scope ask Redis nothing (the `mirror` option). */
  readonly mirroring: boolean;
  /** Removes the listeners the store put on the client (the client stays open) and closes the connection it subscribed on. */
  detach(): void;
}

/**
 * The Redis key of a store key of one kind: valid UTF-16 as it is, anything else escaped, so
 * distinct keys never meet. Each site's keys (b wait, p probe, l lease, q quota, u calls let
 * through before a quota was known, o circuit, e circuit probe lease, k counts, w counting since;
 * and b, p, l of a wait learnt on one path, with the path) carry one hash tag, and the copies (c)
 * and their index (i) another, so each script's keys share a Redis Cluster slot.
 */
export function redisKey(prefix: string, kind: 'b' | 'p' | 'l' | 'q' | 'u' | 'o' | 'e' | 'k' | 'w' | 'c' | 'i', key: string, path?: string): string {
  const name = escaped(key);
  if (kind === 'c' || kind === 'i') return `${prefix}{c}${kind}:${name}`;
  return path === undefined ? `${prefix}{${name}}${kind}` : `${prefix}{${name}}${kind}/${escaped(path)}`;
}

function escaped(key: string): string {
  const wellFormed = !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(key);
  // UTF-8 turns each lone surrogate into U+FFFD; JSON escapes them instead, under its own tag.
  return wellFormed ? `=${key}` : `~${JSON.stringify(key)}`;
}

/** A Lua script, and its SHA1 once Redis has told it (SCRIPT LOAD), so no hashing module is loaded here. */
interface Script {
  readonly source: string;
  sha?: string;
}

const script = (source: string): Script => ({ source });

// Redis's own clock, in ms: every deadline a script keeps is measured on it, so no deadline
// crosses from one worker's clock to another's.
const CLOCK = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** How long the circuit's counting lasts after a failure, in ms: the workers report their calls that often meanwhile. */
const COUNTING_MS = 2000;
/** The circuit opens no sooner than this many ms after the fleet started counting, so every worker's successes are in. */
const SETTLE_COUNT_MS = 250;
/** While the fleet counts a scope's calls, a worker reports them at most this often, in ms. */
const FLUSH_MS = 200;
/** What a worker knows of a scope is read from Redis again after this many ms, whatever the messages said. */
const REFRESH_MS = 10_000;
/** Calls a worker leases at once against an announced quota that has at least QUOTA_LEASE_LEFT times as many left. */
const QUOTA_LEASE = 4;
/** How many leases' worth must be left for a lease: a lease a worker leaves unspent is at most a tenth of what was left. */
const QUOTA_LEASE_LEFT = 10;
/** A lease of calls not made within this many ms is let go (it counts as calls on their way until the quota's window resets). */
const QUOTA_LEASE_MS = 1000;
// A site's keys, for every script of a site: 1 wait (b), 2 probe (p), 3 lease (l), 4 quota (q),
// 5 calls let through uncounted (u), 6 circuit (o: r open until, m window ms, f failed and c calls
// that opened it), 7 circuit probe lease (e), 8 counts (k: the budget's and the circuit's two
// buckets), 9 counting since (w), and 10-12 the wait, probe and lease of the request's path.
// Sharing a wait keeps the longer one, and marks its first call after it ends as a probe for
// PROBE_GRACE_MS, dropping any lease.
const SHARE = `local function share(b, p, l, ms, error) if redis.call('PTTL', b) >= ms then return 0 end
redis.call('SET', b, error, 'PX', ms) redis.call('SET', p, error, 'PX', ms + ${PROBE_GRACE_MS}) redis.call('DEL', l) return 1 end
`;
const GET_BACKOFF = script(`local v = redis.call('GET', KEYS[1]) if not v then return false end
return {v, redis.call('PTTL', KEYS[1])}`);

// Two buckets of counts in the hash KEYS[8], under five fields (the bucket, its two counts, the
// previous bucket's two): the budget's (requests, retries) and the circuit's (calls, failures).
const COUNTS = `local BUDGET = {'ba', 'br', 'bt', 'bq', 'bu'} local CIRCUIT = {'ca', 'cc', 'cf', 'cd', 'cg'}
local function roll(names, bucket) local v = redis.call('HMGET', KEYS[8], unpack(names))
local cur, prev = {tonumber(v[2]) or 0, tonumber(v[3]) or 0}, {tonumber(v[4]) or 0, tonumber(v[5]) or 0}
local at = tonumber(v[1]) if at ~= bucket then if at == bucket - 1 then prev = cur else prev = {0, 0} end cur = {0, 0} end
return cur, prev end
local function put(names, bucket, cur, prev) redis.call('HSET', KEYS[8], names[1], bucket, names[2], cur[1], names[3], cur[2], names[4], prev[1], names[5], prev[2])
redis.call('PEXPIRE', KEYS[8], ${2 * BUDGET_BUCKET_MS + 1000}) end
`;

// The quota (a hash: l left, f in flight, n calls counted ever, s the count its window started at,
// q limit, w window ms, r reset on Redis's clock, e 1 while r is an estimate, y 1 while calls let
// through before it was known are unanswered, m the least their answers said was left), as
// createMemoryStore keeps it: refilled to the limit less what is in flight when its window resets,
// forgotten then when the limit is unknown. KEYS[5] counts the calls let through uncounted and
// not yet answered.
const QUOTA = `${CLOCK}local F = {'l', 'f', 'n', 's', 'q', 'w', 'r', 'e', 'y', 'm'}
local function quota() local q = redis.call('HMGET', KEYS[4], unpack(F))
if not q[1] then return nil end
local s = {} for i, k in ipairs(F) do s[k] = tonumber(q[i]) end
if now < s.r then return s end
if not s.q then redis.call('DEL', KEYS[4]) return nil end
s.l = s.q - s.f s.f = 0 s.s = s.n s.r = now + s.w s.e = 1 s.y = 0 return s end
local function keep(s) for _, k in ipairs(F) do if s[k] then redis.call('HSET', KEYS[4], k, s[k]) end end
redis.call('PEXPIRE', KEYS[4], math.max(s.r - now, 0) + s.w + ${PROBE_GRACE_MS}) end
`;

// Before a call. ARGV = lease token, lease ms (0: no probe), pace quota (1 or 0), calls to lease
// against a quota (0: none). Replies {'wait', ms, error, 1 when the path's}, {'follow', ms, error},
// {'hold', ms, limit or -1}, {'open', ms, failed, calls} or {'call', probe (0 none, 1 the scope's
// wait, 2 the path's, 3 the circuit's), the call's count or -1, ms the fleet still counts calls or
// -1, calls leased}. A lease of calls is taken from a known quota (not while calls let through
// before it was known are unanswered) only when at least QUOTA_LEASE_LEFT times as many are left:
// the calls that follow the call's count are the worker's, counted as on their way until answered
// (a lease a worker does not spend is lost to the window, so only a large quota is leased).
const ADMIT = script(`${QUOTA}local function running(k) local v = redis.call('GET', k) if v then local ms = redis.call('PTTL', k) if ms > 0 then return v, ms end end return nil, 0 end
local v, ms = running(KEYS[1]) if v then return {'wait', ms, v, 0} end
v, ms = running(KEYS[10]) if v then return {'wait', ms, v, 1} end
local lease = tonumber(ARGV[2])
local probing = 0
local o = redis.call('HMGET', KEYS[6], 'r', 'f', 'c')
if o[1] then local open = tonumber(o[1])
if now < open then return {'open', open - now, tonumber(o[2]), tonumber(o[3])} end
if lease > 0 then local held = redis.call('PTTL', KEYS[7]) if held > 0 then return {'open', held, tonumber(o[2]), tonumber(o[3])} end probing = 3 end end
if probing == 0 and lease > 0 then for i, k in ipairs({{2, 3}, {11, 12}}) do local e = redis.call('GET', KEYS[k[1]])
if e then local held = redis.call('PTTL', KEYS[k[2]]) if held > 0 then return {'follow', held, e} end if probing == 0 then probing = i end end end end
local counted, extra = -1, 0
if ARGV[3] == '1' then local s = quota() if s then
if s.l <= 0 then keep(s) return {'hold', s.r - now, s.q or -1} end
s.l = s.l - 1 s.f = s.f + 1 s.n = s.n + 1 counted = s.n
local want = tonumber(ARGV[4] or '0')
if want > 0 and s.y ~= 1 and s.l >= ${QUOTA_LEASE_LEFT} * want then extra = want s.l = s.l - extra s.f = s.f + extra s.n = s.n + extra end
keep(s)
elseif redis.call('INCR', KEYS[5]) == 1 then redis.call('PEXPIRE', KEYS[5], ${UNCOUNTED_MS}) end end
if probing > 0 then redis.call('SET', KEYS[({3, 12, 7})[probing]], ARGV[1], 'PX', lease) end
return {'call', probing, counted, redis.call('PTTL', KEYS[9]), extra}`);

// After a call, or to share a wait (setBackoff) or report counts. ARGV = 1 lease token or '',
// 2 the call's count or '', 3 answered (1 or 0), 4 wait ms or '', 5 wait's error, 6 quota
// remaining or '', 7 reset ms, 8 limit or '', 9 window ms or '', 10 pace (1 or 0), 11 the probe
// the call was (0-3, as ADMIT says), 12 the path, 13 1 when the wait covers the path alone, 14 1
// when the site answered and did not fail, 15 calls and 16 failures to count for the circuit,
// 17 requests to count for the budget, 18-21 the circuit's minFailures, failureRatio, openMs and
// maxOpenMs ('' without a circuit), 22 the channel, 23 the scope, 24 1 with a budget, 25 calls and
// 26 failures of the bucket before, counted into Redis's bucket before, 27 1 when there is no
// probe lease (probeLeaseMs 0): then any call that fails after an open window opens it again.
// The fleet counts a scope's calls from its first failure until COUNTING_MS after its last (w);
// the circuit opens no sooner than SETTLE_COUNT_MS after that start.
// Publishes on the channel what the other workers' mirrors must know: a wait shared, a probe that
// ended a wait, the circuit opened or closed, the fleet counting calls, a quota announced.
// Replies {'open', ms, failed, calls} when the circuit is open after it, {'quota'} when a quota
// is known, else {}.
const SETTLE = script(`${QUOTA}${SHARE}${COUNTS}local scope = ARGV[23]
local function say(...) redis.call('PUBLISH', ARGV[22], cjson.encode({...})) end
local kind = ARGV[11]
if (kind == '1' or kind == '2') and ARGV[1] ~= '' then local p, l = KEYS[2], KEYS[3] if kind == '2' then p, l = KEYS[11], KEYS[12] end
if redis.call('GET', l) == ARGV[1] then redis.call('DEL', l)
if ARGV[3] == '1' and ARGV[4] == '' then redis.call('DEL', p) say('clear', scope) end end end
if ARGV[4] ~= '' then local b, p, l, path = KEYS[1], KEYS[2], KEYS[3], '' if ARGV[13] == '1' then b, p, l, path = KEYS[10], KEYS[11], KEYS[12], ARGV[12] end
if share(b, p, l, tonumber(ARGV[4]), ARGV[5]) == 1 then say('wait', scope, path, tonumber(ARGV[4]), ARGV[5]) end end
local reply = {}
if ARGV[24] == '1' and tonumber(ARGV[17]) > 0 then local bucket = math.floor(now / ${BUDGET_BUCKET_MS}) local cur, prev = roll(BUDGET, bucket)
cur[1] = cur[1] + tonumber(ARGV[17]) put(BUDGET, bucket, cur, prev) end
if ARGV[18] ~= '' then
if redis.call('EXISTS', KEYS[6]) == 1 then
if ARGV[14] == '1' then redis.call('DEL', KEYS[6], KEYS[7], KEYS[9]) redis.call('HDEL', KEYS[8], unpack(CIRCUIT)) say('close', scope)
else local o = redis.call('HMGET', KEYS[6], 'r', 'm', 'f', 'c')
if (kind == '3' and redis.call('GET', KEYS[7]) == ARGV[1]) or (ARGV[27] == '1' and tonumber(o[1]) <= now) then
local ms = math.min(tonumber(ARGV[21]), tonumber(o[2]) * 2)
redis.call('HSET', KEYS[6], 'r', now + ms, 'm', ms) redis.call('PEXPIRE', KEYS[6], ms + ${PROBE_GRACE_MS}) redis.call('DEL', KEYS[7])
say('open', scope, ms, tonumber(o[3]), tonumber(o[4])) reply = {'open', ms, tonumber(o[3]), tonumber(o[4])}
else reply = {'open', math.max(tonumber(o[1]) - now, 0), tonumber(o[3]), tonumber(o[4])} end end
elseif tonumber(ARGV[15]) + tonumber(ARGV[25]) > 0 then local bucket = math.floor(now / ${CIRCUIT_BUCKET_MS}) local cur, prev = roll(CIRCUIT, bucket)
cur[1] = cur[1] + tonumber(ARGV[15]) cur[2] = cur[2] + tonumber(ARGV[16]) prev[1] = prev[1] + tonumber(ARGV[25]) prev[2] = prev[2] + tonumber(ARGV[26]) put(CIRCUIT, bucket, cur, prev)
if tonumber(ARGV[16]) > 0 then
if redis.call('SET', KEYS[9], now, 'NX', 'PX', ${COUNTING_MS}) then say('count', scope, ${COUNTING_MS}) else redis.call('PEXPIRE', KEYS[9], ${COUNTING_MS}) end
local calls, failed, since = cur[1] + prev[1], cur[2] + prev[2], tonumber(redis.call('GET', KEYS[9]) or now)
if failed >= tonumber(ARGV[18]) and failed >= tonumber(ARGV[19]) * calls and now - since >= ${SETTLE_COUNT_MS} then local ms = tonumber(ARGV[20])
redis.call('HSET', KEYS[6], 'r', now + ms, 'm', ms, 'f', failed, 'c', calls) redis.call('PEXPIRE', KEYS[6], ms + ${PROBE_GRACE_MS})
say('open', scope, ms, failed, calls) reply = {'open', ms, failed, calls} end end end end
if ARGV[10] ~= '1' then return reply end
local s = quota()
local counted = tonumber(ARGV[2])
local current = s and counted and counted > s.s
if current then s.f = math.max(0, s.f - 1) end
local pending = 0
if not counted then pending = math.max(tonumber(redis.call('GET', KEYS[5]) or '1') - 1, 0)
if redis.call('EXISTS', KEYS[5]) == 1 then redis.call('SET', KEYS[5], pending, 'KEEPTTL') end end
if ARGV[6] ~= '' and (not counted or current) then
local left, reset = tonumber(ARGV[6]), now + tonumber(ARGV[7])
if not s then s = {l = left - pending, f = 0, n = 0, s = 0, w = tonumber(ARGV[9]) or tonumber(ARGV[7]), r = reset, e = 0, y = pending > 0 and 1 or 0, m = left} say('quota', scope)
else local young = s.y == 1 and not counted s.l = math.min(s.l, left)
if s.e == 1 or reset > s.r + 1000 then s.r = reset elseif reset > s.r - 1000 then s.r = math.min(s.r, reset) end
s.e = 0 s.w = tonumber(ARGV[9]) or math.max(s.w, tonumber(ARGV[7]))
if young then s.m = math.min(s.m, left) s.y = pending > 0 and 1 or 0 s.l = s.m - pending - s.n end end
s.q = tonumber(ARGV[8]) or s.q end
if s then keep(s) if #reply == 0 then reply = {'quota'} end end return reply`);

// A retry drawn from the budget. ARGV = requests to count first, ratio, floor. Replies {1} when
// drawn, or {0, retries, requests} when the budget is spent.
const DRAW = script(`${CLOCK}${COUNTS}local bucket = math.floor(now / ${BUDGET_BUCKET_MS}) local cur, prev = roll(BUDGET, bucket)
cur[1] = cur[1] + tonumber(ARGV[1])
local requests, retries = cur[1] + prev[1], cur[2] + prev[2]
local ok = retries + 1 <= tonumber(ARGV[3]) + tonumber(ARGV[2]) * requests
if ok then cur[2] = cur[2] + 1 end put(BUDGET, bucket, cur, prev)
if ok then return {1} end return {0, retries, requests}`);

// Copies: KEYS = copy, LRU index (sorted set scored by Redis time of last use), sizes (hash), total
// bytes. The index keys expire a TTL after the last save, when every copy they count has expired.
// The scripts touch the keys of evicted copies too, which share the index's hash tag.
const COMMON = `${CLOCK}local function drop(m) local n = tonumber(redis.call('HGET', KEYS[3], m) or '0')
redis.call('HDEL', KEYS[3], m) redis.call('ZREM', KEYS[2], m) redis.call('DEL', m)
if n > 0 then redis.call('DECRBY', KEYS[4], n) end end
`;
const SET_COPY = script(`${COMMON}drop(KEYS[1]) local n = string.len(ARGV[1]) + string.len(KEYS[1]) + 64
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) redis.call('ZADD', KEYS[2], now, KEYS[1])
redis.call('HSET', KEYS[3], KEYS[1], n) redis.call('INCRBY', KEYS[4], n)
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]), 'LIMIT', 0, 64)) do drop(m) end
while tonumber(redis.call('GET', KEYS[4]) or '0') > tonumber(ARGV[3]) do
local lru = redis.call('ZRANGE', KEYS[2], 0, 0) if #lru == 0 then break end drop(lru[1]) end
for i = 2, 4 do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end return 1`);
const GET_COPY = script(`${COMMON}local v = redis.call('GET', KEYS[1])
if v then redis.call('ZADD', KEYS[2], 'XX', now, KEYS[1]) return v end
if redis.call('ZSCORE', KEYS[2], KEYS[1]) then drop(KEYS[1]) end return false`);
const DELETE_COPY = script(`${COMMON}drop(KEYS[1]) return 1`);

function parse(text: unknown): unknown {
  try {
    return typeof text === 'string' ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A wait as Redis keeps it: its error, or its error with the site's answer and where it was learnt. */
const waitText = (b: Backoff): string => JSON.stringify(b.answer || b.learnt ? { error: b.error, ...(b.answer ? { answer: b.answer } : {}), ...(b.learnt ? { learnt: b.learnt } : {}) } : b.error);

const isPairs = (value: unknown): boolean => Array.isArray(value) && value.every((h) => Array.isArray(h) && h.length === 2 && h.every((s) => typeof s === 'string'));

type Wait = { error: EnvelopeError; answer?: KeptAnswer; learnt?: Learnt };

/** A wait read back from Redis (waitText): its error, when it is a valid envelope error, and the site's answer and where it was learnt, when kept and well formed. */
function readWait(text: unknown): Wait | undefined {
  const value = parse(text) as { error?: unknown; answer?: Partial<Record<keyof KeptAnswer, unknown>>; learnt?: Partial<Record<keyof Learnt, unknown>> } | undefined;
  const kept = value !== null && typeof value === 'object' && typeof value.error === 'object' && value.error !== null;
  const checked = validateEnvelope({ error: kept ? value.error : value }, { received: true });
  if (!checked.valid) return undefined;
  const a = kept ? value.answer : undefined;
  const answer = a && typeof a.status === 'number' && isPairs(a.headers) && typeof a.body === 'string' ? (a as KeptAnswer) : undefined;
  const l = kept ? value.learnt : undefined;
  const learnt = l && typeof l.url === 'string' && typeof l.at === 'number' ? (l as Learnt) : undefined;
  return { error: checked.value.error, ...(answer ? { answer } : {}), ...(learnt ? { learnt } : {}) };
}

function asCopy(value: unknown): CachedCopy | undefined {
  const c = value as Partial<Record<keyof CachedCopy, unknown>> | undefined;
  const headers = isPairs(c?.headers);
  return c && headers && typeof c.url === 'string' && typeof c.status === 'number' && typeof c.body === 'string' && typeof c.storedAt === 'number'
    ? (c as CachedCopy)
    : undefined;
}

/** Counts a request a worker let through, for the budget. */
const request = (s: Seen, t: number): void => void (roll(s.requests, t, BUDGET_BUCKET_MS).current[0] += 1);

/**
 * The counts a report carries, forgotten here once taken: this bucket's calls and failures and the
 * requests of the budget's window (ARGV 15-17), and the calls and failures of the bucket before
 * (ARGV 25-26), which Redis counts in its own bucket before.
 */
function unreported(s: Seen, t: number): [string[], string[]] {
  const calls = roll(s.calls, t, CIRCUIT_BUCKET_MS);
  const requests = roll(s.requests, t, BUDGET_BUCKET_MS);
  const counts: [string[], string[]] = [[calls.current[0], calls.current[1], total(requests, 0)].map(String), [calls.previous[0], calls.previous[1]].map(String)];
  s.calls = freshCounts();
  s.requests = freshCounts();
  return counts;
}

/** Runs a store call whose failure, thrown or rejected, changes nothing. */
const quietly = (call: () => unknown): Promise<void> => Promise.resolve().then(call).then(() => undefined, () => undefined);

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A wait heard at most this many ms later than one this worker knows is the same wait, heard back. */
const HEARD_LATE_MS = 100;
/** The most scopes a worker's mirror follows; the least recently used go first (and are read again when next called). */
const MIRROR_SCOPES = 10_000;

/**
 * What one worker knows of a scope, kept current by the messages Redis publishes: when it was last
 * read from Redis, whether this worker had an answer from it (until then each call asks Redis, so
 * the calls on their way count against a quota the first answers announce), whether a quota is known, until when a probe may be owed after a wait, the
 * circuit when open, until when the fleet counts calls, and the counts not yet reported.
 */
interface Seen {
  checked: number;
  answered: boolean;
  quota: boolean;
  probeUntil: number;
  open: { until: number; failures: number; calls: number } | undefined;
  /** When the circuit was last heard to close. */
  closed: number;
  counting: number;
  /** Calls leased against the scope's announced quota: the next call's count, the last, and until when they may be made. */
  lease: { next: number; last: number; until: number } | undefined;
  /** Calls and failures, requests, not yet reported, in the circuit's and the budget's buckets (older ones are forgotten). */
  calls: Counts;
  requests: Counts;
  flushed: number;
}

const unseen = (): Seen => ({ checked: -Infinity, answered: false, quota: false, probeUntil: 0, open: undefined, closed: -Infinity, lease: undefined, counting: 0, calls: freshCounts(), requests: freshCounts(), flushed: -Infinity });

/** What a node-redis client or cluster may offer for a mirror: a second connection to subscribe on, or subscribe itself (a cluster's own pub/sub connection). */
interface Subscribing {
  duplicate?(): RedisClientLike & { connect(): Promise<unknown>; subscribe(channel: string, listener: (message: string) => void): Promise<unknown>; destroy?(): void };
  subscribe?(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe?(channel: string, listener: (message: string) => void): Promise<unknown>;
}

/**
 * A store on Redis, shared by every worker that uses the same Redis and prefix. Backoffs are kept
 * as remaining delays that Redis expires (PX), so clock skew between workers cannot lengthen a
 * wait; copies are bounded by a TTL and a total size. What a worker learns is also kept in its
 * fallback store, and when Redis fails or is slow each call is answered from there: no request
 * fails because Redis did. Each worker mirrors what the fleet knows of each scope it calls, kept
 * current by messages Redis publishes (pub/sub, on a second connection): a call to a scope with
 * nothing known makes no round trip to Redis.
 * @example
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = createAgentClient({ store: createRedisStore(redis) });
 */
export function createRedisStore(client: RedisClientLike | RedisClusterLike, options: RedisStoreOptions = {}): RedisStore {
  if (typeof client !== 'object' || client === null || !isFunction((client as Partial<RedisClientLike>).sendCommand)) {
    throw new TypeError(`createRedisStore: client must be a node-redis client or cluster (createClient() or createCluster() from redis, connected with connect()), not its options (got ${quote(client)})`);
  }
  checkRules('createRedisStore', options, REDIS_CHECKS);
  const { budget, circuit } = resolveGuards('createRedisStore', options);
  const prefix = options.prefix ?? 'agent-errors:';
  const now = options.now ?? Date.now;
  const leaseMs = Math.max(0, Math.round(options.probeLeaseMs ?? 5000));
  const pace = options.paceQuota ?? true;
  const fallback = options.fallback ?? createMemoryStore({ now, probeLeaseMs: leaseMs, paceQuota: pace, retryBudget: options.retryBudget, circuit: options.circuit });
  const ttlMs = Math.max(1, Math.round((options.copyTtlSeconds ?? 604_800) * 1000));
  const maxCopyBytes = options.maxCopyBytes ?? 1024 * 1024;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.commandTimeoutMs ?? 250;
  const recheckMs = options.recheckMs ?? 1000;
  const onFallback = options.onFallback ?? ((error: unknown) => console.warn(`@agent-index/errors: Redis store failed, answering from the fallback store: ${messageOf(error)}`));
  const onRecover = options.onRecover ?? (() => console.info('@agent-index/errors: Redis store answering again'));
  const channel = `${prefix}events`;
  const rule = circuit ? [String(circuit.minFailures), String(circuit.failureRatio), String(circuit.openMs), String(circuit.maxOpenMs)] : ['', '', '', ''];
  // The calls this worker admitted alone, while Redis was down, are settled alone too.
  const answeredHere = new WeakSet<Admission>();
  // What each call Redis admitted was: the probe it makes (1 after the scope's wait, 2 after its path's, 3 of the circuit) and its path.
  const admittedAs = new WeakMap<Admission, { probe: number; path: string | undefined }>();
  const index = ['lru', 'size', 'bytes'].map((name) => redisKey(prefix, 'i', name));
  const site = (key: string, path?: string): string[] => [
    ...(['b', 'p', 'l', 'q', 'u', 'o', 'e', 'k', 'w'] as const).map((kind) => redisKey(prefix, kind, key)),
    ...(['b', 'p', 'l'] as const).map((kind) => redisKey(prefix, kind, key, path ?? '')),
  ];
  const cluster = typeof (client as Partial<RedisClusterLike>).getSlotMaster === 'function';
  // A cluster routes each command by its first key; every script's keys share that key's slot.
  const send: (keys: string[], args: string[]) => Promise<unknown> = cluster
    ? (keys, args) => (client as RedisClusterLike).sendCommand(keys[0], false, args)
    : (_keys, args) => (client as RedisClientLike).sendCommand(args);

  let degraded = false;
  let failedAt = -Infinity;
  let skipUntil = -Infinity;
  // A hook that throws must not fail the request that noticed the outage.
  const notify = (hook: (() => void) | undefined): void => {
    try {
      hook?.();
    } catch {}
  };
  const fail = (error: unknown): void => {
    failedAt = performance.now();
    skipUntil = failedAt + recheckMs;
    if (degraded) return;
    degraded = true;
    notify(() => onFallback(error));
  };
  const onError = (error: unknown): void => fail(error);
  const onReady = (): void => void (skipUntil = -Infinity);
  client.on?.('error', onError);
  client.on?.('ready', onReady);

  // The mirror: what this worker knows of each scope it calls, trusted only while it hears Redis's messages.
  const mirror = new LRUCache<string, Seen>({ max: MIRROR_SCOPES });
  // The rate-limit partition each path last answered in, by pathKey (this worker's own answers).
  const partitions = new LRUCache<string, string>({ max: MIRROR_SCOPES });
  const seenOf = (key: string): Seen => mirror.get(key) ?? (mirror.set(key, unseen()), mirror.get(key)!);
  let listening = false;
  let subscriber: ReturnType<NonNullable<Subscribing['duplicate']>> | undefined;
  const forget = (): void => {
    listening = false;
    mirror.forEach((s) => void (s.checked = -Infinity));
  };
  const hear = (message: string): void => {
    try {
      heard(message);
    } catch {}
  };
  function heard(message: string): void {
    const m = parse(message);
    if (!Array.isArray(m) || typeof m[1] !== 'string') return;
    const s = mirror.get(m[1]);
    if (!s) return;
    const t = now();
    const n = (i: number): number => (typeof m[i] === 'number' ? m[i] : 0);
    switch (m[0]) {
      case 'wait': {
        const wait = readWait(m[4]);
        if (!wait) return;
        // A path of '#' and a partition key is the wait of that rate-limit partition.
        const path = typeof m[2] === 'string' ? m[2] : '';
        const covers = path.startsWith('#') ? { partition: path.slice(1) } : path !== '' ? { path } : {};
        const backoff: Backoff = { until: t + n(3), ...wait, ...covers };
        s.probeUntil = Math.max(s.probeUntil, backoff.until + PROBE_GRACE_MS);
        // A wait this worker knows already (its own, heard back a moment later) keeps its deadline:
        // the message's is later by the time it took to arrive.
        quietly(async () => {
          const known = await fallback.getBackoff(waitKey(m[1], backoff));
          if (!known || known.until < backoff.until - HEARD_LATE_MS) await fallback.setBackoff(m[1], backoff);
        });
        return;
      }
      case 'clear':
        s.checked = -Infinity;
        s.probeUntil = 0;
        return;
      case 'open':
        s.open = { until: t + n(2), failures: n(3), calls: n(4) };
        return;
      case 'close':
        s.open = undefined;
        s.closed = t;
        return;
      case 'count':
        s.counting = t + n(2);
        return;
      case 'quota':
        s.quota = true;
    }
  }
  async function listen(): Promise<void> {
    if (options.mirror === false) return;
    const c = client as unknown as Subscribing;
    try {
      if (cluster) {
        if (!isFunction(c.subscribe)) return;
        await c.subscribe!(channel, hear);
      } else {
        if (!isFunction(c.duplicate)) return;
        const sub = c.duplicate!();
        subscriber = sub;
        // Reconnected, node-redis subscribes again; what was said meanwhile is read from Redis anew.
        sub.on?.('error', forget);
        sub.on?.('ready', () => {
          if (subscriber === sub && !listening && mirror.size >= 0) {
            forget();
            listening = true;
          }
        });
        await sub.connect();
        await sub.subscribe(channel, hear);
      }
      forget();
      listening = true;
    } catch {
      // No subscription (a client without duplicate or subscribe, a Redis that refuses SUBSCRIBE):
      // every call asks Redis, as without a mirror; `mirroring` says so.
      listening = false;
    }
  }
  void listen();

  async function evaluate(s: Script, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(keys.length), ...keys, ...args];
    s.sha ??= String(await send(keys, ['SCRIPT', 'LOAD', s.source]));
    try {
      return await send(keys, ['EVALSHA', s.sha, ...tail]);
    } catch (error) {
      // A restarted or flushed Redis, or another node of a cluster, has not the script: send it
      // whole, which caches it there.
      if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
      return send(keys, ['EVAL', s.source, ...tail]);
    }
  }

  /** Whether to try Redis now: not until a failure's recheck time, nor while the client is not connected. */
  function available(): boolean {
    if (performance.now() < skipUntil) return false;
    if (client.isReady !== false) return true;
    fail(new Error('the Redis client is not connected'));
    return false;
  }

  /** Runs one script on Redis; undefined when Redis failed, was too slow, or is known to be down. */
  function run(s: Script, keys: string[], args: string[] = []): Promise<{ reply: unknown } | undefined> {
    const started = performance.now();
    if (!available()) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        fail(new Error(`Redis did not answer within ${timeoutMs} ms`));
        resolve(undefined);
      }, timeoutMs);
      const settle = (outcome: { reply: unknown } | undefined): void => {
        clearTimeout(timer);
        resolve(outcome);
      };
      evaluate(s, keys, args).then(
        (reply) => {
          if (degraded && started > failedAt) {
            degraded = false;
            notify(onRecover);
          }
          settle({ reply });
        },
        (error: unknown) => {
          fail(error);
          settle(undefined);
        },
      );
    });
  }

  /** The script arguments of a report: a call's answer, a wait to share, counts (see SETTLE). */
  function report(key: string, s: Seen, parts: { token?: string; counted?: number; answered?: boolean; wait?: Backoff | undefined; quota?: Settlement['quota']; probe?: number; path?: string | undefined; ok?: boolean }): Promise<{ reply: unknown } | undefined> {
    const { wait, quota } = parts;
    const left = wait ? Math.ceil(wait.until - now()) : 0;
    const told = left > 0 ? [String(left), waitText(wait!)] : ['', ''];
    const announced = quota ? [String(quota.remaining), String(quota.resetMs), String(quota.limit ?? ''), String(quota.windowMs ?? '')] : ['', '', '', ''];
    const path = wait?.partition !== undefined ? `#${wait.partition}` : (wait?.path ?? parts.path);
    const narrow = wait !== undefined && (wait.path !== undefined || wait.partition !== undefined);
    const args = [
      parts.token ?? '', String(parts.counted ?? ''), parts.answered ? '1' : '0', ...told, ...announced, pace ? '1' : '0',
      String(parts.probe ?? 0), path ?? '', left > 0 && narrow ? '1' : '0', parts.ok ? '1' : '0',
      ...rule, channel, key, budget ? '1' : '0',
    ];
    const [current, before] = unreported(s, now());
    args.splice(14, 0, ...current);
    args.push(...before, leaseMs === 0 ? '1' : '0');
    s.flushed = now();
    return run(SETTLE, site(key, path), args);
  }

  /** What Redis said of a scope after a report: its circuit, its quota. */
  function heedReply(s: Seen, reply: unknown, ok: boolean): void {
    const [kind, ms, failures, calls] = Array.isArray(reply) ? (reply as unknown[]) : [];
    if (kind === 'open' && typeof ms === 'number') s.open = { until: now() + ms, failures: Number(failures) || 0, calls: Number(calls) || 0 };
    else if (ok) s.open = undefined;
    if (kind === 'quota') s.quota = true;
  }

  /** Whether a call to a scope may go without asking Redis: the mirror is current and knows nothing that needs Redis. */
  const quiet = (s: Seen | undefined, t: number): s is Seen => s !== undefined && listening && s.answered && t - s.checked < REFRESH_MS && !s.quota && t >= s.probeUntil && s.open === undefined;

  function decide(key: string, ask: AdmitAsk | undefined, known: Backoff | undefined): Promise<Admission> | Admission {
    // A wait this worker knows of (learnt here, heard of, or read from Redis before) is answered without Redis.
    if (known) return { kind: 'wait', until: known.until, error: known.error, ...(known.answer ? { answer: known.answer } : {}), ...(known.learnt ? { learnt: known.learnt } : {}) };
    const t = now();
    const seen = mirror.get(key);
    if (seen?.open && t < seen.open.until && available()) return { kind: 'open', ...seen.open };
    if (quiet(seen, t) && available()) {
      if (!ask?.retry) request(seen, t);
      return { kind: 'call' };
    }
    // A call leased against the announced quota, while nothing else needs Redis: counted without asking it.
    const lease = seen?.lease;
    if (lease && lease.next <= lease.last && t < lease.until && listening && seen!.quota && t >= seen!.probeUntil && seen!.open === undefined && available()) {
      if (!ask?.retry) request(seen!, t);
      const admission: Admission = { kind: 'call', counted: lease.next++ };
      admittedAs.set(admission, { probe: 0, path: ask?.path });
      return admission;
    }
    // Due to be read again, and otherwise quiet: this call reads it, the others meanwhile go on as they were.
    if (seen && listening && seen.answered && !seen.quota && t >= seen.probeUntil && seen.open === undefined) seen.checked = t;
    return ask_(key, ask, t);
  }

  async function ask_(key: string, ask: AdmitAsk | undefined, t: number): Promise<Admission> {
    const token = crypto.randomUUID();
    const path = ask?.path;
    // A worker that hears the fleet asks for a lease of calls against an announced quota.
    const reply = (await run(ADMIT, site(key, path), [token, String(leaseMs), pace ? '1' : '0', listening ? String(QUOTA_LEASE) : '0']))?.reply;
    const [kind, a, b, c] = Array.isArray(reply) ? (reply as unknown[]) : [];
    const s = seenOf(key);
    // What Redis has left of a wait, a hold or a window counts from its answer, not from the question.
    const until = typeof a === 'number' ? now() + a : NaN;
    if (kind === 'call') {
      s.checked = t;
      s.quota = typeof b === 'number' && b >= 0;
      s.counting = typeof c === 'number' && c > 0 ? t + c : 0;
      if (!ask?.retry) request(s, t);
      const probe = typeof a === 'number' ? a : 0;
      // After a wait, calls ask Redis until its probe is heard to have succeeded ('clear') or the
      // grace runs out: a wait the probe's answer shares must stop the others' next calls.
      if (probe === 1 || probe === 2) s.probeUntil = t + PROBE_GRACE_MS;
      if (probe === 3) s.open = { until: t + leaseMs, failures: s.open?.failures ?? 0, calls: s.open?.calls ?? 0 };
      const leased = Array.isArray(reply) && typeof reply[4] === 'number' ? reply[4] : 0;
      if (typeof b === 'number' && leased > 0) s.lease = { next: b + 1, last: b + leased, until: now() + QUOTA_LEASE_MS };
      const admission: Admission = { kind, ...(probe > 0 ? { probe: token } : {}), ...(probe === 3 ? { circuit: true as const } : {}), ...(typeof b === 'number' && b >= 0 ? { counted: b } : {}) };
      admittedAs.set(admission, { probe, path });
      return admission;
    }
    if (kind === 'hold' && until > 0) return { kind, until, ...(typeof b === 'number' && b >= 0 ? { limit: b } : {}) };
    if (kind === 'open' && until > 0) {
      // Closed meanwhile (its probe succeeded while this answer was on its way): call.
      if (s.closed >= t) return { kind: 'call' };
      // Another worker's probe holds the circuit until its lease ends; its answer is heard sooner.
      s.open = { until: Math.min(until, t + (circuit?.maxOpenMs ?? leaseMs)), failures: Number(b) || 0, calls: Number(c) || 0 };
      return { kind, ...s.open };
    }
    const wait = kind === 'wait' || kind === 'follow' ? readWait(b) : undefined;
    if (wait && until > 0) {
      s.checked = t;
      // After a wait, the probe marker lasts PROBE_GRACE_MS: calls ask Redis until the probe's answer is heard.
      s.probeUntil = Math.max(s.probeUntil, (kind === 'wait' ? until : t) + PROBE_GRACE_MS);
      // A wait is kept here as well, to answer from while Redis is down.
      if (kind === 'wait') await quietly(() => fallback.setBackoff(key, { until, ...wait, ...(c === 1 && path !== undefined ? { path } : {}) }));
      return { kind: kind as 'wait' | 'follow', until, ...wait };
    }
    // Redis did not answer, or answered what no script of ours says: this worker decides alone.
    const local = await fallback.admit!(key, ask);
    if (local.kind === 'call') answeredHere.add(local);
    return local;
  }

  return {
    get degraded() {
      return degraded;
    },
    get mirroring() {
      return listening;
    },
    async getBackoff(key) {
      const [local, shared] = await Promise.all([fallback.getBackoff(key), run(GET_BACKOFF, [redisKey(prefix, 'b', key)])]);
      if (!Array.isArray(shared?.reply)) return local;
      const [text, left] = shared.reply as unknown[];
      const wait = readWait(text);
      if (!wait || typeof left !== 'number' || left <= 0) return local;
      // The deadline on this worker's clock: its now plus what Redis has left.
      const backoff: Backoff = { until: now() + left, ...wait };
      if (local && local.until >= backoff.until) return local;
      await fallback.setBackoff(key, backoff);
      return backoff;
    },
    async setBackoff(key, backoff) {
      await fallback.setBackoff(key, backoff);
      if (backoff.until > now()) await report(key, seenOf(key), { wait: backoff });
    },
    admit(key, ask) {
      // The waits this worker knows of that cover the request: the scope's, its path's, its partition's.
      const known = coveringKeys(key, ask?.path, partitions).map((k) => fallback.getBackoff(k));
      if (known.some((k) => k instanceof Promise)) return Promise.all(known).then((found) => decide(key, ask, found.find(Boolean)), () => decide(key, ask, undefined));
      return decide(key, ask, (known as (Backoff | undefined)[]).find(Boolean));
    },
    settle(key, settlement) {
      const { admitted, wait, quota } = settlement;
      if (answeredHere.has(admitted)) return (async () => {
        if (wait) await fallback.setBackoff(key, wait);
        return fallback.settle!(key, settlement);
      })();
      notePartition(partitions, key, settlement);
      const t = now();
      const s = seenOf(key);
      const as = admittedAs.get(admitted);
      const ok = settlement.answered && !settlement.failed;
      const c = roll(s.calls, t, CIRCUIT_BUCKET_MS);
      c.current[0] += 1;
      if (settlement.failed) c.current[1] += 1;
      if (settlement.answered && !quota) s.answered = true;
      if (wait) s.probeUntil = Math.max(s.probeUntil, wait.until + PROBE_GRACE_MS);
      const needed = as?.probe || admitted.counted !== undefined || wait || quota || settlement.failed || s.open || (t < s.counting && t - s.flushed >= FLUSH_MS);
      // A call to a scope with nothing to tell costs nothing: its count waits for the next report.
      if (!needed) return;
      return (async () => {
        if (wait) await fallback.setBackoff(key, wait);
        const done = await report(key, s, { token: admitted.probe, counted: admitted.counted, answered: settlement.answered, wait, quota, probe: as?.probe ?? 0, path: as?.path, ok });
        if (done) heedReply(s, done.reply, ok);
        else if (quota) s.quota = true;
      })();
    },
    async drawRetry(key) {
      const s = seenOf(key);
      if (s.open && now() < s.open.until) return { kind: 'open', ...s.open };
      if (!budget) return undefined;
      const requests = total(roll(s.requests, now(), BUDGET_BUCKET_MS), 0);
      s.requests = freshCounts();
      const done = await run(DRAW, site(key), [String(requests), String(budget.ratio), String(budget.floor)]);
      if (!done || !Array.isArray(done.reply)) return fallback.drawRetry?.(key);
      const [drawn, retries, counted] = done.reply as unknown[];
      return drawn === 1 ? undefined : { kind: 'spent', retries: Number(retries) || 0, requests: Number(counted) || 0 };
    },
    async getCopy(key) {
      const [local, shared] = await Promise.all([fallback.getCopy(key), run(GET_COPY, [redisKey(prefix, 'c', key), ...index])]);
      const copy = asCopy(parse(shared?.reply));
      // The newer of the two: a copy this worker kept while Redis was down may be the latest.
      if (!copy || (local && local.storedAt >= copy.storedAt)) return local;
      await fallback.setCopy(key, copy);
      return copy;
    },
    async setCopy(key, copy) {
      await fallback.setCopy(key, copy);
      if (!available()) return;
      const json = JSON.stringify(copy);
      if (new TextEncoder().encode(json).byteLength <= maxCopyBytes) await run(SET_COPY, [redisKey(prefix, 'c', key), ...index], [json, String(ttlMs), String(maxBytes)]);
    },
    async deleteCopy(key) {
      await Promise.all([fallback.deleteCopy(key), run(DELETE_COPY, [redisKey(prefix, 'c', key), ...index])]);
    },
    detach() {
      client.off?.('error', onError);
      client.off?.('ready', onReady);
      listening = false;
      const sub = subscriber;
      subscriber = undefined;
      if (sub) {
        try {
          sub.destroy?.();
        } catch {}
      } else if (cluster) void (client as unknown as Subscribing).unsubscribe?.(channel, hear)?.catch(() => {});
    },
  };
}
