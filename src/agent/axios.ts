// The client's rules as options for axios-retry, for agents that call sites through axios (which
// takes no fetch): axiosRetry(axios, agentRetryOptions()) waits a delay the error response gives,
// in a header or the body, once; retries a `once` error one time for idempotent requests;
// remembers what each origin asked for; and hands everything else back as axios's error.
import type { AxiosError, InternalAxiosRequestConfig } from 'axios';
import type { IAxiosRetryConfig } from 'axios-retry';
import { fromResponse } from '../core/from-response.js';
import type { HeadersInput } from '../core/headers.js';
import { allowance, freshAttempts, isIdempotent, nextWait, remember, type AgentClientOptions, type Allowance, type Attempts } from './policy.js';
import { defaultStore } from './store.js';

/** Options of agentRetryOptions: the client's, but for the fetch, Accept and sleep, which axios and axios-retry own. */
export type AgentAxiosOptions = Pick<AgentClientOptions, 'maxWaitSeconds' | 'budget' | 'now' | 'store' | 'unknownDelay'>;

/** One request's allowance and progress, and the wait retryCondition chose for retryDelay to give. */
interface Progress {
  readonly allowed: Allowance;
  readonly attempts: Attempts;
  seconds: number;
}
const PROGRESS = Symbol('agent-errors');
type Tracked = InternalAxiosRequestConfig & { [PROGRESS]?: Progress };

/**
 * Options for axios-retry that put the client's rules behind it: `retryCondition` reads each error
 * response through fromResponse (headers and `response.data`, parsed or not) and retries only when
 * the rules say wait or retry once; `retryDelay` gives the wait they chose, and nothing else (no
 * backoff of axios-retry's own). A request that gets no response is handed back, as the client does.
 * @example axiosRetry(axios, agentRetryOptions({ maxWaitSeconds: 30 }));
 */
export function agentRetryOptions(options: AgentAxiosOptions = {}): IAxiosRetryConfig {
  const now = options.now ?? Date.now;
  const store = options.store ?? defaultStore();

  /** The progress of the request `config` carries: axios-retry sends the same config again, and axios's merge copies the member. */
  const progressOf = (config: Tracked): Progress =>
    (config[PROGRESS] ??= {
      allowed: allowance(options, isIdempotent(config.method, config.headers as HeadersInput)),
      attempts: freshAttempts(),
      seconds: 0,
    });

  return {
    // retryCondition must see the last answer too, to remember what it asked for; nextWait keeps the calls within the budget.
    retries: allowance(options, false).budget,
    async retryCondition(error: AxiosError): Promise<boolean> {
      const { config, response } = error;
      if (!config || !response || response.status < 400) return false;
      const progress = progressOf(config);
      progress.attempts.calls += 1;
      const { error: found } = fromResponse(response.status, response.headers as HeadersInput, response.data, { now: now() });
      const [url, base] = [config.url ?? '', config.baseURL];
      if (URL.canParse(url, base)) await remember(store, new URL(url, base).origin, found, now());
      const seconds = nextWait(found, progress.attempts, progress.allowed);
      if (seconds !== null) progress.seconds = seconds;
      return seconds !== null;
    },
    retryDelay: (_retryCount, error) => (error.config ? progressOf(error.config).seconds * 1000 : 0),
  };
}
