// The clients agents use today, each alone (its library's retry defaults) and with this package's
// plug-in for it, and this package's client with its own defaults and with unknownDelay 'backoff';
// every adapter makes one GET and says how it ended: `ok` or what the caller was handed.
import axios, { isAxiosError } from 'axios';
import axiosRetry from 'axios-retry';
import got, { HTTPError as GotHTTPError } from 'got';
import ky, { HTTPError as KyHTTPError } from 'ky';
import { Agent, RetryAgent, errors as undiciErrors, request, type Dispatcher } from 'undici';
import { agentAxios } from '../../src/agent/axios.js';
import { createAgentClient, type AgentClientOptions } from '../../src/agent/client.js';
import { agentFetch } from '../../src/agent/drop-in.js';
import { agentGot } from '../../src/agent/got.js';
import { agentUndici } from '../../src/agent/undici.js';

/** One client under test. */
export interface Peer {
  /** The column name. */
  readonly name: string;
  /** The package whose version the notes print. */
  readonly pkg: string;
  /** What its defaults do, as read in `source`. */
  readonly defaults: string;
  /** The file under node_modules the defaults were read from. */
  readonly source: string;
  /** For a client with this package's plug-in: the name of the same client alone, whose calls it must not exceed. */
  readonly alone?: string;
  /** One GET of `url`: `ok`, or what the client surfaced. */
  readonly run: (url: string, signal: AbortSignal) => Promise<string>;
}

/** What a failed call surfaced: the error's class and status, or its class and code. */
export function surfaced(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string };
  return `${e?.name ?? 'Error'} ${e?.code ?? e?.message ?? ''}`.trim().slice(0, 40);
}

/**
 * `ok` when `call` resolves; when it rejects, what `describe` makes of the library's own error, and
 * any other error (a timeout, a bug) thrown on: each library's alone and plugged columns share one.
 */
export async function outcome(call: () => Promise<unknown>, describe: (error: unknown) => string | undefined): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (error) {
    const said = describe(error);
    if (said === undefined) throw error;
    return said;
  }
}

const kyError = (error: unknown) => (error instanceof KyHTTPError ? `HTTPError ${error.response.status}` : undefined);
const gotError = (error: unknown) => (error instanceof GotHTTPError ? `HTTPError ${error.response.statusCode}` : undefined);
const axiosError = (error: unknown) => (isAxiosError(error) && error.response ? `AxiosError ${error.response.status}` : undefined);

/** This package's client, with `options`, as a column. */
export const ourClient = (name: string, defaults: string, options: AgentClientOptions = {}, init: () => RequestInit = () => ({})): Peer => ({
  name,
  pkg: '@agent-index/errors',
  defaults,
  source: 'src/agent/client.ts',
  async run(url, signal) {
    const result = await createAgentClient(options).fetch(url, { ...init(), signal });
    if (result.ok) {
      await result.response.arrayBuffer();
      return 'ok';
    }
    const { code, retry_after } = result.error;
    return `${code}, ${retry_after === null ? 'no delay' : `wait ${retry_after}s`}`;
  },
});

const OURS_DEFAULTS =
  'createAgentClient(): at most 2 calls; waits a delay the response names (Retry-After, retry-after-ms, RateLimit, x-ratelimit-reset, or the body: retry_after, retry_after_seconds, RetryInfo) once when it is 30 s or less; a delay-less wait is handed back at once';

const ours = ourClient('this package', OURS_DEFAULTS);

const oursBackoff = ourClient(
  'this package, backoff',
  "createAgentClient({ unknownDelay: 'backoff' }): as above, but a wait with no delay is guessed on seed 002's doubling schedule (DEFAULT_BACKOFF, 1 s first) within the same 2 calls and 30 s in all",
  { unknownDelay: 'backoff' },
);

const oursBackoffLong = ourClient(
  'this package, backoff, budget 6',
  "createAgentClient({ unknownDelay: 'backoff', maxCalls: 6, maxWaitSeconds: 60 }): seed 002's body-reading loop as options, guesses of 1, 2, 4, 8 and 16 s within 6 calls and 60 s in all",
  { unknownDelay: 'backoff', maxCalls: 6, maxWaitSeconds: 60 },
);

const kyPeer: Peer = {
  name: 'ky',
  pkg: 'ky',
  defaults:
    'retry limit 2 (3 calls) for GET on 408/413/429/500/502/503/504; honours Retry-After (also RateLimit-Reset, X-RateLimit-Reset) on 413/429/503 with no cap (maxRetryAfter Infinity); else 0.3 s * 2^(n-1); 10 s per-request timeout',
  source: 'node_modules/ky/distribution/utils/normalize.js, core/Ky.js',
  run: (url, signal) => outcome(async () => (await ky.get(url, { signal })).arrayBuffer(), kyError),
};

const gotPeer: Peer = {
  name: 'got',
  pkg: 'got',
  defaults:
    'retry limit 2 (3 calls) for GET on 408/413/429/500/502/503/504/521/522/524; honours Retry-After on any of them, capped by timeout.request (unset, so no cap); else 1 s * 2^(n-1) + up to 100 ms noise',
  source: 'node_modules/got/dist/source/core/options.js, core/calculate-retry-delay.js, core/index.js',
  run: (url, signal) => outcome(() => got(url, { signal }), gotError),
};

const undiciPeer: Peer = {
  name: 'undici RetryAgent',
  pkg: 'undici',
  defaults:
    'new RetryAgent(new Agent()): maxRetries 5 (6 calls) for GET on 429/500/502/503/504; honours Retry-After capped at maxTimeout 30 s; else 0.5 s * 2^(n-1) up to 30 s; throwOnError true',
  source: 'node_modules/undici/lib/handler/retry-handler.js, lib/dispatcher/retry-agent.js',
  async run(url, signal) {
    const dispatcher = new RetryAgent(new Agent());
    try {
      const response = await request(url, { dispatcher, signal });
      await response.body.arrayBuffer();
      return response.statusCode < 400 ? 'ok' : `${response.statusCode} returned`;
    } catch (error) {
      if (error instanceof undiciErrors.RequestRetryError) return `RequestRetryError ${error.statusCode}`;
      throw error;
    } finally {
      await dispatcher.close();
    }
  },
};

const axiosPeer: Peer = {
  name: 'axios-retry',
  pkg: 'axios-retry',
  defaults:
    'axiosRetry(axios.create()): retries 3 (4 calls) for GET/HEAD/OPTIONS/PUT/DELETE on 429, 5xx and network errors; retryDelay noDelay: the Retry-After delay with no cap, else 0 s',
  source: 'node_modules/axios-retry/dist/esm/index.js',
  async run(url, signal) {
    const instance = axios.create();
    axiosRetry(instance);
    return outcome(() => instance.get(url, { signal }), axiosError);
  },
};

const PLUGIN = 'this package\'s plug-in with its defaults (at most 2 calls; a delay from a header or the body waited once when it is 30 s or less; a delay-less wait handed back)';

const kyPlugged: Peer = {
  name: 'ky + agentFetch',
  pkg: 'ky',
  alone: 'ky',
  defaults: `ky.create({ fetch: agentFetch(), retry: 0, timeout: false }): ${PLUGIN}; ky's own retries off so no rule runs twice, and its 10 s per-request timeout off, since the plug-in's wait happens inside one fetch call and the timeout would cut a 30 s wait short`,
  source: 'src/agent/drop-in.ts',
  run: (url, signal) => outcome(async () => (await ky.get(url, { fetch: agentFetch(), retry: 0, timeout: false, signal })).arrayBuffer(), kyError),
};

const gotPlugged: Peer = {
  name: 'got + agentGot',
  pkg: 'got',
  alone: 'got',
  defaults: `got.extend(agentGot()): ${PLUGIN}; got's own retry rules off (enforceRetryRules false), got sleeps the delay the plug-in returns`,
  source: 'src/agent/got.ts',
  run: (url, signal) => outcome(() => got.extend(agentGot())(url, { signal }), gotError),
};

const undiciPlugged: Peer = {
  name: 'undici + agentUndici',
  pkg: 'undici',
  alone: 'undici RetryAgent',
  defaults: `new Agent().compose(agentUndici()) in place of the RetryAgent (beside it, the RetryAgent would retry what the rules hand back and double the calls): ${PLUGIN}; undici's request() hands the final response over without throwing`,
  source: 'src/agent/undici.ts',
  async run(url, signal) {
    const agent = new Agent();
    const dispatcher: Dispatcher = agent.compose(agentUndici());
    try {
      const response = await request(url, { dispatcher, signal });
      await response.body.arrayBuffer();
      return response.statusCode < 400 ? 'ok' : `${response.statusCode} returned`;
    } finally {
      await agent.close();
    }
  },
};

const axiosPlugged: Peer = {
  name: 'axios + agentAxios',
  pkg: 'axios',
  alone: 'axios-retry',
  defaults: `agentAxios(axios.create()): ${PLUGIN}; no axios-retry: the binding wraps the request's adapter`,
  source: 'src/agent/axios.ts',
  async run(url, signal) {
    const instance = agentAxios(axios.create());
    return outcome(() => instance.get(url, { signal }), axiosError);
  },
};

/** The columns, in the order the table shows them: each client alone, then with its plug-in; this package's client last (bench/all.ts divides by the last column). */
export const PEERS: readonly Peer[] = [kyPeer, kyPlugged, gotPeer, gotPlugged, undiciPeer, undiciPlugged, axiosPeer, axiosPlugged, oursBackoff, oursBackoffLong, ours];
