// One agent worker of a fleet, for test/agent/fleet.test.ts: a process with a client and fetcher
// on a Redis store (REDIS_URL, KEY_PREFIX) and another pair on its own memory store, driven over
// IPC. Run as `node --import tsx test/helpers/fleet-worker.ts`; it answers each message
// { id, op, ... } with { id, result } and reports unhandled rejections instead of dying of them.
import { createClient } from 'redis';
import { createAgentClient } from '../../src/agent/client.js';
import { agentFetch } from '../../src/agent/fetcher.js';
import { createRedisStore } from '../../src/agent/redis-store.js';
import { createMemoryStore, type Store } from '../../src/agent/store.js';

export type StoreKind = 'redis' | 'memory';

export type Command =
  | { op: 'hammer'; targets: { url: string; store: StoreKind }[]; intervalMs: number }
  | { op: 'stop' }
  | { op: 'client'; url: string; store: StoreKind }
  | { op: 'fetch'; url: string; store: StoreKind }
  | { op: 'status' };

/** What one hammer loop did, as this worker saw it; times are ms since the epoch, sub-ms, on this host's clock. */
export interface HammerReport {
  readonly url: string;
  readonly store: StoreKind;
  /** Requests the client sent to the site. */
  readonly sent: number;
  /** Requests answered from the store without calling the site. */
  readonly remembered: number;
  /** When each look at the store that found no wait (and so led to a call) began. */
  readonly misses: number[];
  /** When each wait this worker learnt from the site was written to the store. */
  readonly learnt: number[];
}

/** This host's clock with sub-ms resolution, comparable between processes. */
export const hostNow = (): number => performance.timeOrigin + performance.now();

export interface Status {
  readonly ready: boolean;
  readonly degraded: boolean;
  readonly fallbacks: string[];
  readonly recoveries: number;
  readonly problems: string[];
}

const problems: string[] = [];
process.on('unhandledRejection', (reason) => problems.push(`unhandled rejection: ${String(reason)}`));
process.on('uncaughtException', (error) => problems.push(`uncaught exception: ${String(error)}`));

const fallbacks: string[] = [];
let recoveries = 0;
// No 'error' listener of the worker's own: the store's must be enough to keep the process alive.
const redis = await createClient({
  url: process.env.REDIS_URL,
  socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 300) },
}).connect();
const redisStore = createRedisStore(redis, {
  prefix: process.env.KEY_PREFIX,
  onFallback: (error) => fallbacks.push(error instanceof Error ? error.message : String(error)),
  onRecover: () => void (recoveries += 1),
});
const stores: Record<StoreKind, Store> = { redis: redisStore, memory: createMemoryStore() };

// The looks and writes of each store, per key (the origin), while hammering.
const events = new Map<string, { misses: number[]; learnt: number[] }>();
const eventsOf = (key: string) => events.get(key) ?? (events.set(key, { misses: [], learnt: [] }), events.get(key)!);
function watched(kind: StoreKind): Store {
  const store = stores[kind];
  return {
    ...store,
    getBackoff: async (key) => {
      const began = hostNow();
      const backoff = await store.getBackoff(key);
      if (!backoff) eventsOf(`${kind} ${key}`).misses.push(began);
      return backoff;
    },
    setBackoff: async (key, backoff) => {
      await store.setBackoff(key, backoff);
      eventsOf(`${kind} ${key}`).learnt.push(hostNow());
    },
  };
}
// A wait is handed back at once rather than slept, so every request is one look at the store and
// at most one call to the site.
const clients = {
  redis: createAgentClient({ store: watched('redis'), maxWaitSeconds: 0 }),
  memory: createAgentClient({ store: watched('memory'), maxWaitSeconds: 0 }),
};

let stopping = false;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function hammer(url: string, store: StoreKind, intervalMs: number): Promise<HammerReport> {
  let sent = 0;
  let remembered = 0;
  events.delete(`${store} ${new URL(url).origin}`);
  // A random phase, as workers that started at different times would have.
  await pause(Math.random() * intervalMs);
  while (!stopping) {
    const result = await clients[store].fetch(url);
    if (!result.ok && result.remembered) remembered += 1;
    else sent += 1;
    await pause(intervalMs * (0.5 + Math.random()));
  }
  return { url, store, sent, remembered, ...eventsOf(`${store} ${new URL(url).origin}`) };
}

let hammering: Promise<HammerReport[]> | undefined;

async function handle(command: Command): Promise<unknown> {
  switch (command.op) {
    case 'hammer':
      stopping = false;
      hammering = Promise.all(command.targets.map((t) => hammer(t.url, t.store, command.intervalMs)));
      return null;
    case 'stop':
      stopping = true;
      return (await hammering) ?? [];
    case 'client': {
      const result = await clients[command.store].fetch(command.url);
      return result.ok ? { ok: true, status: result.response.status } : { ok: false, code: result.error.code, retry_after: result.error.retry_after, remembered: result.remembered ?? false };
    }
    case 'fetch': {
      const { headers: _headers, ...rest } = { headers: undefined, ...(await agentFetch(command.url, { store: stores[command.store], maxWaitSeconds: 0 })) };
      return rest;
    }
    case 'status':
      return { ready: redis.isReady, degraded: redisStore.degraded, fallbacks, recoveries, problems } satisfies Status;
  }
}

process.on('message', (message: { id: number } & Command) => {
  handle(message).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
