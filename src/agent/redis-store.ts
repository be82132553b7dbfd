// A Store on Redis, so a fleet of agent workers on many machines shares the delays sites asked
// for and the copies they kept. It takes a node-redis client by shape and never loads `redis`.
import { validateEnvelope } from '../core/validate.js';
import { createMemoryStore, type Backoff, type CachedCopy, type Store } from './store.js';

/** The part of a node-redis (v4, v5 or v6) client the store uses. */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  /** False while the client is not connected; the store then answers from its fallback at once. */
  readonly isReady?: boolean;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
}

/** Options of createRedisStore. */
export interface RedisStoreOptions {
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

/** The Redis key of a store key: valid UTF-16 as it is, anything else escaped, so distinct keys never meet. */
export function redisKey(prefix: string, kind: 'b' | 'c', key: string): string {
  const wellFormed = !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(key);
  // UTF-8 turns each lone surrogate into U+FFFD; JSON escapes them instead, under its own tag.
  return `${prefix}${kind}:${wellFormed ? `=${key}` : `~${JSON.stringify(key)}`}`;
}

/** A Lua script, and its SHA1 once Redis has told it (SCRIPT LOAD), so no hashing module is loaded here. */
interface Script {
  readonly source: string;
  sha?: string;
}

const script = (source: string): Script => ({ source });

// Keep the longer wait, measured by Redis alone: a deadline never crosses from one clock to another.
const SET_BACKOFF = script(`if redis.call('PTTL', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[1]) return 1`);
const GET_BACKOFF = script(`local v = redis.call('GET', KEYS[1]) if not v then return false end
return {v, redis.call('PTTL', KEYS[1])}`);

// Copies: KEYS = copy, LRU index (sorted set scored by Redis time of last use), sizes (hash), total
// bytes. The index keys expire a TTL after the last save, when every copy they count has expired.
// The scripts touch the keys of evicted copies too, so they need a standalone Redis, not a cluster.
const COMMON = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function drop(m) local n = tonumber(redis.call('HGET', KEYS[3], m) or '0')
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

function asCopy(value: unknown): CachedCopy | undefined {
  const c = value as Partial<Record<keyof CachedCopy, unknown>> | undefined;
  const headers = Array.isArray(c?.headers) && c.headers.every((h) => Array.isArray(h) && h.length === 2 && h.every((s) => typeof s === 'string'));
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
export function createRedisStore(client: RedisClientLike, options: RedisStoreOptions = {}): RedisStore {
  const prefix = options.prefix ?? 'agent-errors:';
  const now = options.now ?? Date.now;
  const fallback = options.fallback ?? createMemoryStore({ now });
  const ttlMs = Math.max(1, Math.round((options.copyTtlSeconds ?? 604_800) * 1000));
  const maxCopyBytes = options.maxCopyBytes ?? 1024 * 1024;
  const maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  const timeoutMs = options.commandTimeoutMs ?? 250;
  const recheckMs = options.recheckMs ?? 1000;
  const onFallback = options.onFallback ?? ((error: unknown) => console.warn(`@agent-index/errors: Redis store failed, answering from the fallback store: ${messageOf(error)}`));
  const onRecover = options.onRecover ?? (() => console.info('@agent-index/errors: Redis store answering again'));
  const index = [`${prefix}i:lru`, `${prefix}i:size`, `${prefix}i:bytes`];

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
    s.sha ??= String(await client.sendCommand(['SCRIPT', 'LOAD', s.source]));
    try {
      return await client.sendCommand(['EVALSHA', s.sha, ...tail]);
    } catch (error) {
      // A restarted or flushed Redis has forgotten the script: send it whole, which caches it again.
      if (!messageOf(error).startsWith('NOSCRIPT')) throw error;
      return client.sendCommand(['EVAL', s.source, ...tail]);
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
      const checked = validateEnvelope({ error: parse(text) }, { received: true });
      if (!checked.valid || typeof left !== 'number' || left <= 0) return local;
      // The deadline on this worker's clock: its now plus what Redis has left.
      const backoff: Backoff = { until: now() + left, error: checked.value.error };
      if (local && local.until >= backoff.until) return local;
      await fallback.setBackoff(key, backoff);
      return backoff;
    },
    async setBackoff(key, backoff) {
      await fallback.setBackoff(key, backoff);
      const left = Math.ceil(backoff.until - now());
      if (left > 0) await run(SET_BACKOFF, [redisKey(prefix, 'b', key)], [String(left), JSON.stringify(backoff.error)]);
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
