// The client's rules bound to axios (which takes no fetch), through its own hooks: agentAxios(instance)
// adds a request interceptor that wraps the request's adapter, so each call of one request is let
// through by the store first (a running wait slept out or answered from memory, another caller's
// probe followed, a spent quota kept to), and each error response is read through fromResponse and
// waited out or sent again as the rules say, inside the one request axios sees. axios's own
// transformResponse and validateStatus then see the last answer, as they would without it.
import axios, { AxiosError, AxiosHeaders, type AxiosAdapter, type AxiosInstance, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import { fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
import type { HeadersInput } from '../core/headers.js';
import { hold } from './body.js';
import { headerRecord, keptAnswer, memoryAnswer } from './answers.js';
import { admit, allowance, drawRetry, freshAttempts, isIdempotent, maySayError, nextWait, payWith, PLUGIN_CHECKS, resolveOptions, saysError, settle, type AgentClientOptions, type Pass, type PaymentHeaders } from './policy.js';

/**
 * Options of agentAxios: the client's, but for the fetch and the Accept, which axios's own config
 * sets. errorsIn2xx (default false) reads a success that may carry an error (maySayError) for one.
 */
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

/** The responseTypes whose bodies agentAxios reads itself, as axios's Node adapter would: a string, bytes, or the stream. */
const READ_HERE = new Set([undefined, 'json', 'text', 'arraybuffer', 'stream']);

/** A Node stream (axios's http adapter's body with responseType 'stream'). */
const isNodeStream = (data: unknown): data is NodeJS.ReadableStream & { destroy(): void } => typeof (data as { pipe?: unknown } | null)?.pipe === 'function' && typeof (data as { on?: unknown }).on === 'function';

/** Bytes as axios's Node adapter gives them for a responseType: a Buffer for arraybuffer, else text in responseEncoding without a BOM. */
function asData(bytes: Buffer, config: InternalAxiosRequestConfig): unknown {
  if (config.responseType === 'arraybuffer') return bytes;
  const text = bytes.toString((config.responseEncoding as BufferEncoding | undefined) ?? 'utf8');
  return !config.responseEncoding || config.responseEncoding === 'utf8' ? text.replace(/^\uFEFF/, '') : text;
}

/**
 * A body axios's http adapter streamed because agentAxios asked it to: a success read whole (as
 * axios would, within its maxContentLength); an error read by hold, at most MAX_BODY_BYTES for at
 * most bodyTimeoutSeconds, and then the rest handed on as a stream (responseType 'stream') or
 * dropped. Returns the bytes to judge an error by, whether they are the whole body, and how to drop the rest.
 */
async function readStreamed(response: AxiosResponse, config: InternalAxiosRequestConfig, bodyTimeoutMs: number): Promise<{ bytes: Uint8Array | null; whole: boolean; discard: () => void }> {
  const source = response.data as NodeJS.ReadableStream & { destroy(): void };
  const wanted = config.responseType === 'stream';
  if (response.status < 400) {
    if (wanted) return { bytes: null, whole: false, discard: () => undefined };
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of source) chunks.push(Buffer.from(chunk as Uint8Array));
    } catch (error) {
      throw axios.isAxiosError(error) ? error : AxiosError.from(error, AxiosError.ERR_BAD_RESPONSE, config, response.request, response);
    }
    const whole = Buffer.concat(chunks);
    response.data = asData(whole, config);
    return { bytes: whole, whole: true, discard: () => undefined };
  }
  const { Readable } = await import('node:stream');
  const held = await hold(new Response(Readable.toWeb(source as InstanceType<typeof Readable>) as ReadableStream<Uint8Array>), MAX_BODY_BYTES, bodyTimeoutMs);
  response.data = wanted ? Readable.fromWeb(held.response.body! as never) : asData(Buffer.from(held.bytes), config);
  // Handed over as text or bytes, an error body is what was read: the rest is dropped, never buffered.
  if (!wanted) held.discard();
  return { bytes: held.bytes, whole: held.whole, discard: held.discard };
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
 * within `maxCalls` calls; everything else reaches the caller as axios's own answer or AxiosError.
 * Through axios's Node adapter an error body is read at most MAX_BODY_BYTES, for at most
 * bodyTimeoutSeconds (the rest dropped, or handed on with responseType 'stream'); a success is read
 * as axios reads it.
 * @example const client = agentAxios(axios.create(), { maxWaitSeconds: 30 });
 */
export function agentAxios(instance: AxiosInstance, options: AgentAxiosOptions = {}): AxiosInstance {
  const { sleep, now, store, scopeOf, bodyTimeoutMs } = resolveOptions('agentAxios', options, PLUGIN_CHECKS);
  if (typeof instance?.interceptors?.request?.use !== 'function') throw new TypeError(`agentAxios: instance must be an axios instance, such as axios.create() (got ${typeof instance})`);

  /** One request under the rules: the adapter it would have used, called as often as they allow. */
  const lifecycle = (inner: AxiosAdapter): AxiosAdapter => async (config) => {
    const url = urlOf(config);
    if (url === null) return inner(config);
    const key = scopeOf(url);
    const allowed = allowance(options, isIdempotent(config.method, config.headers as HeadersInput) && !once(config.data));
    const attempts = freshAttempts();
    const signal = config.signal instanceof AbortSignal ? config.signal : undefined;
    // The headers the payment hook paid a 402 with, sent on the one call after it.
    let paying: PaymentHeaders | null = null;
    for (;;) {
      const admitted = await admit({ store, key, url, attempts, allowed, now, sleep, signal });
      if ('error' in admitted) {
        // Without a call: what the site said, as axios would have received it, with what remains of the wait.
        const { status, headers, body } = memoryAnswer(admitted.error, admitted.answer, admitted.learnt);
        return settled({ data: body, status, statusText: '', headers: new AxiosHeaders(headerRecord(headers)), config, request: null }, config);
      }
      const pass: Pass = admitted.pass;
      attempts.calls += 1;
      let response: AxiosResponse;
      let refused: AxiosError | undefined;
      // The body is read here, bounded, when the adapter can stream it: asked for as a stream.
      const streamed = READ_HERE.has(config.responseType);
      // A copy: AxiosHeaders.from hands back the very instance the config holds, which every later call would then carry.
      const sent = paying ? { ...config, headers: new AxiosHeaders(config.headers).set(paying) } : config;
      paying = null;
      try {
        response = await inner(streamed ? { ...sent, responseType: 'stream' } : sent);
      } catch (error) {
        if (!axios.isAxiosError(error) || !error.response) {
          await settle(store, key, pass, undefined, undefined, now(), undefined, url, signal?.aborted);
          throw error;
        }
        refused = error;
        response = error.response;
        refused.config = config;
      }
      response.config = config;
      const read = streamed && isNodeStream(response.data) ? await readStreamed(response, config, bodyTimeoutMs) : null;
      const headers = response.headers as HeadersInput;
      // A success, unless errorsIn2xx asks and its body is an error all the same (a GraphQL or JSON-RPC error, S3's <Error>).
      const method = (config.method ?? 'get').toUpperCase();
      const contentType = response.headers['content-type'];
      if (response.status < 400 && !(options.errorsIn2xx === true && maySayError(method, response.status, typeof contentType === 'string' ? contentType : null) && saysError(read ? read.bytes : bytesOf(response.data), read ? read.whole : true))) {
        await settle(store, key, pass, { status: response.status, headers }, undefined, now(), undefined, url);
        if (refused) throw refused;
        return response;
      }
      const bytes = read ? read.bytes : bytesOf(response.data);
      const { error } = fromResponse(response.status, headers, read ? bytes : response.data, { now: now() });
      await settle(store, key, pass, { status: response.status, headers }, error, now(), keptAnswer(response.status, headers, bytes, read ? read.whole : bytes !== null), url);
      // A 402 that says what to pay: the agent's hook decides, once per request (a body that cannot be sent again is not).
      paying = once(config.data) ? null : await payWith('agentAxios', options.onPaymentRequired, error, attempts, allowed, { url: url.href, method });
      if (paying) {
        read?.discard();
        continue;
      }
      const seconds = once(config.data) ? null : nextWait(error, attempts, allowed);
      // A retry of the package's own draws from the scope's budget; spent, the failure is handed back.
      if (seconds === null || (await drawRetry(store, key, attempts))) {
        if (refused) throw refused;
        return response;
      }
      read?.discard();
      await sleep(seconds * 1000, signal);
    }
  };

  instance.interceptors.request.use((config) => {
    config.adapter = lifecycle(axios.getAdapter(config.adapter ?? instance.defaults.adapter));
    return config;
  });
  return instance;
}
