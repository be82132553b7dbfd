// The client's rules bound to got (which takes no fetch), through its own hooks: got.extend(agentGot())
// asks the store before each call (beforeRequest: a running wait slept out, or answered from memory
// in the site's own words without a call; another caller's probe followed; a spent quota kept to),
// reads each error response through fromResponse and lets got wait it out or send it again as the
// rules say (retry.calculateDelay), and bounds what got reads of an error body (a handler that
// watches each call's response: at most MAX_BODY_BYTES, for at most bodyTimeoutSeconds).
import { Readable } from 'node:stream';
import { STATUS_CODES, type IncomingMessage, type ClientRequest } from 'node:http';
import { HTTPError, type ExtendOptions, type Options, type Response, type RetryObject } from 'got';
import type { EnvelopeError } from '../../generated/types.js';
import { fromResponse, MAX_BODY_BYTES } from '../core/from-response.js';
import { decodedLimit, readable } from './inflate.js';
import { headerRecord, keptAnswer, memoryAnswer } from './answers.js';
import type { Learnt } from './store.js';
import { admit, allowance, drawRetry, freshAttempts, isIdempotent, maySayError, nextWait, payWith, remember, PLUGIN_CHECKS, resolveOptions, saysError, settle, type AgentClientOptions, type Allowance, type Attempts, type Pass, type PaymentHeaders } from './policy.js';

/** Options of agentGot: the client's, but for the fetch and Accept, which got's own options set; got sleeps a told wait itself, `sleep` a remembered one. */
export type AgentGotOptions = Omit<AgentClientOptions, 'fetch' | 'accept'>;

/** An error body cut at MAX_BODY_BYTES or bodyTimeoutSeconds: what arrived, decoded, and the error it was read as. */
interface Cut {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly bytes: Buffer;
  /** The Content-Encoding the bytes came in, which got was kept from decoding. */
  readonly encoding: string | undefined;
  found?: EnvelopeError;
}

/** One request's allowance and progress, kept in its got context: got copies the context into the options of each retry. */
interface Progress {
  readonly allowed: Allowance;
  readonly attempts: Attempts;
  /** The store key of the request's site, and its URL, once known. */
  key?: string;
  url?: URL;
  /** What the store let the current call do, until its answer is reported. */
  pass?: Pass | undefined;
  /** The error the current call's response was read as, by afterResponse for calculateDelay. */
  found?: EnvelopeError | undefined;
  /** The current call's error body, when it was cut short. */
  cut?: Cut | undefined;
  /** The Content-Encoding of the current call's error body, which this binding decodes instead of got (bounded). */
  encoding?: string | undefined;
  /** The headers the payment hook paid a 402 with, for the one call after it. */
  paying?: PaymentHeaders | undefined;
  /** The headers the current call paid with, and what the request had under each name before: put back on the next call. */
  paidWith?: [name: string, before: string | string[] | undefined][] | undefined;
  /** The seconds to wait before sending the request again, for an error inside a 2xx afterResponse found (errorsIn2xx). */
  inside?: number | undefined;
}
const PROGRESS = Symbol('agent-errors');

/** An answer from memory as got takes a response a beforeRequest hook returns: a readable with status and headers. */
function remembered(error: EnvelopeError, answer: Parameters<typeof memoryAnswer>[1], url: URL, learnt?: Learnt): Readable {
  const { status, headers, body } = memoryAnswer(error, answer, learnt);
  return Object.assign(Readable.from([Buffer.from(body)]), { statusCode: status, statusMessage: STATUS_CODES[status] ?? '', headers: headerRecord(headers), url: url.href, fromCache: false, complete: true });
}

/**
 * Options for got.extend that put the client's rules behind got's retry: `retry.calculateDelay`
 * reads each error response through fromResponse (headers and body) and returns the delay it asks
 * for, or 0 (got's "do not retry") for anything the catalog says not to retry, a wait with no
 * delay (unless `unknownDelay: 'backoff'`), a second wait, or sleeping past `maxWaitSeconds` in
 * all. got's own Retry-After handling only computes the value this ignores, so nothing is waited
 * twice. A request that gets no response is handed back, as the client does. A `beforeRequest`
 * hook asks the store before each call: a wait the site asked for earlier is slept out when it
 * fits, against the same allowance, and otherwise answered from memory without a call, in the
 * site's own words (got's HTTPError, or the response with throwHttpErrors: false). An error body
 * longer than MAX_BODY_BYTES, or slower than bodyTimeoutSeconds, is cut there and read as what
 * arrived: the caller gets an HTTPError (or the response) with that much of the body.
 * @example const client = got.extend(agentGot({ maxWaitSeconds: 30 }));
 */
export function agentGot(options: AgentGotOptions = {}): ExtendOptions {
  const { sleep, now, store, scopeOf, bodyTimeoutMs } = resolveOptions('agentGot', options, PLUGIN_CHECKS);

  /** The progress of the request `got` is running with these options, begun on its first call. */
  const progressOf = (got: Pick<Options, 'context' | 'method' | 'headers'>): Progress => {
    const context = got.context as Record<symbol, Progress | undefined>;
    return (context[PROGRESS] ??= {
      allowed: allowance(options, isIdempotent(got.method, got.headers)),
      attempts: freshAttempts(),
    });
  };

  /** Holds at most MAX_BODY_BYTES of an error response's body, for at most bodyTimeoutMs; then cuts it, keeping what arrived. */
  const guard = (res: IncomingMessage, progress: Progress): void => {
    if ((res.statusCode ?? 0) < 400) return;
    // got would inflate a compressed error body whole, a bomb included: it gets the bytes as sent
    // instead, and this binding decodes them, at most MAX_BODY_BYTES (afterResponse, judgeCut).
    const encoding = res.headers['content-encoding'];
    const decoded = decodedLimit(encoding, () => cut());
    if (decoded) {
      progress.encoding = encoding;
      delete res.headers['content-encoding'];
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const stop = (): void => {
      done = true;
      clearTimeout(timer);
      res.off('data', onData);
      decoded?.end();
    };
    const cut = (): void => {
      if (done) return;
      stop();
      progress.cut = { status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks), encoding: progress.encoding };
      res.destroy();
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      size += chunk.length;
      decoded?.write(chunk);
      if (size >= MAX_BODY_BYTES) cut();
    };
    const timer = setTimeout(cut, bodyTimeoutMs);
    res.on('data', onData);
    res.once('end', stop);
    res.once('close', () => clearTimeout(timer));
  };

  /** The error a cut body is read as, once, and told to the store. */
  const judgeCut = async (progress: Progress): Promise<EnvelopeError> => {
    const cut = progress.cut!;
    if (cut.found) return cut.found;
    const decoded = (await readable(cut.bytes, cut.encoding)) ?? cut.bytes;
    cut.found = fromResponse(cut.status, cut.headers, decoded, { now: now() }).error;
    (cut as { bytes: Buffer }).bytes = decoded;
    const { key, pass } = progress;
    progress.pass = undefined;
    if (key !== undefined && pass) await settle(store, key, pass, { status: cut.status, headers: cut.headers }, cut.found, now(), undefined, progress.url);
    return cut.found;
  };

  return {
    retry: {
      // The rules decide alone: got's limit, methods and status codes only compute the value ignored here.
      enforceRetryRules: false,
      limit: allowance(options, false).budget - 1,
      async calculateDelay({ attemptCount, error, computedValue }: RetryObject): Promise<number> {
        // A retry the caller's own afterResponse hook asked for is got's to make.
        // A retry the caller's own afterResponse hook asked for is got's to make.
        if (error.name === 'RetryError') return computedValue;
        const progress = progressOf(error.options);
        // An error inside a 2xx that afterResponse found (errorsIn2xx), with the wait the rules allow it.
        if (progress.inside !== undefined) {
          const seconds = progress.inside;
          progress.inside = undefined;
          return Math.max(1, seconds * 1000);
        }
        const { allowed, attempts } = progress;
        if (progress.cut) {
          attempts.calls = attemptCount;
          const seconds = nextWait(await judgeCut(progress), attempts, allowed);
          if (seconds === null || (progress.key !== undefined && (await drawRetry(store, progress.key, attempts)))) return 0;
          progress.cut = undefined;
          return Math.max(1, seconds * 1000);
        }
        const { response } = error;
        if (!response) {
          // No answer came: a probe this call held is free for another caller.
          const { key, pass } = progress;
          progress.pass = undefined;
          if (key !== undefined && pass) await settle(store, key, pass, undefined, undefined, now(), undefined, progress.url);
          return 0;
        }
        if (response.statusCode < 400) return 0;
        attempts.calls = attemptCount;
        const found = progress.found ?? fromResponse(response.statusCode, response.headers, response.rawBody ?? response.body, { now: now() }).error;
        // A 402 that says what to pay: the agent's hook decides, once per request; beforeRequest sends what it paid with.
        const url = error.options.url;
        progress.paying = (await payWith('agentGot', options.onPaymentRequired, found, attempts, allowed, { url: url instanceof URL ? url.href : String(url ?? ''), method: String(error.options.method) })) ?? undefined;
        if (progress.paying) return 1;
        const seconds = nextWait(found, attempts, allowed);
        // A retry of the package's own draws from the scope's budget; spent, the failure is got's to throw.
        if (seconds === null || (progress.key !== undefined && (await drawRetry(store, progress.key, attempts)))) return 0;
        // got reads 0 as "do not retry", so a retry at once waits a millisecond.
        return Math.max(1, seconds * 1000);
      },
    },
    handlers: [
      (gotOptions, next) => {
        const running = next(gotOptions) as unknown as { on?: (event: 'request', listener: (request: ClientRequest) => void) => void };
        // Each call's native response, before got reads its body.
        // Before got's own listener: guard may keep got from decoding a compressed error body.
        running.on?.('request', (request) => request.prependOnceListener('response', (res) => guard(res, progressOf(gotOptions))));
        return running as never;
      },
    ],
    hooks: {
      beforeRequest: [
        async (got) => {
          if (!(got.url instanceof URL)) return;
          const progress = progressOf(got);
          progress.key = scopeOf(got.url);
          // What the hook paid with goes on the one call after the 402, and on no later one (got keeps
          // the headers it was given for every retry).
          for (const [name, before] of progress.paidWith ?? []) {
            if (before === undefined) delete got.headers[name];
            else got.headers[name] = before;
          }
          progress.paidWith = undefined;
          if (progress.paying) {
            progress.paidWith = [];
            for (const [name, value] of Object.entries(progress.paying)) {
              const key = name.toLowerCase();
              progress.paidWith.push([key, got.headers[key] as string | string[] | undefined]);
              got.headers[key] = value;
            }
            progress.paying = undefined;
          }
          progress.cut = undefined;
          progress.encoding = undefined;
          progress.url = got.url;
          const answer = await admit({ store, key: progress.key, url: got.url, attempts: progress.attempts, allowed: progress.allowed, now, sleep, signal: got.signal });
          progress.pass = 'pass' in answer ? answer.pass : undefined;
          // A wait too long to take: answered without a call, as a response got reads as the site's own.
          if ('error' in answer) return remembered(answer.error, answer.answer, got.url, answer.learnt) as never;
        },
      ],
      afterResponse: [
        async (response: Response) => {
          const progress = progressOf(response.request.options);
          const { key, pass, encoding } = progress;
          progress.pass = undefined;
          progress.encoding = undefined;
          if (encoding !== undefined && response.statusCode >= 400) {
            // The error body as got would have decoded it, at most MAX_BODY_BYTES of it.
            const bytes = (await readable(response.rawBody, encoding)) ?? response.rawBody;
            const text = bytes.toString();
            let body: unknown = text;
            if (response.request.options.responseType === 'json') {
              try {
                body = JSON.parse(text);
              } catch {}
            }
            Object.assign(response, { rawBody: bytes, body });
          }
          // A success is read for an error inside it only when errorsIn2xx asks (a GraphQL or JSON-RPC error, S3's <Error>).
          const options_ = response.request.options;
          const inside =
            response.statusCode < 400 &&
            options.errorsIn2xx === true &&
            maySayError(String(options_.method).toUpperCase(), response.statusCode, response.headers['content-type'] ?? null) &&
            saysError(response.rawBody ?? null, true);
          const found = response.statusCode >= 400 || inside ? fromResponse(response.statusCode, response.headers, response.rawBody ?? response.body, { now: now() }).error : undefined;
          progress.found = found;
          if (key === undefined) return response;
          const body = response.rawBody ?? null;
          if (pass) await settle(store, key, pass, { status: response.statusCode, headers: response.headers }, found, now(), found && keptAnswer(response.statusCode, response.headers, body, body !== null), progress.url);
          else if (found) await remember(store, key, found, now(), progress.url, response.statusCode);
          if (inside && found) {
            // got retries only what it takes for an error: a wait inside a 2xx the rules take is thrown
            // as one, and calculateDelay waits it out; anything else is the success it came as.
            progress.attempts.calls = response.retryCount + 1;
            const seconds = nextWait(found, progress.attempts, progress.allowed);
            if (seconds !== null) {
              progress.inside = seconds;
              throw new Error(`agent-errors: ${found.code} inside a ${response.statusCode}, waited out once (${seconds} s)`);
            }
          }
          return response;
        },
      ],
      beforeError: [
        async (error) => {
          // A body cut short: an HTTPError with what arrived (got then resolves it with throwHttpErrors: false).
          const response = error.response as Response | undefined;
          if (error instanceof HTTPError || !response || !error.options) return error;
          const progress = progressOf(error.options);
          if (!progress.cut) return error;
          await judgeCut(progress);
          const bytes = progress.cut.bytes;
          progress.cut = undefined;
          Object.assign(response, { rawBody: bytes, body: bytes.toString() });
          return new HTTPError(response);
        },
      ],
    },
  };
}
