// A Store on Redis, so a fleet of agent workers on many machines shares the delays sites asked
// for and the copies they kept. It takes a node-redis client by shape and never loads `redis`.
import type { EnvelopeError } from '../../generated/types.js';
import { validateEnvelope } from '../core/validate.js';
import { checkRules, isCount, isFunction, isWhole, quote, type Checks } from '../core/refuse.js';
import { createMemoryStore, NOW_CHECK, STORE_CHECK, PACING_CHECKS, PROBE_GRACE_MS, UNCOUNTED_MS, type Admission, type Backoff, type CachedCopy, type KeptAnswer, type PacingOptions, type Store } from './store.js';

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
}

/** A Redis store, which says whether it is answering from its fallback. */
export interface RedisStore extends Store {
  /** True from a Redis failure until Redis answers again. */
  readonly degraded: boolean;
  /** Removes the listeners the store put on the client (the client stays open). */
  detach(): void;
}

/**
 * The Redis key of a store key of one kind: valid UTF-16 as it is, anything else escaped, so
 * distinct keys never meet. Each site's keys (b wait, p probe, l lease, q quota, u calls let
 * through before a quota was known) carry one hash tag, and the copies (c) and their index (i)
 * another, so each script's keys share a Redis Cluster slot.
 */
export function redisKey(prefix: string, kind: 'b' | 'p' | 'l' | 'q' | 'u' | 'c' | 'i', key: string): string {
  const wellFormed = !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(key);
  // UTF-8 turns each lone surrogate into U+FFFD; JSON escapes them instead, under its own tag.
  const name = wellFormed ? `=${key}` : `~${JSON.stringify(key)}`;
  return kind === 'c' || kind === 'i' ? `${prefix}{c}${kind}:${name}` : `${prefix}{${name}}${kind}`;
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

// A site's keys: KEYS = wait (b), probe (p), lease (l), quota (q), calls let through uncounted (u).
// Sharing a wait keeps the longer one, and marks its first call after it ends as a probe for
// PROBE_GRACE_MS, dropping any lease. ARGV of SET_BACKOFF = wait ms, its error.
const SHARE = `local function share(ms, error) if redis.call('PTTL', KEYS[1]) >= ms then return 0 end
redis.call('SET', KEYS[1], error, 'PX', ms) redis.call('SET', KEYS[2], error, 'PX', ms + ${PROBE_GRACE_MS}) redis.call('DEL', KEYS[3]) return 1 end
`;
const SET_BACKOFF = script(`${SHARE}return share(tonumber(ARGV[1]), ARGV[2])`);
const GET_BACKOFF = script(`local v = redis.call('GET', KEYS[1]) if not v then return false end
return {v, redis.call('PTTL', KEYS[1])}`);

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

// Before a call. ARGV = lease token, lease ms (0: no probe), pace quota (1 or 0). Replies
// {'wait', ms, error}, {'follow', ms, error}, {'hold', ms, limit or -1} or {'call', probe 1 or 0, the call's count or -1}.
const ADMIT = script(`${QUOTA}local w = redis.call('GET', KEYS[1])
if w then local left = redis.call('PTTL', KEYS[1]) if left > 0 then return {'wait', left, w} end end
local probing = false
if tonumber(ARGV[2]) > 0 then local e = redis.call('GET', KEYS[2]) if e then
local lease = redis.call('PTTL', KEYS[3]) if lease > 0 then return {'follow', lease, e} end probing = true end end
local counted = -1
if ARGV[3] == '1' then local s = quota() if s then
if s.l <= 0 then keep(s) return {'hold', s.r - now, s.q or -1} end
s.l = s.l - 1 s.f = s.f + 1 s.n = s.n + 1 keep(s) counted = s.n
elseif redis.call('INCR', KEYS[5]) == 1 then redis.call('PEXPIRE', KEYS[5], ${UNCOUNTED_MS}) end end
if probing then redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[2]) end
return {'call', probing and 1 or 0, counted}`);

// After a call. ARGV = lease token or '', the call's count or '', answered (1 or 0), wait ms or '',
// wait's error, quota remaining or '', reset ms, limit or '', window ms or '', pace (1 or 0).
const SETTLE = script(`${QUOTA}${SHARE}if ARGV[1] ~= '' and redis.call('GET', KEYS[3]) == ARGV[1] then redis.call('DEL', KEYS[3])
if ARGV[3] == '1' and ARGV[4] == '' then redis.call('DEL', KEYS[2]) end end
if ARGV[4] ~= '' then share(tonumber(ARGV[4]), ARGV[5]) end
if ARGV[10] ~= '1' then return 1 end
local s = quota()
local counted = tonumber(ARGV[2])
local current = s and counted and counted > s.s
if current then s.f = math.max(0, s.f - 1) end
local pending = 0
if not counted then pending = math.max(tonumber(redis.call('GET', KEYS[5]) or '1') - 1, 0)
if redis.call('EXISTS', KEYS[5]) == 1 then redis.call('SET', KEYS[5], pending, 'KEEPTTL') end end
if ARGV[6] ~= '' and (not counted or current) then
local left, reset = tonumber(ARGV[6]), now + tonumber(ARGV[7])
if not s then s = {l = left - pending, f = 0, n = 0, s = 0, w = tonumber(ARGV[9]) or tonumber(ARGV[7]), r = reset, e = 0, y = pending > 0 and 1 or 0, m = left}
else local young = s.y == 1 and not counted s.l = math.min(s.l, left)
if s.e == 1 or reset > s.r + 1000 then s.r = reset elseif reset > s.r - 1000 then s.r = math.min(s.r, reset) end
s.e = 0 s.w = tonumber(ARGV[9]) or math.max(s.w, tonumber(ARGV[7]))
if young then s.m = math.min(s.m, left) s.y = pending > 0 and 1 or 0 s.l = s.m - pending - s.n end end
s.q = tonumber(ARGV[8]) or s.q end
if s then keep(s) end return 1`);

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

/** A wait as Redis keeps it: its error, or its error and the site's answer kept with it. */
const waitText = (backoff: Backoff): string => JSON.stringify(backoff.answer ? { error: backoff.error, answer: backoff.answer } : backoff.error);

const isPairs = (value: unknown): boolean => Array.isArray(value) && value.every((h) => Array.isArray(h) && h.length === 2 && h.every((s) => typeof s === 'string'));

/** A wait read back from Redis (waitText): its error, when it is a valid envelope error, and the site's answer when kept and well formed. */
function readWait(text: unknown): { error: EnvelopeError; answer?: KeptAnswer } | undefined {
  const value = parse(text) as { error?: unknown; answer?: Partial<Record<keyof KeptAnswer, unknown>> } | undefined;
  const kept = value !== null && typeof value === 'object' && 'answer' in value && 'error' in value;
  const checked = validateEnvelope({ error: kept ? value.error : value }, { received: true });
  if (!checked.valid) return undefined;
  const a = kept ? value.answer : undefined;
  const answer = a && typeof a.status === 'number' && isPairs(a.headers) && typeof a.body === 'string' ? (a as KeptAnswer) : undefined;
  return { error: checked.value.error, ...(answer ? { answer } : {}) };
}

function asCopy(value: unknown): CachedCopy | undefined {
  const c = value as Partial<Record<keyof CachedCopy, unknown>> | undefined;
  const headers = isPairs(c?.headers);
  return c && headers && typeof c.url === 'string' && typeof c.status === 'number' && typeof c.body === 'string' && typeof c.storedAt === 'number'
    ? (c as CachedCopy)
    : undefined;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A store on Redis, shared by every worker that uses the same Redis and prefix. Backoffs are kept
 * as remaining delays that Redis expires (PX), so clock skew between workers cannot lengthen a
 * wait; copies are bounded by a TTL and a total size. What a worker learns is also kept in its
 * fallback store, and when Redis fails or is slow each call is answered from there: no request
 * fails because Redis did.
 * @example
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const client = createAgentClient({ store: createRedisStore(redis) });
 */
export function createRedisStore(client: RedisClientLike | RedisClusterLike, options: RedisStoreOptions = {}): RedisStore {
  if (typeof client !== 'object' || client === null || !isFunction((client as Partial<RedisClientLike>).sendCommand)) {
    throw new TypeError(`createRedisStore: client must be a node-redis client or cluster (createClient() or createCluster() from redis, connected with connect()), not its options (got ${quote(client)})`);
  }
  checkRules('createRedisStore', options, REDIS_CHECKS);
  const prefix = options.prefix ?? 'agent-errors:';
  const now = options.now ?? Date.now;
  const leaseMs = Math.max(0, Math.round(options.probeLeaseMs ?? 5000));
  const pace = options.paceQuota ?? true;
  const fallback = options.fallback ?? createMemoryStore({ now, probeLeaseMs: leaseMs, paceQuota: pace });
  const ttlMs = Math.max(1, Math.round((options.copyTtlSeconds ?? 604_800) * 1000));
  const maxCopyBytes = options.maxCopyBytes ?? 1024 * 1024;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.commandTimeoutMs ?? 250;
  const recheckMs = options.recheckMs ?? 1000;
  const onFallback = options.onFallback ?? ((error: unknown) => console.warn(`@agent-index/errors: Redis store failed, answering from the fallback store: ${messageOf(error)}`));
  const onRecover = options.onRecover ?? (() => console.info('@agent-index/errors: Redis store answering again'));
  // The calls this worker admitted alone, while Redis was down, are settled alone too.
  const answeredHere = new WeakSet<Admission>();
  const index = ['lru', 'size', 'bytes'].map((name) => redisKey(prefix, 'i', name));
  const site = (key: string): string[] => (['b', 'p', 'l', 'q', 'u'] as const).map((kind) => redisKey(prefix, kind, key));
  // A cluster routes each command by its first key; every script's keys share that key's slot.
  const send: (keys: string[], args: string[]) => Promise<unknown> =
    typeof (client as Partial<RedisClusterLike>).getSlotMaster === 'function'
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

  return {
    get degraded() {
      return degraded;
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
      const left = Math.ceil(backoff.until - now());
      if (left > 0) await run(SET_BACKOFF, site(key).slice(0, 3), [String(left), waitText(backoff)]);
    },
    async admit(key) {
      // A wait this worker knows of (learnt here, or read from Redis before) is answered without Redis.
      const known = await fallback.getBackoff(key);
      if (known) return { kind: 'wait', ...known };
      const token = crypto.randomUUID();
      const reply = (await run(ADMIT, site(key), [token, String(leaseMs), pace ? '1' : '0']))?.reply;
      const [kind, a, b] = Array.isArray(reply) ? (reply as unknown[]) : [];
      const until = typeof a === 'number' ? now() + a : NaN;
      if (kind === 'call') return { kind, ...(a === 1 ? { probe: token } : {}), ...(typeof b === 'number' && b >= 0 ? { counted: b } : {}) };
      if (kind === 'hold' && until > 0) return { kind, until, ...(typeof b === 'number' && b >= 0 ? { limit: b } : {}) };
      const wait = kind === 'wait' || kind === 'follow' ? readWait(b) : undefined;
      if (wait && until > 0) {
        // A wait is kept here as well, to answer from while Redis is down.
        if (kind === 'wait') await fallback.setBackoff(key, { until, ...wait });
        return { kind: kind as 'wait' | 'follow', until, ...wait };
      }
      // Redis did not answer, or answered what no script of ours says: this worker decides alone.
      const local = await fallback.admit!(key);
      if (local.kind === 'call') answeredHere.add(local);
      return local;
    },
    async settle(key, settlement) {
      const { admitted, wait, quota } = settlement;
      if (wait) await fallback.setBackoff(key, wait);
      if (answeredHere.has(admitted)) return fallback.settle!(key, settlement);
      const left = wait ? Math.ceil(wait.until - now()) : 0;
      const told = left > 0 ? [String(left), waitText(wait!)] : ['', ''];
      const announced = quota ? [String(quota.remaining), String(quota.resetMs), String(quota.limit ?? ''), String(quota.windowMs ?? '')] : ['', '', '', ''];
      const args = [admitted.probe ?? '', String(admitted.counted ?? ''), settlement.answered ? '1' : '0', ...told, ...announced, pace ? '1' : '0'];
      await run(SETTLE, site(key), args);
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
    },
  };
}
