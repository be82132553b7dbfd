// The agent's error path: a site's error answer kept to answer from memory in its own words, the
// answer made from it, and the error of a request that got no response.
// Loaded on the error path only (the client and the drop-in import it when an error arrives), so
// an agent's success path does not carry it.
import { READERS } from '../../generated/catalog.js';
import type { EnvelopeError } from '../../generated/types.js';
import { isKnownCode, lookup } from '../core/catalog.js';
import { toHeaders, type HeadersInput } from '../core/headers.js';
import { errorHeaders } from '../core/render.js';
import { SOURCE_HEADER } from './policy.js';
import type { KeptAnswer, Learnt, Tripped } from './store.js';

/** The header of an answer from memory that says where and when its wait was learnt: `Agent-Errors-Learnt: "https://api.example/a"; at=2026-12-06T20:00:00.000Z`. */
export const LEARNT_HEADER = 'agent-errors-learnt';

/** The most bytes of an error body kept to answer from memory in the site's own words; a longer one is answered with the envelope. */
export const KEPT_ANSWER_BYTES = 16 * 1024;
// Headers that describe this connection or the bytes as sent, not the answer: a remembered answer
// has its body decoded and whole, and sets no cookie a second time.
const NOT_KEPT = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'set-cookie', 'date', 'age', 'retry-after', 'trailer', 'upgrade']);

/**
 * What a site said, kept to answer from memory as it said it: its status, its headers (less those
 * of the connection and the encoding), and its decoded body when it arrived whole and is at most
 * KEPT_ANSWER_BYTES. Undefined otherwise.
 */
export function keptAnswer(status: number, headers: HeadersInput, body: Uint8Array | null, whole: boolean): KeptAnswer | undefined {
  if (!whole || (body !== null && body.byteLength > KEPT_ANSWER_BYTES)) return undefined;
  const kept: [string, string][] = [];
  for (const [name, value] of toHeaders(headers)) if (!NOT_KEPT.has(name)) kept.push([name, value]);
  return { status, headers: kept, body: body === null ? '' : new TextDecoder().decode(body) };
}

/**
 * The answer to a wait remembered for the site, without a call: what the site said (its status,
 * headers and body) when it was kept, else the envelope with the status of its code (a site's own
 * code, whose status the store does not keep, gets the catalog's rate-limit code's); either way
 * with Retry-After set to what remains of the wait, SOURCE_HEADER, and LEARNT_HEADER when it is
 * known where the wait was learnt.
 */
export function memoryAnswer(error: EnvelopeError, answer?: KeptAnswer, learnt?: Learnt): { status: number; headers: [string, string][]; body: string } {
  const marks: [string, string][] = [[SOURCE_HEADER, 'memory']];
  if (learnt) marks.push([LEARNT_HEADER, `${JSON.stringify(learnt.url)}; at=${new Date(learnt.at).toISOString()}`]);
  if (answer) {
    if (error.retry_after !== null) marks.push(['retry-after', String(error.retry_after)]);
    return { status: answer.status, headers: [...(answer.headers as [string, string][]), ...marks], body: answer.body };
  }
  const status = lookup(isKnownCode(error.code) ? error.code : READERS.signals.rate_limit_headers).status;
  return { status, headers: [...Object.entries(errorHeaders('envelope', error.retry_after)), ...marks], body: JSON.stringify({ error }) };
}

/** What a failed connection was, in words, from undici's error causes. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; name?: string } })?.cause;
  const code = cause?.code ?? (error as { code?: string })?.code;
  const name = (error as { name?: string })?.name;
  switch (code) {
    case 'ECONNREFUSED':
      return 'the connection was refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name did not resolve';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'the request timed out';
    default:
      return name === 'TimeoutError' ? 'the request timed out' : 'the request failed before a response arrived';
  }
}

/** The envelope error for a request that got no response. */
export function networkError(url: URL, error: unknown): EnvelopeError {
  const code = READERS.signals.network_failure;
  return { code, message: `${url.host}: ${networkReason(error)}`, field: null, retry: lookup(code).retry, retry_after: null };
}

/** The error a spent quota is handed back with. */
export function quotaError(url: URL, seconds: number, limit: number | undefined): EnvelopeError {
  const code = READERS.signals.rate_limit_headers;
  const per = limit === undefined ? '' : ` of ${limit} requests`;
  return { code, message: `${url.host}: the quota${per} the site announced is spent until it resets`, field: null, retry: lookup(code).retry, retry_after: seconds };
}

/** An answer's header pairs as one record, for the libraries that take headers so (undici's handlers, got, axios): repeated names joined with ", " (RFC 9110 section 5.3). */
export function headerRecord(pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of pairs) fields[name] = Object.hasOwn(fields, name) ? `${fields[name]}, ${value}` : value;
  return fields;
}

/** The error a request gets, without a call, while its scope's circuit is open: the site is down, and calls wait for the next probe, `seconds` away. */
export function circuitError(url: URL, seconds: number, open: Pick<Tripped, 'failures' | 'calls'>): EnvelopeError {
  const code = READERS.signals.circuit_open;
  return { code, message: `${url.host}: ${open.failures} of its last ${open.calls} calls failed (server errors or no answer), so no call is made until the next probe, in ${seconds} s`, field: null, retry: lookup(code).retry, retry_after: seconds };
}
