// One agent worker of a fleet, for test/agent/fleet.test.ts and bench/fleet.ts (started by
// startWorker in test/helpers/fleet.ts): a process with clients and a fetcher on Redis stores
// (REDIS_URL, KEY_PREFIX) and on a memory store of its own, driven over IPC. Run as
// `node --import tsx test/helpers/fleet-worker.ts`; it answers each message { id, op, ... } with
// { id, result } (or { id, error }) and reports unhandled rejections instead of dying of them.
//
// Store kinds, one store of each per process, made when first used:
//   redis          createRedisStore(client, { prefix: KEY_PREFIX }): probe lease and quota pacing on, defaults
//   redis-noprobe  the same with probeLeaseMs: 0 (every waiting worker calls when a wait ends), keys under KEY_PREFIX + 'noprobe:'
//   redis-unpaced  the same with paceQuota: false (announced quotas ignored), keys under KEY_PREFIX + 'unpaced:'
//   redis-nocircuit the same with circuit: false (the retry budget alone), keys under KEY_PREFIX + 'nocircuit:'
//   memory         createMemoryStore(): probe and pacing within this process only
// PROBE_LEASE_MS, when set, is the probeLeaseMs of 'redis', 'redis-unpaced' and 'memory'.
//
// Ops: 'client' and 'fetch' (one request, maxWaitSeconds 0: a wait is handed back, not slept) and
// 'hammer'/'stop' (loops of such requests) for the store-sharing tests; 'loop'/'endLoop' and
// 'batch' (requests under the client's default rules: a told or remembered wait of up to 30 s is
// slept out) for the probe and quota tests and bench/fleet.ts; 'calls' (the calls to sites in
// flight right now, to see a worker mid-call) and 'status'.
import { fileURLToPath } from 'node:url';
import { createClient, createCluster } from 'redis';
import { createAgentClient, type AgentClient } from '../../src/agent/client.js';
import { abortableSleep } from '../../src/agent/policy.js';
import { fetchPage } from '../../src/agent/fetcher.js';
import { createRedisStore, type RedisStore, type RedisStoreOptions } from '../../src/agent/redis-store.js';
import { createMemoryStore, type MemoryStoreOptions, type PacingOptions, type Store } from '../../src/agent/store.js';

export type StoreKind = 'redis' | 'redis-noprobe' | 'redis-unpaced' | 'redis-nocircuit' | 'memory';

export type Command =
  | { op: 'hammer'; targets: { url: string; store: StoreKind }[]; intervalMs: number }
  | { op: 'stop' }
  | { op: 'client'; url: string; store: StoreKind }
  | { op: 'fetch'; url: string; store: StoreKind }
  | { op: 'status' }
  /** Starts requesting `url` one request after another, `pauseMs` (random, default 20-80) apart, until endLoop; answers null at once. One loop per url. */
  | { op: 'loop'; url: string; store: StoreKind; pauseMs?: readonly [number, number] }
  /** Ends the loop on `url`, aborting the request in flight (its sleep or call), and answers its LoopReport. */
  | { op: 'endLoop'; url: string }
  /** Sends `count` requests to `url` one after another and answers a BatchReport when the last has ended. */
  | { op: 'batch'; url: string; store: StoreKind; count: number }
  /** The calls to sites this worker has in flight now: CallsReport. */
  | { op: 'calls' };

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

/** One request of a loop or batch under the default rules; times on the host clock. */
export interface RequestRecord {
  /** When client.fetch was called. */
  readonly started: number;
  /** When it returned. */
  readonly ended: number;
  readonly ok: boolean;
  /** The status of the site's last answer; null when the request was answered from the store, or no answer came. */
  readonly status: number | null;
  /** The error's code when not ok. */
  readonly code: string | null;
  /** The error came from the store: no call was made. */
  readonly remembered: boolean;
  /** When each call to the site began (0, 1 or 2 of them). */
  readonly calls: readonly number[];
  /** What held the request back, the failure's throttled.by ('retry_budget', 'circuit'), or null. */
  readonly throttled: string | null;
}

export interface LoopReport {
  readonly url: string;
  readonly store: StoreKind;
  /** The requests that ended, in order. */
  readonly requests: RequestRecord[];
  /** The request endLoop aborted (mid-sleep or mid-call), if one was in flight; the calls it had begun. */
  readonly aborted: { readonly started: number; readonly calls: readonly number[] } | null;
}

export interface BatchReport {
  readonly url: string;
  readonly store: StoreKind;
  readonly requests: RequestRecord[];
  /** When the last request ended, host clock. */
  readonly ended: number;
}

export interface CallsReport {
  /** Calls to sites begun and not yet answered, with when each began. */
  readonly inFlight: { readonly url: string; readonly since: number }[];
  /** Calls to sites made by loops and batches so far. */
  readonly made: number;
}

/** This host's clock with sub-ms resolution, comparable between processes (test/helpers/fleet.ts has the same). */
export const hostNow = (): number => performance.timeOrigin + performance.now();

export interface Status {
  readonly ready: boolean;
  /** The 'redis' store's state. */
  readonly degraded: boolean;
  /** What the 'redis' store's onFallback was told. */
  readonly fallbacks: string[];
  /** How often the 'redis' store's onRecover was called. */
  readonly recoveries: number;
  /** onFallback calls of the other Redis stores ('redis-noprobe', 'redis-unpaced'), when any were made. */
  readonly otherFallbacks: number;
  readonly problems: string[];
}

// Only when this file runs as the worker; a module that imports its types runs nothing.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) await main();

async function main(): Promise<void> {
  const problems: string[] = [];
  process.on('unhandledRejection', (reason) => problems.push(`unhandled rejection: ${String(reason)}`));
  process.on('uncaughtException', (error) => problems.push(`uncaught exception: ${String(error)}`));

  const lease = process.env.PROBE_LEASE_MS;
  const probe: PacingOptions = lease === undefined || lease === '' ? {} : { probeLeaseMs: Number(lease) };
  const prefix = process.env.KEY_PREFIX ?? 'agent-errors:';

  const fallbacks: string[] = [];
  let recoveries = 0;
  let otherFallbacks = 0;
  // No 'error' listener of the worker's own: the store's must be enough to keep the process alive.
  // REDIS_CLUSTER_URLS (space-separated) puts the worker on a Redis Cluster instead of REDIS_URL.
  const socket = { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 300) };
  const clusterUrls = process.env.REDIS_CLUSTER_URLS?.split(' ').filter(Boolean);
  const redis = clusterUrls?.length
    ? await createCluster({ rootNodes: clusterUrls.map((url) => ({ url })), defaults: { socket } }).connect()
    : await createClient({ url: process.env.REDIS_URL, socket }).connect();
  const redisOptions = (more: PacingOptions & { prefix: string }, primary: boolean): RedisStoreOptions => ({
    onFallback: primary ? (error) => void fallbacks.push(error instanceof Error ? error.message : String(error)) : () => void (otherFallbacks += 1),
    onRecover: primary ? () => void (recoveries += 1) : () => {},
    ...more,
  });
  const redisStore: RedisStore = createRedisStore(redis, redisOptions({ prefix, ...probe }, true));
  const makers: Record<StoreKind, () => Store> = {
    redis: () => redisStore,
    'redis-noprobe': () => createRedisStore(redis, redisOptions({ prefix: `${prefix}noprobe:`, probeLeaseMs: 0 }, false)),
    'redis-unpaced': () => createRedisStore(redis, redisOptions({ prefix: `${prefix}unpaced:`, ...probe, paceQuota: false }, false)),
    'redis-nocircuit': () => createRedisStore(redis, redisOptions({ prefix: `${prefix}nocircuit:`, ...probe, circuit: false }, false)),
    memory: () => createMemoryStore({ ...probe } satisfies MemoryStoreOptions),
  };
  const made = new Map<StoreKind, Store>();
  const storeOf = (kind: StoreKind): Store => {
    if (!(kind in makers)) throw new Error(`unknown store kind ${kind}`);
    if (!made.has(kind)) made.set(kind, makers[kind]());
    return made.get(kind)!;
  };

  // The looks and writes of each store, per key (the origin), while hammering.
  const events = new Map<string, { misses: number[]; learnt: number[] }>();
  const eventsOf = (key: string) => events.get(key) ?? (events.set(key, { misses: [], learnt: [] }), events.get(key)!);
  // The store itself underneath (as the prototype), so whatever else it has, and `this`, stay its own.
  // A store with admit and settle is asked through them (a look that lets a request call is a miss,
  // a settle that shares a wait is a write); one without, through getBackoff and setBackoff.
  function watched(kind: StoreKind): Store {
    const store = storeOf(kind);
    const noted = (key: string) => eventsOf(`${kind} ${key}`);
    const overrides: Partial<Store> = {
      getBackoff: async (key) => {
        const began = hostNow();
        const backoff = await store.getBackoff(key);
        if (!backoff) noted(key).misses.push(began);
        return backoff;
      },
      setBackoff: async (key, backoff) => {
        await store.setBackoff(key, backoff);
        noted(key).learnt.push(hostNow());
      },
    };
    if (store.admit && store.settle) {
      const { admit, settle } = { admit: store.admit.bind(store), settle: store.settle.bind(store) };
      Object.assign(overrides, {
        admit: async (key: string, ask?: Parameters<typeof admit>[1]) => {
          const began = hostNow();
          const admission = await admit(key, ask);
          if (admission.kind === 'call') noted(key).misses.push(began);
          return admission;
        },
        settle: async (key: string, settlement: Parameters<typeof settle>[1]) => {
          await settle(key, settlement);
          if (settlement.wait) noted(key).learnt.push(hostNow());
        },
      } satisfies Partial<Store>);
    }
    return Object.assign(Object.create(store) as Store, overrides);
  }
  // A wait is handed back at once rather than slept, so every request is one look at the store and
  // at most one call to the site.
  const quick = new Map<StoreKind, AgentClient>();
  const quickClient = (kind: StoreKind): AgentClient => {
    if (!quick.has(kind)) quick.set(kind, createAgentClient({ store: watched(kind), maxWaitSeconds: 0 }));
    return quick.get(kind)!;
  };

  let stopping = false;
  const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  async function hammer(url: string, store: StoreKind, intervalMs: number): Promise<HammerReport> {
    let sent = 0;
    let remembered = 0;
    events.delete(`${store} ${new URL(url).origin}`);
    const client = quickClient(store);
    // A random phase, as workers that started at different times would have.
    await pause(Math.random() * intervalMs);
    while (!stopping) {
      const result = await client.fetch(url);
      if (!result.ok && result.remembered) remembered += 1;
      else sent += 1;
      await pause(intervalMs * (0.5 + Math.random()));
    }
    return { url, store, sent, remembered, ...eventsOf(`${store} ${new URL(url).origin}`) };
  }

  let hammering: Promise<HammerReport[]> | undefined;

  // Loops and batches: requests under the client's default rules, on the process's store of a kind,
  // each through a client of its own whose fetch notes every call.
  const inFlight = new Set<{ url: string; since: number }>();
  let callsMade = 0;
  function recordingClient(kind: StoreKind, onCall: (at: number) => void): AgentClient {
    return createAgentClient({
      store: storeOf(kind),
      fetch: async (input, init) => {
        const call = { url: String(input instanceof Request ? input.url : input), since: hostNow() };
        callsMade += 1;
        onCall(call.since);
        inFlight.add(call);
        try {
          return await globalThis.fetch(input, init);
        } finally {
          inFlight.delete(call);
        }
      },
    });
  }

  /** One request; the calls it makes go to `calls`. */
  async function request(client: AgentClient, url: string, calls: number[], signal?: AbortSignal): Promise<RequestRecord> {
    const started = hostNow();
    const result = await client.fetch(url, signal ? { signal } : undefined);
    const ended = hostNow();
    if (result.ok) {
      await result.response.arrayBuffer().catch(() => undefined);
      return { started, ended, ok: true, status: result.response.status, code: null, remembered: false, calls: [...calls], throttled: null };
    }
    await result.response?.arrayBuffer().catch(() => undefined);
    return { started, ended, ok: false, status: result.response?.status ?? null, code: result.error.code, remembered: result.remembered ?? false, calls: [...calls], throttled: result.throttled?.by ?? null };
  }

  const loops = new Map<string, { controller: AbortController; done: Promise<LoopReport> }>();

  function startLoop(url: string, kind: StoreKind, [min, max]: readonly [number, number]): void {
    if (loops.has(url)) throw new Error(`a loop on ${url} is running already`);
    const controller = new AbortController();
    let calls: number[] = [];
    const client = recordingClient(kind, (at) => calls.push(at));
    const run = async (): Promise<LoopReport> => {
      const requests: RequestRecord[] = [];
      while (!controller.signal.aborted) {
        calls = [];
        const started = hostNow();
        try {
          requests.push(await request(client, url, calls, controller.signal));
        } catch (error) {
          if (controller.signal.aborted) return { url, store: kind, requests, aborted: { started, calls: [...calls] } };
          throw error;
        }
        try {
          await abortableSleep(min + Math.random() * (max - min), controller.signal);
        } catch {
          break;
        }
      }
      return { url, store: kind, requests, aborted: null };
    };
    loops.set(url, { controller, done: run() });
  }

  async function endLoop(url: string): Promise<LoopReport> {
    const loop = loops.get(url);
    if (!loop) throw new Error(`no loop on ${url}`);
    loops.delete(url);
    loop.controller.abort(new Error('loop ended'));
    return loop.done;
  }

  async function batch(url: string, kind: StoreKind, count: number): Promise<BatchReport> {
    let calls: number[] = [];
    const client = recordingClient(kind, (at) => calls.push(at));
    const requests: RequestRecord[] = [];
    for (let i = 0; i < count; i++) {
      calls = [];
      requests.push(await request(client, url, calls));
    }
    return { url, store: kind, requests, ended: requests.at(-1)?.ended ?? hostNow() };
  }

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
        const result = await quickClient(command.store).fetch(command.url);
        return result.ok ? { ok: true, status: result.response.status } : { ok: false, code: result.error.code, retry_after: result.error.retry_after, remembered: result.remembered ?? false, learnt: result.learnt ?? null };
      }
      case 'fetch': {
        const { headers: _headers, ...rest } = { headers: undefined, ...(await fetchPage(command.url, { store: storeOf(command.store), maxWaitSeconds: 0 })) };
        return rest;
      }
      case 'status':
        return { ready: redis.isReady, degraded: redisStore.degraded, fallbacks, recoveries, otherFallbacks, problems } satisfies Status;
      case 'loop':
        storeOf(command.store);
        startLoop(command.url, command.store, command.pauseMs ?? [20, 80]);
        return null;
      case 'endLoop':
        return endLoop(command.url);
      case 'batch':
        return batch(command.url, command.store, command.count);
      case 'calls':
        return { inFlight: [...inFlight], made: callsMade } satisfies CallsReport;
      default:
        throw new Error(`unknown op ${(command as { op: string }).op}`);
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
}
