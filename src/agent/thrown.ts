// What an SDK or an HTTP client threw, read as the response it carries, or as the network failure
// it wraps: each by its shape, so that no SDK becomes a dependency. The shapes, with their sources:
//   openai, @anthropic-ai/sdk (Stainless): APIError { status, headers, error }, its `error` the body
//     parsed (OpenAI's inner error object, Anthropic's whole body); APIConnectionError and
//     APIConnectionTimeoutError carry no status.
//   @octokit/request-error: RequestError { name: 'HttpError', status, response: { headers, data } };
//     a request that got no response is a RequestError with status 500 and no response.
//   stripe: StripeError { type, statusCode, headers, raw }, `raw` the body's error object;
//     StripeConnectionError has no statusCode.
//   AWS SDK v3: ServiceException { name (the error's type), $fault, $metadata.httpStatusCode,
//     $response (headers) }, its body already consumed: the type and message stand for it.
//   @google/genai: ApiError { status, message }, the body's JSON in the message.
//   axios: AxiosError { isAxiosError, response: { status, headers, data } }; got: HTTPError
//     { response: { statusCode, headers, body } }; ky: HTTPError { response: Response }, whose body
//     is unread (its status and headers speak).
//   @modelcontextprotocol/sdk: McpError { code, message, data }, a JSON-RPC error; its own -32000
//     (connection closed) and -32001 (request timed out) are no answer. @modelcontextprotocol/client
//     (v2, revision 2026-07-28): ProtocolError, the same members (its subclasses keep the name); its
//     SdkError { code: 'REQUEST_TIMEOUT' | 'CONNECTION_CLOSED' | ... } is no answer.
//   A failure before any response: an error, or its cause, with a socket's or undici's code, or a
//   TimeoutError.
import { READERS } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { lookup } from '../core/catalog.js';
import { fromResponse } from '../core/from-response.js';
import { isRecord, own } from '../core/json.js';
import type { HeadersInput } from '../core/headers.js';

/** A response an error carries: status, headers and the body as far as the SDK kept it. */
interface Carried {
  readonly status: number;
  readonly headers: HeadersInput;
  readonly body: unknown;
}

const isStatus = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;

/** Headers in any form an SDK keeps them, as fromResponse takes them. */
function headersOf(value: unknown): HeadersInput {
  if (value instanceof Headers || Array.isArray(value)) return value as HeadersInput;
  // AxiosHeaders and other classes: their own enumerable members (toJSON where it has one).
  const plain = typeof (value as { toJSON?: unknown })?.toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  return isRecord(plain) ? (plain as HeadersInput) : null;
}

/** A body as far as the SDK kept it: text, bytes or parsed JSON; nothing for a stream or a Response's unread body. */
const bodyOf = (value: unknown): unknown => (typeof value === 'string' || value instanceof Uint8Array || isRecord(value) || Array.isArray(value) ? value : null);

/** The response an error carries, by its SDK's shape; undefined when it carries none. */
function carried(e: Record<string, unknown>): Carried | undefined {
  // axios, got, octokit and ky: the response beside the error.
  const response = own(e, 'response');
  if (response instanceof Response) return { status: response.status, headers: response.headers, body: null };
  if (isRecord(response)) {
    const status = response.status ?? response.statusCode;
    if (isStatus(status)) return { status, headers: headersOf(response.headers), body: bodyOf(response.data ?? response.body) };
  }
  // The AWS SDK v3: the body is consumed; its type and message stand for it, as its JSON protocols send them.
  const metadata = own(e, '$metadata');
  if (isRecord(metadata) && isStatus(metadata.httpStatusCode)) {
    return { status: metadata.httpStatusCode, headers: headersOf(own(own(e, '$response'), 'headers')), body: { __type: e.name, message: e.message } };
  }
  // The MCP SDK's McpError: the JSON-RPC error a server answered (its own -32000, connection closed,
  // and -32001, request timed out, are a failure before any answer, read below).
  if ((e.name === 'McpError' || e.name === 'ProtocolError') && Number.isInteger(e.code) && !(e.name === 'McpError' && (e.code === -32000 || e.code === -32001))) {
    const message = typeof e.message === 'string' ? e.message.replace(/^MCP error -?\d+: /, '') : '';
    return { status: 200, headers: null, body: { jsonrpc: '2.0', error: { code: e.code, message, data: e.data } } };
  }
  // Stripe: statusCode, headers, and raw, the body's error object.
  if (isStatus(e.statusCode) && isRecord(e.raw)) return { status: e.statusCode, headers: headersOf(e.headers), body: { error: e.raw } };
  if (!isStatus(e.status)) return undefined;
  // OpenAI and Anthropic: the body parsed, OpenAI's as its inner error object.
  if (Object.hasOwn(e, 'error') && Object.hasOwn(e, 'headers')) {
    // Anthropic keeps the whole body ({type: "error", error: {...}}), OpenAI the inner error object.
    const body = e.error;
    return { status: e.status, headers: headersOf(e.headers), body: !isRecord(body) ? null : Object.hasOwn(body, 'error') ? body : { error: body } };
  }
  // Google's genai SDK: ApiError, the body's JSON after the status in its message.
  if (e.name === 'ApiError' && typeof e.message === 'string') {
    const brace = e.message.indexOf('{');
    if (brace >= 0) {
      try {
        return { status: e.status, headers: null, body: JSON.parse(e.message.slice(brace)) as unknown };
      } catch {
        // not JSON: the status speaks
      }
    }
  }
  return undefined;
}

/** The codes of a failure before any response: the socket's, DNS's and undici's. */
/** The v2 MCP client's SdkError codes for a request that got no answer (its SdkErrorCode). */
const MCP_SDK_NO_ANSWER = /^(REQUEST_TIMEOUT|CONNECTION_CLOSED|SEND_FAILED|NOT_CONNECTED)$/;
const NETWORK_CODES = /^(E(CONN(REFUSED|RESET|ABORTED)|TIMEDOUT|NOTFOUND|AI_AGAIN|PIPE|HOSTUNREACH|NETUNREACH)|UND_ERR_(SOCKET|CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT|CLOSED)|ERR_NETWORK)$/;
/** The names SDKs give a request that got no response: Stainless's, Stripe's (as its type), and a timeout's. */
const NETWORK_NAMES = /^(APIConnection(Timeout)?Error|StripeConnectionError|TimeoutError|FetchError)$/;

/** True when an error, or one of its causes, says the request got no response. */
function isNetwork(error: unknown, depth = 0): boolean {
  if (!isRecord(error) && !(error instanceof Error)) return false;
  const e = error as Record<string, unknown>;
  if (typeof e.code === 'string' && NETWORK_CODES.test(e.code)) return true;
  if (e.name === 'McpError' && (e.code === -32000 || e.code === -32001)) return true;
  if (e.name === 'SdkError' && typeof e.code === 'string' && MCP_SDK_NO_ANSWER.test(e.code)) return true;
  if (NETWORK_NAMES.test(String(e.type ?? '')) || NETWORK_NAMES.test(String(e.name ?? '')) || NETWORK_NAMES.test(String((e.constructor as { name?: unknown } | undefined)?.name ?? ''))) return true;
  // fetch's own: TypeError('fetch failed') with the socket's error as its cause.
  return depth < 4 && e.cause !== undefined && e.cause !== error && isNetwork(e.cause, depth + 1);
}

/** What a thrown error means, or undefined when it is neither a response an SDK carries nor a failure before one. */
export function thrownError(thrown: unknown): { readonly error: EnvelopeError; readonly response?: Response; readonly network?: true } | undefined {
  if (!(thrown instanceof Error) && !isRecord(thrown)) return undefined;
  const e = thrown as unknown as Record<string, unknown>;
  let found: Carried | undefined;
  try {
    found = carried(e);
  } catch {
    found = undefined; // a getter that throws: what else it says decides
  }
  if (found !== undefined) {
    const response = own(e, 'response');
    return { error: fromResponse(found.status, found.headers, found.body).error, ...(response instanceof Response ? { response } : {}) };
  }
  if (!isNetwork(thrown)) return undefined;
  const code = READERS.signals.network_failure;
  const message = typeof e.message === 'string' && e.message.trim() !== '' ? e.message.slice(0, 300) : 'the request failed before a response arrived';
  return { error: { code, message, field: null, retry: lookup(code).retry, retry_after: null }, network: true };
}
