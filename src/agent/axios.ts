// The client's rules bound to axios (which takes no fetch), through its own hooks: agentAxios(instance)
// adds a request interceptor that wraps the request's adapter, so each call of one request is let
// through by the store first (a running wait slept out or answered from memory, another caller's
// probe followed, a spent quota kept to), and each error response is read through fromResponse and
// waited out or sent again as the rules say, inside the one request axios sees. axios's own
// transformResponse and validateStatus then see the last answer, as they would without it.
import axios, { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosInstance, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { fromResponse } from '../core/from-response.js';
import type { HeadersInput } from '../core/headers.js';
import { admit, allowance, freshAttempts, isIdempotent, keptAnswer, memoryAnswer, nextWait, resolveOptions, settle, type AgentClientOptions, type Pass } from './policy.js';

/** Options of agentAxios: the client's, but for the fetch and the Accept, which axios's own config sets. */
export type AgentAxiosOptions = Omit<AgentClientOptions, 'fetch' | 'accept'>;

/** The URL of a request's config, resolved against its baseURL, or null. */
function urlOf(config: InternalAxiosRequestConfig): URL | null {
  const [url, base] = [config.url ?? '', config.baseURL];
  return URL.canParse(url, base) ? new URL(url, base) : null;
}

/** A request body that cannot be sent a second time: a stream. */
const once = (data: unknown): boolean => typeof (data as { pipe?: unknown } | null)?.pipe === 'function' || typeof (data as { getReader?: unknown } | null)?.getReader === 'function';

/** Bytes or text of a response's data as an adapter left it (before transformResponse), for keptAnswer. */
function bytesOf(data: unknown): Uint8Array | null {
  if (typeof data === 'string') return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return null;
}

/** What axios's own settle does with an answer: resolve it, or reject it as an AxiosError when validateStatus refuses it. */
function settled(response: AxiosResponse, config: InternalAxiosRequestConfig): AxiosResponse {
  const valid = config.validateStatus;
  if (!response.status || !valid || valid(response.status)) return response;
  const code = response.status >= 500 ? AxiosError.ERR_BAD_RESPONSE : AxiosError.ERR_BAD_REQUEST;
  throw new AxiosError(`Request failed with status code ${response.status}`, code, config, response.request, response);
}

/**
 * Binds the client's rules to an axios instance, and returns it: before each call the store is
 * asked (a running wait slept out once when it fits in maxWaitSeconds, else answered from memory
 * in the site's own words without a call; another caller's probe followed; a spent quota kept to);
 * each error response is read through fromResponse (headers and data, parsed or not) and waited
 * out once when told, or retried once when the catalog says so for an idempotent request, all
 * within `budget` calls; everything else reaches the caller as axios's own answer or AxiosError.
 * axios reads a whole body before any hook sees it: bound it with axios's maxContentLength and
 * timeout (docs/agent.md).
 * @example const client = agentAxios(axios.create(), { maxWaitSeconds: 30 });
 */
export function agentAxios(instance: AxiosInstance, options: AgentAxiosOptions = {}): AxiosInstance {
  const { sleep, now, store, scopeOf } = resolveOptions('agentAxios', options);
  if (typeof instance?.interceptors?.request?.use !== 'function') throw new TypeError(`agentAxios: instance must be an axios instance, such as axios.create() (got ${typeof instance})`);

  /** One request under the rules: the adapter it would have used, called as often as they allow. */
  const lifecycle = (inner: AxiosAdapter): AxiosAdapter => async (config) => {
    const url = urlOf(config);
    if (url === null) return inner(config);
    const key = scopeOf(url);
    const allowed = allowance(options, isIdempotent(config.method, config.headers as HeadersInput) && !once(config.data));
    const attempts = freshAttempts();
    const signal = config.signal instanceof AbortSignal ? config.signal : undefined;
    for (;;) {
      const admitted = await admit({ store, key, url, attempts, allowed, now, sleep, signal });
      if ('error' in admitted) {
        // Without a call: what the site said, as axios would have received it, with what remains of the wait.
        const { status, headers, body } = memoryAnswer(admitted.error, admitted.answer);
        return settled({ data: body, status, statusText: '', headers: new AxiosHeaders(Object.fromEntries(headers)), config, request: null }, config);
      }
      const pass: Pass = admitted.pass;
      attempts.calls += 1;
      let response: AxiosResponse;
      let refused: AxiosError | undefined;
      try {
        response = await inner(config);
      } catch (error) {
        if (!axios.isAxiosError(error) || !error.response) {
          await settle(store, key, pass, undefined, undefined, now());
          throw error;
        }
        refused = error;
        response = error.response;
      }
      const headers = response.headers as HeadersInput;
      if (response.status < 400) {
        await settle(store, key, pass, { headers }, undefined, now());
        if (refused) throw refused;
        return response;
      }
      const { error } = fromResponse(response.status, headers, response.data, { now: now() });
      const bytes = bytesOf(response.data);
      await settle(store, key, pass, { headers }, error, now(), keptAnswer(response.status, headers, bytes, bytes !== null));
      const seconds = once(config.data) ? null : nextWait(error, attempts, allowed);
      if (seconds === null) {
        if (refused) throw refused;
        return response;
      }
      await sleep(seconds * 1000, signal);
    }
  };

  instance.interceptors.request.use((config) => {
    config.adapter = lifecycle(axios.getAdapter(config.adapter ?? instance.defaults.adapter));
    return config;
  });
  return instance;
}
