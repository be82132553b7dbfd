// One agent worker process of bench/fleet.ts's outage part: L request loops (default 5) against a
// site, through one of five clients, until told to stop; each loop pauses 20-80 ms (random)
// between requests. startOutageFleet (below) forks it as test/helpers/fleet.ts's startWorker forks
// its worker (`node --import tsx`, IPC); it answers each message { id, op, ... } with
// { id, result } or { id, error }, and notes unhandled rejections instead of dying of them.
//
// Clients, one instance per process and site (so the loops of a process share it, as the requests
// of one service share their client), each calling through `fetch` wrapped to count the calls of
// each request:
//   ours       createAgentClient({ store, fetch }) from src/agent/client.ts on
//              createRedisStore(redis, { prefix: KEY_PREFIX }): its defaults (the retry budget and
//              the shared circuit on); onFallback is set only to count fallbacks for the report
//   ours-off   the same on createRedisStore(redis, { prefix: KEY_PREFIX + 'off:', retryBudget: false,
//              circuit: false }): this package as it was
//   cockatiel  wrap(retry(handleWhen(5xx or network error), { maxAttempts: 1, backoff: new
//              ExponentialBackoff() }), circuitBreaker(the same, { halfOpenAfter: 10_000, breaker: new
//              ConsecutiveBreaker(5) })), as cockatiel's README composes them; the action throws on a 5xx
//   opossum    new CircuitBreaker(action, { timeout: 3000, errorThresholdPercentage: 50,
//              resetTimeout: 30000 }), the options of opossum's README; the action throws on a 5xx.
//              opossum has no retry: a failure other than the breaker's own is fired once more, at
//              once, while the breaker is closed (what a caller adds by hand)
//   smithy     @smithy/util-retry's StandardRetryStrategy({ maxAttempts: 3 }) (the AWS SDK's default
//              standard mode, its retry quota included), driven as the SDK's retry middleware drives
//              it: acquireInitialRetryToken(scope), on a failure refreshRetryTokenForRetry(token,
//              { errorType }) (which sleeps the backoff, and throws when no retry is left) and then
//              the token's delay, recordSuccess(token) on a success
//
// Ops: 'try' (one request; makes the client, so a client that cannot be made fails here),
// 'start' (the loops on a url), 'stop' (ends them, aborting the request in flight, and answers an
// OutageLoopReport), 'status'. Env: REDIS_URL, KEY_PREFIX.
import { AsyncLocalStorage } from 'node:async_hooks';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MAX_ATTEMPTS, StandardRetryStrategy } from '@smithy/util-retry';
import { circuitBreaker, ConsecutiveBreaker, ExponentialBackoff, handleWhen, retry, wrap } from 'cockatiel';
import CircuitBreaker from 'opossum';
import { createClient } from 'redis';
import { createAgentClient, type AgentClient } from '../src/agent/client.js';
import { createRedisStore, type RedisStoreOptions } from '../src/agent/redis-store.js';
import { abortableSleep } from '../src/agent/policy.js';
import { forkWorker, type Worker } from '../test/helpers/fleet.js';

export type ClientKind = 'ours' | 'ours-off' | 'cockatiel' | 'opossum' | 'smithy';
export const CLIENT_KINDS: readonly ClientKind[] = ['ours', 'ours-off', 'cockatiel', 'opossum', 'smithy'];

export type OutageCommand =
  /** One request to `url` through `client` (made now if it is not yet): an OutageRequest. */
  | { op: 'try'; url: string; client: ClientKind }
  /** Starts `loops` (default 5) request loops on `url`, `pauseMs` (random, default 20-80) between requests; answers null at once. One run per url. */
  | { op: 'start'; url: string; client: ClientKind; loops?: number; pauseMs?: readonly [number, number] }
  /** Ends the loops on `url`, aborting the requests in flight, and answers their OutageLoopReport. */
  | { op: 'stop'; url: string }
  | { op: 'status' };

/** One request of a loop; times on the host clock (performance.timeOrigin + performance.now(), as the bench reads it). */
export interface OutageRequest {
  readonly started: number;
  readonly ended: number;
  readonly ok: boolean;
  /** The status of the last answer the site gave this request; null when no call was made or none was answered. */
  readonly status: number | null;
  /** Calls to the site the request made (0 when a breaker or a store answered it). */
  readonly calls: number;
  /** ours: the failure came from the store, without a call (`remembered` of the failure). */
  readonly remembered: boolean;
  /** ours: what held the request back, the failure's `throttled.by` ('retry_budget': a retry not made; 'circuit': no call made), when the client set it. */
  readonly throttled: string | null;
}

export interface OutageLoopReport {
  readonly url: string;
  readonly client: ClientKind;
  /** The requests that ended, every loop's, in no particular order. */
  readonly requests: OutageRequest[];
  /** The requests stop aborted in flight: when each began and the calls it had made. */
  readonly aborted: { readonly started: number; readonly calls: number }[];
}

export interface OutageStatus {
  readonly problems: string[];
  /** Each time a Redis store (ours, ours-off) fell back to its memory store (a Redis command failed or took over its 250 ms), when and why. */
  readonly fallbacks: { readonly client: 'ours' | 'ours-off'; readonly at: number; readonly message: string }[];
}

/** This host's clock with sub-ms resolution, comparable between processes (test/helpers/fleet.ts has the same). */
const hostNow = (): number => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------------------------------------
// The parent's side: forking workers

/** A worker of the outage part: a fleet worker (test/helpers/fleet.ts's forkWorker) taking OutageCommands. */
export type OutageWorker = Worker<OutageCommand>;

const WORKER = fileURLToPath(import.meta.url);

/** Forks one worker on the Redis at `redisUrl`, its stores under `prefix`; resolves once it is connected and ready. */
export function startOutageWorker(redisUrl: string, prefix: string): Promise<OutageWorker> {
  return forkWorker<OutageCommand>(WORKER, { REDIS_URL: redisUrl, KEY_PREFIX: prefix }, 'outage worker');
}

/** `count` workers on one Redis and prefix, started together. */
export function startOutageFleet(count: number, redisUrl: string, prefix: string): Promise<OutageWorker[]> {
  return Promise.all(Array.from({ length: count }, () => startOutageWorker(redisUrl, prefix)));
}

// ---------------------------------------------------------------------------------------------
// The worker's side

// Only when this file runs as the worker; a module that imports it runs nothing.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) await main();

/** What one request through a client came to; the calls are counted around it. */
interface Outcome {
  readonly ok: boolean;
  readonly status: number | null;
  readonly remembered?: boolean;
  readonly throttled?: string | null;
}

type Caller = (url: string, signal: AbortSignal) => Promise<Outcome>;

/** A 5xx (or other error status) the peers' actions throw, so their policies see a failure. */
class StatusError extends Error {
  constructor(readonly status: number) {
    super(`the site answered ${status}`);
  }
}

/** What undici's fetch throws when no answer came (a refused connection, a reset): a TypeError, not an abort. */
const isNetworkError = (error: unknown): boolean => error instanceof TypeError;


/** `promise`, or a rejection as soon as `signal` aborts (as the SDK's retry middleware races its token calls). */
function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  let onAbort = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([promise, aborted]).finally(() => signal.removeEventListener('abort', onAbort));
}

async function main(): Promise<void> {
  const problems: string[] = [];
  process.on('unhandledRejection', (reason) => problems.push(`unhandled rejection: ${String(reason)}`));
  process.on('uncaughtException', (error) => problems.push(`uncaught exception: ${String(error)}`));
  const prefix = process.env.KEY_PREFIX ?? 'agent-errors:';
  const redis = await createClient({ url: process.env.REDIS_URL, socket: { connectTimeout: 1000, reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 300) } }).connect();

  // The calls of the request running in this async context: every client calls through countingFetch.
  const callsOf = new AsyncLocalStorage<{ calls: number }>();
  const countingFetch: typeof fetch = (input, init) => {
    const counter = callsOf.getStore();
    if (counter) counter.calls += 1;
    return globalThis.fetch(input, init);
  };

  // The stores of ours and ours-off, one of each per process (made when first used), shared by every site's client.
  // `retryBudget` and `circuit` are options being added to createRedisStore; a store that does not
  // take them yet throws here ("unknown option"), the 'try' op fails, and the bench's row says so.
  // onFallback only notes the fallback for the bench (its default is a console.warn line); it changes nothing the store does.
  const fallbacks: OutageStatus['fallbacks'] = [];
  const stores = new Map<'ours' | 'ours-off', ReturnType<typeof createRedisStore>>();
  const storeOf = (kind: 'ours' | 'ours-off') => {
    if (!stores.has(kind)) {
      const onFallback = (error: unknown): void => void fallbacks.push({ client: kind, at: hostNow(), message: error instanceof Error ? error.message : String(error) });
      const options = kind === 'ours' ? { prefix, onFallback, onRecover: () => {} } : ({ prefix: `${prefix}off:`, retryBudget: false, circuit: false, onFallback, onRecover: () => {} } as RedisStoreOptions);
      stores.set(kind, createRedisStore(redis, options));
    }
    return stores.get(kind)!;
  };

  function oursCaller(kind: 'ours' | 'ours-off'): Caller {
    const client: AgentClient = createAgentClient({ store: storeOf(kind), fetch: countingFetch });
    return async (url, signal) => {
      const result = await client.fetch(url, { signal });
      if (result.ok) {
        await result.response.arrayBuffer().catch(() => undefined);
        return { ok: true, status: result.response.status };
      }
      await result.response?.arrayBuffer().catch(() => undefined);
      return {
        ok: false,
        status: result.response?.status ?? null,
        remembered: result.remembered === true,
        // Read by shape: `throttled` ({ by, scope, counts }) is being added to the failure.
        throttled: (result as { throttled?: { by?: unknown } }).throttled ? String((result as { throttled: { by?: unknown } }).throttled.by) : null,
      };
    };
  }

  /** One call: the site's status, or a StatusError thrown for 400 and above. */
  async function call(url: string, signal: AbortSignal): Promise<number> {
    const response = await countingFetch(url, { signal });
    await response.arrayBuffer();
    if (response.status >= 400) throw new StatusError(response.status);
    return response.status;
  }

  /** A peer's failure as an Outcome; an abort is rethrown (the loop is ending). */
  function failed(error: unknown, signal: AbortSignal): Outcome {
    if (signal.aborted) throw error;
    return { ok: false, status: error instanceof StatusError ? error.status : null };
  }

  function cockatielCaller(): Caller {
    // cockatiel's README (readme.md, its first example): retry(...) wrapped around circuitBreaker(handleAll,
    // { halfOpenAfter: 10 * 1000, breaker: new ConsecutiveBreaker(5) }) with wrap(retryPolicy, circuitBreakerPolicy).
    // handleWhen rather than handleAll: a 5xx or a network error is a failure; an abort, or the
    // breaker's own BrokenCircuitError, is not retried.
    const failures = handleWhen((error) => error instanceof StatusError ? error.status >= 500 : isNetworkError(error));
    const policy = wrap(
      retry(failures, { maxAttempts: 1, backoff: new ExponentialBackoff() }),
      circuitBreaker(failures, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
    );
    return async (url, signal) => {
      try {
        return { ok: true, status: await policy.execute(({ signal: inner }) => call(url, inner), signal) };
      } catch (error) {
        return failed(error, signal);
      }
    };
  }

  function opossumCaller(): Caller {
    // opossum's README, Usage: { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30000 }.
    const breaker = new CircuitBreaker(call, { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30000 });
    return async (url, signal) => {
      try {
        return { ok: true, status: await breaker.fire(url, signal) };
      } catch (error) {
        // No retry in opossum: once more, at once, when the call itself failed and the breaker is still closed.
        if (signal.aborted || CircuitBreaker.isOurError(error as Error) || !breaker.closed) return failed(error, signal);
        try {
          return { ok: true, status: await breaker.fire(url, signal) };
        } catch (again) {
          return failed(again, signal);
        }
      }
    };
  }

  function smithyCaller(): Caller {
    // As the SDK makes its default (@smithy/core retry's resolveRetryConfig: new StandardRetryStrategy({ maxAttempts, baseDelay }), maxAttempts 3).
    const strategy = new StandardRetryStrategy({ maxAttempts: DEFAULT_MAX_ATTEMPTS });
    type Token = Awaited<ReturnType<typeof strategy.acquireInitialRetryToken>>;
    return async (url, signal) => {
      // The SDK's retry middleware (bindRetryMiddleware): the scope is the partition id, '' when there is none.
      let token: Token = await raceAbort(strategy.acquireInitialRetryToken(''), signal);
      for (;;) {
        let status: number | null = null;
        try {
          status = await call(url, signal);
          strategy.recordSuccess(token);
          return { ok: true, status };
        } catch (error) {
          if (signal.aborted) throw error;
          status = error instanceof StatusError ? error.status : null;
        }
        // getRetryErrorType: 429 THROTTLING; 500, 502, 503, 504 and refused or reset connections
        // TRANSIENT (isTransientError); any other 5xx SERVER_ERROR; the rest CLIENT_ERROR.
        const errorType = status === 429 ? 'THROTTLING' : status === null || [500, 502, 503, 504].includes(status) ? 'TRANSIENT' : status >= 500 ? 'SERVER_ERROR' : 'CLIENT_ERROR';
        try {
          token = await raceAbort(strategy.refreshRetryTokenForRetry(token, { errorType }), signal);
        } catch (refused) {
          if (signal.aborted) throw refused;
          return { ok: false, status };
        }
        const delay = token.getRetryDelay();
        if (delay > 0) await abortableSleep(delay, signal);
      }
    };
  }

  const callers = new Map<string, Caller>();
  function callerOf(kind: ClientKind, url: string): Caller {
    const key = `${kind} ${new URL(url).origin}`;
    if (!callers.has(key)) {
      const make: Record<ClientKind, () => Caller> = {
        ours: () => oursCaller('ours'),
        'ours-off': () => oursCaller('ours-off'),
        cockatiel: cockatielCaller,
        opossum: opossumCaller,
        smithy: smithyCaller,
      };
      if (!(kind in make)) throw new Error(`unknown client ${kind}`);
      callers.set(key, make[kind]());
    }
    return callers.get(key)!;
  }

  /** One request through `caller`, its calls counted. */
  async function request(caller: Caller, url: string, signal: AbortSignal, counter: { calls: number }): Promise<OutageRequest> {
    const started = hostNow();
    const outcome = await callsOf.run(counter, () => caller(url, signal));
    return {
      started,
      ended: hostNow(),
      ok: outcome.ok,
      status: outcome.status,
      calls: counter.calls,
      remembered: outcome.remembered ?? false,
      throttled: outcome.throttled ?? null,
    };
  }

  const runs = new Map<string, { controller: AbortController; client: ClientKind; done: Promise<{ requests: OutageRequest[]; aborted: OutageLoopReport['aborted'] }[]> }>();

  function start(url: string, kind: ClientKind, loops: number, [min, max]: readonly [number, number]): void {
    if (runs.has(url)) throw new Error(`loops on ${url} are running already`);
    const caller = callerOf(kind, url);
    const controller = new AbortController();
    const { signal } = controller;
    const loop = async () => {
      const requests: OutageRequest[] = [];
      const aborted: { started: number; calls: number }[] = [];
      while (!signal.aborted) {
        const counter = { calls: 0 };
        const started = hostNow();
        try {
          requests.push(await request(caller, url, signal, counter));
        } catch (error) {
          if (signal.aborted) {
            aborted.push({ started, calls: counter.calls });
            break;
          }
          // A client that throws rather than answering: noted once, and the request counted as failed.
          const problem = `${kind} threw: ${error instanceof Error ? error.message : String(error)}`;
          if (!problems.includes(problem)) problems.push(problem);
          requests.push({ started, ended: hostNow(), ok: false, status: null, calls: counter.calls, remembered: false, throttled: null });
        }
        try {
          await abortableSleep(min + Math.random() * (max - min), signal);
        } catch {
          break;
        }
      }
      return { requests, aborted };
    };
    runs.set(url, { controller, client: kind, done: Promise.all(Array.from({ length: loops }, loop)) });
  }

  async function stop(url: string): Promise<OutageLoopReport> {
    const run = runs.get(url);
    if (!run) throw new Error(`no loops on ${url}`);
    runs.delete(url);
    run.controller.abort(new Error('loops ended'));
    const loops = await run.done;
    return { url, client: run.client, requests: loops.flatMap((l) => l.requests), aborted: loops.flatMap((l) => l.aborted) };
  }

  async function handle(command: OutageCommand): Promise<unknown> {
    switch (command.op) {
      case 'try':
        return request(callerOf(command.client, command.url), command.url, new AbortController().signal, { calls: 0 });
      case 'start':
        start(command.url, command.client, command.loops ?? 5, command.pauseMs ?? [20, 80]);
        return null;
      case 'stop':
        return stop(command.url);
      case 'status':
        return { problems, fallbacks } satisfies OutageStatus;
      default:
        throw new Error(`unknown op ${(command as { op: string }).op}`);
    }
  }

  process.on('message', (message: { id: number } & OutageCommand) => {
    handle(message).then(
      (result) => process.send!({ id: message.id, result }),
      (error: unknown) => process.send!({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
  process.send!({ ready: true });
}
