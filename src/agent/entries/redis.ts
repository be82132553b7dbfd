// @agent-index/errors/agent/redis: a Store on Redis or Redis Cluster, so a fleet of agent workers
// shares the waits sites asked for, the probe at a window's end, announced quotas and kept copies.
export { createRedisStore } from '../redis-store.js';
export type { RedisClientLike, RedisClusterLike, RedisStore, RedisStoreOptions } from '../redis-store.js';
