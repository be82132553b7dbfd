// Every way an agent calls a site through this package (an AGENT HOST), as one list: the client,
// the drop-in fetch (alone and inside ky), the fetcher, the undici interceptor, and the got and
// axios-retry plug-ins. Each is a thin binding that takes the same options object, makes one
// request, and normalises what came back to one HostResult (beside the host's own raw result), so
// that test/agent/conformance.test.ts and test/agent/hostile.test.ts describe a behaviour once and
// run it on every host. When an API is renamed or changes shape, only this file changes.
import axios, { type AxiosResponse } from 'axios';
import got, { type Response as GotResponse } from 'got';
import ky from 'ky';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Readable } from 'node:stream';
import { agentAxios, type AgentAxiosOptions } from '../../src/agent/axios.js';
// The package's own entry points (its exports map's subpaths), so that what moves inside src/agent changes nothing here.
import { failureOf, createAgentClient, agentFetch, fromResponse, SOURCE_HEADER, type AgentClientOptions, type Store } from '../../src/agent/index.js';
import { fetchPage, type FetchPageOptions } from '../../src/agent/fetcher.js';
import { agentGot, type AgentGotOptions } from '../../src/agent/got.js';
import { agentUndici, type AgentUndiciOptions } from '../../src/agent/undici.js';
import type { PaymentHook } from '../../src/agent/policy.js';

/** The options every host is made with; each takes the ones it knows (Host.takes). */
export interface HostOptions {
  readonly store?: Store;
  readonly maxWaitSeconds?: number;
  readonly maxCalls?: number;
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly now?: () => number;
  readonly unknownDelay?: 'hand_back' | 'backoff';
  readonly scope?: readonly string[] | ((url: URL) => string);
  readonly fetch?: typeof globalThis.fetch;
  /** The most seconds an error body is read before it is judged from what arrived. // new option, issue 25 */
  readonly bodyTimeoutSeconds?: number;
  /** fetchPage: the most bytes of a success it keeps a copy of; a longer body passes through as a stream. // new option, issue 25 */
  readonly maxCopyBytes?: number;
  /** Whether a 2xx JSON answer to a POST is read for an error inside it (the client, the drop-in, the fetcher, the undici interceptor). */
  readonly errorsIn2xx?: boolean;
  /** Decides whether to pay a 402 that says what to pay: the headers that pay it, or nothing. */
  readonly onPaymentRequired?: PaymentHook;
}

export type OptionName = keyof HostOptions;

/** One request, as every host is asked it. */
export interface HostRequest {
  readonly method?: 'GET' | 'POST';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /**
   * Read the body the host hands over (at most READ_CAP bytes), as a caller would; false leaves it
   * unread (the hostile cases: settling is the host's promise, not the caller's reading). got and
   * axios read bodies themselves whatever this says. @default true
   */
  readonly read?: boolean;
  /** Use the library's own streaming mode where it has one (got.stream, axios's responseType 'stream'), for a success the caller streams. */
  readonly stream?: boolean;
}

/** What one request came to, the same for every host. */
export interface HostResult {
  /** A success (the site's 2xx or 3xx), or a fetcher's served copy. */
  readonly ok: boolean;
  /** The status the caller sees: the site's, a memory answer's, or null when no response came (or a failure from memory without one). */
  readonly status: number | null;
  /** The envelope's code, retry word, delay and field: the host's own reading, or fromResponse of the body the host handed over. */
  readonly code?: string;
  readonly retry?: string;
  readonly retryAfter?: number | null;
  readonly field?: string | null;
  /** The answer came from memory without a call: the host says so, or the response carries `agent-errors-source: memory`. */
  readonly remembered?: boolean;
  /** The body as text when it was read (at most READ_CAP bytes); null when the host says it kept none (fetchPage's stream). */
  readonly body?: string | null;
  readonly headers?: Headers;
  /** What failureOf said of the Response, for the hosts whose Responses it knows (Host.failureOf). */
  readonly failureOf?: { readonly code: string; readonly remembered: boolean };
  /** The original error of a failure that got no response, kept on the failure (client and fetcher). */
  readonly cause?: unknown;
  /** What the host's promise rejected with (or its factory threw on the call, for fetchPage). */
  readonly rejected?: unknown;
  /** fetchPage's success body passed through unbuffered. // new member, issue 25 */
  readonly stream?: ReadableStream<Uint8Array> | null;
  /** The host's own result: an AgentResult, a Response, a FetchPageResult, got's or axios's response, or the error. */
  readonly raw: unknown;
  /** Cancels whatever body is still unread, so the site stops sending. */
  readonly release: () => Promise<void>;
}

/** A host made with its options: requests, and what to close when done. */
export interface Binding {
  request(url: string, request?: HostRequest): Promise<HostResult>;
  close(): Promise<void>;
}

/** Why a host cannot do something with its current API: the reason, shown as the skip note. */
export interface Unable {
  readonly unable: string;
}

export interface Host {
  readonly name: string;
  /** The options the host takes; it ignores the rest of HostOptions. */
  readonly takes: ReadonlySet<OptionName>;
  /** Where invalid options are refused: when the host is made (a factory), or on the call (fetchPage, a function). */
  readonly refuses: 'create' | 'call';
  /**
   * How a request answered from memory reaches the caller: as the site's own response, remembered
   * ('site': status, body bytes and headers, Retry-After left, `agent-errors-source: memory`), as a
   * failure marked remembered ('result'), or not at all.
   */
  readonly memory: 'site' | 'result' | Unable;
  /** How a request that gets no response ends: a failure with code and cause ('result'), or a rejection, as the library's own. */
  readonly noResponse: 'result' | 'reject';
  /** Whether failureOf(response) says what the host's error Responses mean. */
  readonly failureOf: boolean;
  /** Whether the host asks the store before each call (so it follows another caller's probe and keeps to an announced quota). */
  readonly admits: true | Unable;
  /** Makes the host: a factory call, which throws on invalid options where `refuses` is 'create'. */
  make(options: HostOptions): Binding;
}

/** The most bytes of a body a binding reads. */
export const READ_CAP = 1024 * 1024;

const nothing = async (): Promise<void> => undefined;

/** At most `cap` bytes of a body as text, the rest cancelled. */
async function readCapped(body: ReadableStream<Uint8Array> | null, cap = READ_CAP): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size >= cap) {
      await reader.cancel().catch(() => undefined);
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Cancels a Response's body if it is still unread. */
const cancelBody = (response: { readonly body: ReadableStream<Uint8Array> | null; readonly bodyUsed: boolean } | undefined) => async (): Promise<void> => {
  if (response?.body && !response.bodyUsed && !response.body.locked) await response.body.cancel().catch(() => undefined);
};

/** The fetch init of a HostRequest. */
const initOf = (request: HostRequest): RequestInit => ({
  method: request.method ?? 'GET',
  ...(request.headers ? { headers: { ...request.headers } } : {}),
  ...(request.body !== undefined ? { body: request.body } : {}),
});

/** node's or axios's header record as fetch Headers. */
function headersOf(record: Record<string, unknown>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined || value === null) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, String(one));
  }
  return headers;
}

/** The envelope's members as a HostResult has them. */
const envelope = (error: { code: string; retry: string; retry_after: number | null; field: string | null } | undefined) =>
  error === undefined ? {} : { code: error.code, retry: error.retry, retryAfter: error.retry_after, field: error.field };

/** A host's answer read by fromResponse, as a caller of a host that hands over the site's own response would read it. */
const read = (status: number, headers: Headers, body: unknown) => envelope(fromResponse(status, headers, body as string | null).error);

/** A rejection, as a result. */
const rejection = (error: unknown): HostResult => ({ ok: false, status: null, rejected: error, raw: error, release: nothing });

/** A fetch Response a drop-in, ky or the interceptor handed over, normalised. */
async function fromFetchResponse(response: Response, request: HostRequest, info: ReturnType<typeof failureOf> | null): Promise<HostResult> {
  const body = request.read === false ? undefined : await readCapped(response.body);
  const fromHeader = response.headers.get(SOURCE_HEADER) === 'memory';
  const failed = response.status >= 400;
  // The drop-in says what an error means (failureOf); the interceptor's caller reads the body.
  const meaning = info ? envelope(info.error) : failed && body !== undefined ? read(response.status, response.headers, body) : {};
  return {
    ok: !failed && !info,
    status: response.status,
    ...meaning,
    remembered: (info ? info.remembered : false) || fromHeader,
    ...(info ? { failureOf: { code: info.error.code, remembered: info.remembered === true } } : {}),
    ...(body !== undefined ? { body } : {}),
    headers: response.headers,
    raw: response,
    release: cancelBody(response),
  };
}

/** The options a host takes. */
const takes = (...names: OptionName[]): ReadonlySet<OptionName> => new Set(names);
const RULES: OptionName[] = ['store', 'maxWaitSeconds', 'maxCalls', 'sleep', 'now', 'unknownDelay', 'scope', 'bodyTimeoutSeconds'];

// HostOptions carries every host's options; a caller hands each host only those it takes (Host.takes),
// since an option a host does not know is a TypeError.
const asClient = (o: HostOptions) => o as AgentClientOptions;

/** A host that resolves to the drop-in's own Response (alone, or inside a client that hands it over): failureOf reads it. */
function dropIn(name: string, fetchOf: (options: HostOptions) => (url: string, init: RequestInit) => Promise<Response>): Host {
  return {
    name,
    takes: takes(...RULES, 'fetch', 'errorsIn2xx', 'onPaymentRequired'),
    refuses: 'create',
    memory: 'site',
    noResponse: 'reject',
    admits: true,
    failureOf: true,
    make(options) {
      const call = fetchOf(options);
      return {
        async request(url, request = {}) {
          let response: Response;
          try {
            response = await call(url, initOf(request));
          } catch (error) {
            return rejection(error);
          }
          return fromFetchResponse(response, request, failureOf(response) ?? undefined);
        },
        close: nothing,
      };
    },
  };
}

export const HOSTS: readonly Host[] = [
  {
    name: 'createAgentClient',
    takes: takes(...RULES, 'fetch', 'errorsIn2xx', 'onPaymentRequired'),
    refuses: 'create',
    memory: 'result',
    noResponse: 'result',
    admits: true,
    failureOf: false,
    make(options) {
      const client = createAgentClient(asClient(options));
      return {
        async request(url, request = {}) {
          let result;
          try {
            result = await client.fetch(url, initOf(request));
          } catch (error) {
            return rejection(error);
          }
          const response = result.response;
          const body = response && request.read !== false ? await readCapped(response.body) : undefined;
          return {
            ok: result.ok,
            status: response?.status ?? null,
            ...(result.ok ? {} : { ...envelope(result.error), remembered: result.remembered === true }),
            ...(body !== undefined ? { body } : {}),
            ...(response ? { headers: response.headers } : {}),
            cause: (result as { cause?: unknown }).cause, // new member, issue 25
            raw: result,
            release: cancelBody(response),
          };
        },
        close: nothing,
      };
    },
  },
  dropIn('agentFetch', (options) => agentFetch(asClient(options))),
  // ky hands over the drop-in's own Response, so failureOf knows it.
  dropIn('agentFetch in ky', (options) => ky.create({ fetch: agentFetch(asClient(options)), retry: 0, throwHttpErrors: false, timeout: false })),
  {
    name: 'fetchPage',
    takes: takes(...RULES, 'fetch', 'maxCopyBytes', 'errorsIn2xx', 'onPaymentRequired'),
    refuses: 'call',
    memory: 'result',
    noResponse: 'result',
    admits: true,
    failureOf: false,
    make(options) {
      return {
        async request(url, request = {}) {
          let result;
          try {
            result = await fetchPage(url, { ...(options as FetchPageOptions), init: initOf(request) });
          } catch (error) {
            return rejection(error);
          }
          // The new shape of a success too long to keep: body null, the body as a stream. // new member, issue 25
          const stream = (result as { stream?: ReadableStream<Uint8Array> | null }).stream;
          if (result.ok) {
            return {
              ok: true,
              status: result.status,
              body: result.body as string | null,
              headers: result.headers,
              ...(stream !== undefined ? { stream } : {}),
              raw: result,
              release: async () => {
                if (stream && !stream.locked) await stream.cancel().catch(() => undefined);
              },
            };
          }
          return {
            ok: false,
            status: result.status,
            ...envelope(result.error),
            remembered: result.remembered === true,
            cause: (result as { cause?: unknown }).cause, // new member, issue 25
            raw: result,
            release: nothing,
          };
        },
        close: nothing,
      };
    },
  },
  {
    name: 'agentUndici (undici)',
    takes: takes(...RULES, 'errorsIn2xx', 'onPaymentRequired'),
    refuses: 'create',
    memory: 'site',
    noResponse: 'reject',
    admits: true,
    failureOf: false,
    make(options) {
      const dispatcher = new Agent().compose(agentUndici(options as AgentUndiciOptions));
      return {
        async request(url, request = {}) {
          let response: Response;
          try {
            // undici's own fetch and Response: the same members as the global ones.
            response = (await undiciFetch(url, { ...(initOf(request) as Parameters<typeof undiciFetch>[1]), dispatcher })) as unknown as Response;
          } catch (error) {
            return rejection(error);
          }
          return fromFetchResponse(response, request, null);
        },
        close: () => dispatcher.destroy(),
      };
    },
  },
  {
    name: 'agentGot (got)',
    takes: takes(...RULES, 'onPaymentRequired', 'errorsIn2xx'),
    refuses: 'create',
    memory: 'site',
    noResponse: 'reject',
    admits: true,
    failureOf: false,
    make(options) {
      const client = got.extend(agentGot(options as AgentGotOptions));
      return {
        async request(url, request = {}) {
          const gotOptions = {
            method: request.method ?? 'GET',
            headers: { ...request.headers },
            ...(request.body !== undefined ? { body: request.body } : {}),
            throwHttpErrors: false,
          } as const;
          if (request.stream) {
            // got's streaming mode: the response's head, its body left to the caller.
            const stream = client.stream(url, gotOptions);
            try {
              const response = await new Promise<GotResponse>((resolve, reject) => {
                stream.once('response', resolve);
                stream.once('error', reject);
              });
              const headers = headersOf(response.headers);
              return {
                ok: response.statusCode < 400,
                status: response.statusCode,
                headers,
                remembered: headers.get(SOURCE_HEADER) === 'memory',
                raw: response,
                release: async () => void stream.destroy(),
              };
            } catch (error) {
              stream.destroy();
              return rejection(error);
            }
          }
          let response: GotResponse<string>;
          try {
            response = await client(url, gotOptions);
          } catch (error) {
            return rejection(error);
          }
          const headers = headersOf(response.headers);
          const failed = response.statusCode >= 400;
          return {
            ok: !failed,
            status: response.statusCode,
            ...(failed ? read(response.statusCode, headers, response.body) : {}),
            remembered: headers.get(SOURCE_HEADER) === 'memory',
            body: response.body.length > READ_CAP ? response.body.slice(0, READ_CAP) : response.body,
            headers,
            raw: response,
            release: nothing,
          };
        },
        close: nothing,
      };
    },
  },
  {
    name: 'agentAxios (axios)',
    takes: takes(...RULES, 'onPaymentRequired', 'errorsIn2xx'),
    refuses: 'create',
    memory: 'site',
    noResponse: 'reject',
    admits: true,
    failureOf: false,
    make(options) {
      const instance = agentAxios(axios.create(), options as AgentAxiosOptions);
      return {
        async request(url, request = {}) {
          let response: AxiosResponse;
          try {
            // validateStatus stays axios's own: an error status rejects, with the response on the error.
            response = await instance.request({
              url,
              method: request.method ?? 'GET',
              headers: { ...request.headers },
              ...(request.body !== undefined ? { data: request.body } : {}),
              ...(request.stream ? { responseType: 'stream' as const } : {}),
            });
          } catch (error) {
            if (!axios.isAxiosError(error) || !error.response) return rejection(error);
            response = error.response;
          }
          const headers = headersOf(response.headers as Record<string, unknown>);
          const failed = response.status >= 400;
          const streamed = request.stream === true;
          const data: unknown = response.data;
          const text = streamed ? undefined : typeof data === 'string' ? data : data === undefined || data === null ? '' : JSON.stringify(data);
          return {
            ok: !failed,
            status: response.status,
            ...(failed && !streamed ? read(response.status, headers, data) : {}),
            remembered: headers.get(SOURCE_HEADER) === 'memory',
            ...(text !== undefined ? { body: text.length > READ_CAP ? text.slice(0, READ_CAP) : text } : {}),
            headers,
            raw: response,
            release: async () => {
              if (streamed) (data as Readable).destroy();
            },
          };
        },
        close: nothing,
      };
    },
  },
];

/** The host of that name. */
export function hostNamed(name: string): Host {
  const host = HOSTS.find((h) => h.name === name);
  if (!host) throw new Error(`no host named ${JSON.stringify(name)}; hosts: ${HOSTS.map((h) => h.name).join(', ')}`);
  return host;
}

/** Why a host is unable to, or null when it can. */
export const unable = (capability: 'site' | 'result' | true | Unable): string | null => (typeof capability === 'object' ? capability.unable : null);
