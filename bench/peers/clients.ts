// The clients agents use today, each with its library's retry defaults, and this package's client
// with its own; every adapter makes one GET and says how it ended: `ok` or what the caller was handed.
import axios, { isAxiosError } from 'axios';
import axiosRetry from 'axios-retry';
import got, { HTTPError as GotHTTPError } from 'got';
import ky, { HTTPError as KyHTTPError } from 'ky';
import { Agent, RetryAgent, errors as undiciErrors, request } from 'undici';
import { createAgentClient } from '../../src/agent/client.js';

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
  /** One GET of `url`: `ok`, or what the client surfaced. */
  readonly run: (url: string, signal: AbortSignal) => Promise<string>;
}

/** What a failed call surfaced: the error's class and status, or its class and code. */
export function surfaced(error: unknown): string {
  const e = error as { name?: string; code?: string; message?: string };
  return `${e?.name ?? 'Error'} ${e?.code ?? e?.message ?? ''}`.trim().slice(0, 40);
}

const ours: Peer = {
  name: 'this package',
  pkg: '@agent-index/errors',
  defaults:
    'createAgentClient(): at most 2 calls; waits a delay the response names (Retry-After, retry-after-ms, RateLimit, or the body: retry_after, retry_after_seconds, RetryInfo) once when it is 30 s or less; a delay-less wait is handed back at once',
  source: 'src/agent/client.ts',
  async run(url, signal) {
    const result = await createAgentClient().fetch(url, { signal });
    if (result.ok) {
      await result.response.arrayBuffer();
      return 'ok';
    }
    const { code, retry_after } = result.error;
    return `${code}, ${retry_after === null ? 'no delay' : `wait ${retry_after}s`}`;
  },
};

const kyPeer: Peer = {
  name: 'ky',
  pkg: 'ky',
  defaults:
    'retry limit 2 (3 calls) for GET on 408/413/429/500/502/503/504; honours Retry-After (also RateLimit-Reset, X-RateLimit-Reset) on 413/429/503 with no cap (maxRetryAfter Infinity); else 0.3 s * 2^(n-1); 10 s per-request timeout',
  source: 'node_modules/ky/distribution/utils/normalize.js, core/Ky.js',
  async run(url, signal) {
    try {
      await (await ky.get(url, { signal })).arrayBuffer();
      return 'ok';
    } catch (error) {
      if (error instanceof KyHTTPError) return `HTTPError ${error.response.status}`;
      throw error;
    }
  },
};

const gotPeer: Peer = {
  name: 'got',
  pkg: 'got',
  defaults:
    'retry limit 2 (3 calls) for GET on 408/413/429/500/502/503/504/521/522/524; honours Retry-After on any of them, capped by timeout.request (unset, so no cap); else 1 s * 2^(n-1) + up to 100 ms noise',
  source: 'node_modules/got/dist/source/core/options.js, core/calculate-retry-delay.js, core/index.js',
  async run(url, signal) {
    try {
      await got(url, { signal });
      return 'ok';
    } catch (error) {
      if (error instanceof GotHTTPError) return `HTTPError ${error.response.statusCode}`;
      throw error;
    }
  },
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
    try {
      await instance.get(url, { signal });
      return 'ok';
    } catch (error) {
      if (isAxiosError(error) && error.response) return `AxiosError ${error.response.status}`;
      throw error;
    }
  },
};

/** The columns, in the order the table shows them. */
export const PEERS: readonly Peer[] = [kyPeer, gotPeer, undiciPeer, axiosPeer, ours];
