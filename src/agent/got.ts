// The client's rules as a got plug-in, for agents that call sites through got (which takes no
// fetch): got.extend(agentGot()) waits a delay the error response gives, in a header or the body,
// once; retries a `once` error one time for idempotent requests; sleeps out a wait the origin asked
// for earlier; remembers what each origin asked for; and hands everything else back as got's error.
import type { ExtendOptions, Options, Response, RetryObject } from 'got';
import type { EnvelopeError } from '../../generated/types.js';
import { fromResponse } from '../core/from-response.js';
import { abortableSleep, admit, allowance, freshAttempts, isIdempotent, nextWait, remember, scoper, settle, type AgentClientOptions, type Allowance, type Attempts, type Pass } from './policy.js';
import { defaultStore } from './store.js';

/** Options of agentGot: the client's, but for the fetch and Accept, which got's own options set; got sleeps a told wait itself, `sleep` a remembered one. */
export type AgentGotOptions = Pick<AgentClientOptions, 'maxWaitSeconds' | 'budget' | 'sleep' | 'now' | 'store' | 'unknownDelay' | 'scope'>;

/** One request's allowance and progress, kept in its got context: got copies the context into the options of each retry. */
interface Progress {
  readonly allowed: Allowance;
  readonly attempts: Attempts;
  /** The store key of the request's site, once known. */
  key?: string;
  /** What the store let the current call do, until its answer is reported. */
  pass?: Pass | undefined;
  /** The error the current call's response was read as, by afterResponse for calculateDelay. */
  found?: EnvelopeError | undefined;
}
const PROGRESS = Symbol('agent-errors');

/**
 * Options for got.extend that put the client's rules behind got's retry: `retry.calculateDelay`
 * reads each error response through fromResponse (headers and body) and returns the delay it asks
 * for, or 0 (got's "do not retry") for anything the catalog says not to retry, a wait with no
 * delay (unless `unknownDelay: 'backoff'`), a second wait, or sleeping past `maxWaitSeconds` in
 * all. got's own Retry-After handling only computes the value this ignores, so nothing is waited
 * twice. A request that gets no response is handed back, as the client does. A `beforeRequest`
 * hook sleeps out a wait the origin asked for earlier when it fits, counting against the same
 * allowance.
 * @example const client = got.extend(agentGot({ maxWaitSeconds: 30 }));
 */
export function agentGot(options: AgentGotOptions = {}): ExtendOptions {
  const sleep = options.sleep ?? abortableSleep;
  const now = options.now ?? Date.now;
  const store = options.store ?? defaultStore();
  const scopeOf = scoper(options.scope);

  /** The progress of the request `got` is running with these options, begun on its first call. */
  const progressOf = (got: Pick<Options, 'context' | 'method' | 'headers'>): Progress => {
    const context = got.context as Record<symbol, Progress | undefined>;
    return (context[PROGRESS] ??= {
      allowed: allowance(options, isIdempotent(got.method, got.headers)),
      attempts: freshAttempts(),
    });
  };

  return {
    retry: {
      // The rules decide alone: got's limit, methods and status codes only compute the value ignored here.
      enforceRetryRules: false,
      limit: allowance(options, false).budget - 1,
      async calculateDelay({ attemptCount, error, computedValue }: RetryObject): Promise<number> {
        // A retry the caller's own afterResponse hook asked for is got's to make.
        if (error.name === 'RetryError') return computedValue;
        const { response } = error;
        const progress = progressOf(error.options);
        if (!response) {
          // No answer came: a probe this call held is free for another caller.
          const { key, pass } = progress;
          progress.pass = undefined;
          if (key !== undefined && pass) await settle(store, key, pass, undefined, undefined, now());
          return 0;
        }
        if (response.statusCode < 400) return 0;
        const { allowed, attempts } = progress;
        attempts.calls = attemptCount;
        const found = progress.found ?? fromResponse(response.statusCode, response.headers, response.rawBody ?? response.body, { now: now() }).error;
        const seconds = nextWait(found, attempts, allowed);
        // got reads 0 as "do not retry", so a retry at once waits a millisecond.
        return seconds === null ? 0 : Math.max(1, seconds * 1000);
      },
    },
    hooks: {
      beforeRequest: [
        async (got) => {
          if (!(got.url instanceof URL)) return;
          const progress = progressOf(got);
          progress.key = scopeOf(got.url);
          const answer = await admit({ store, key: progress.key, url: got.url, attempts: progress.attempts, allowed: progress.allowed, now, sleep, signal: got.signal });
          // A wait too long to take cannot be answered from memory here: got has no answer without
          // a call, so the call goes ahead, and the site says so again.
          progress.pass = 'pass' in answer ? answer.pass : undefined;
        },
      ],
      afterResponse: [
        async (response: Response) => {
          const progress = progressOf(response.request.options);
          const { key, pass } = progress;
          progress.pass = undefined;
          const found = response.statusCode >= 400 ? fromResponse(response.statusCode, response.headers, response.rawBody ?? response.body, { now: now() }).error : undefined;
          progress.found = found;
          if (key === undefined) return response;
          if (pass) await settle(store, key, pass, { headers: response.headers }, found, now());
          else if (found) await remember(store, key, found, now());
          return response;
        },
      ],
    },
  };
}
