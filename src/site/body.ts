// The bytes of an app's error body, as every adapter reads them for the conversion: the first
// bufferBytes of a body held in memory, or of a stream, which is never read past them. Written once
// for every adapter, with the web platform only (no Buffer), so that the Fetch adapter runs anywhere.

/** The length of a string in UTF-8 bytes; without encoding it when it is ASCII, as rendered bodies nearly always are. */
export function utf8Length(text: string): number {
  return /^[\x00-\x7f]*$/.test(text) ? text.length : new TextEncoder().encode(text).byteLength;
}

/**
 * The first `cap` bytes of a body held in memory (a string by its first `cap` characters, as the app
 * gave it): null for no body, undefined for one that is not in memory (a stream, a Response).
 */
export function heldBytes(body: unknown, cap: number): Uint8Array | string | null | undefined {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') return body.length > cap ? body.slice(0, cap) : body;
  return body instanceof Uint8Array ? body.subarray(0, cap) : undefined;
}

/** The first bytes of a body stream, and what is needed to give the body back whole or stop it. */
export interface CappedBody {
  /** The first `cap` bytes of the body (fewer when it is shorter); null when it has none. */
  readonly head: Uint8Array | null;
  /** True when the whole body was read; false when the stream was left at the cap with more to come. */
  readonly complete: boolean;
  /** The body as it was, every byte: what was read, then the unread rest, streamed and not buffered. Once only. */
  readonly whole: () => Uint8Array | ReadableStream<Uint8Array> | null;
  /** Stops the unread rest of the stream, so its source is not pulled any further. */
  readonly cancel: () => void;
  /** What the stream failed with, when it failed before its end or the cap. */
  readonly failure?: unknown;
}

/** A stream chunk as bytes: a stream built by an app may carry strings or any buffer view. */
function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('a response body chunk is not bytes');
}

/** The first `length` bytes of the chunks, as one array. */
function concat(chunks: readonly Uint8Array[], length: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    if (at >= length) break;
    const part = chunk.subarray(0, length - at);
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** What readCapped reads from: a web ReadableStream, or any async iterable of chunks (a node stream). */
export type BodyStream = ReadableStream<Uint8Array> | AsyncIterable<unknown>;

/** A reader of either kind of stream: a web stream's own, or one over an async iterator, whose return() destroys a node stream. */
function readerOf(stream: BodyStream): Pick<ReadableStreamDefaultReader<unknown>, 'read' | 'cancel' | 'releaseLock'> {
  if (typeof (stream as ReadableStream).getReader === 'function') return (stream as ReadableStream<unknown>).getReader();
  const iterator = (stream as AsyncIterable<unknown>)[Symbol.asyncIterator]();
  return {
    read: () => iterator.next() as Promise<ReadableStreamReadResult<unknown>>,
    cancel: async (reason) => void (await iterator.return?.(reason)),
    releaseLock: () => undefined,
  };
}

/**
 * Reads a body stream (a web ReadableStream, or a node stream as any async iterable) up to `cap`
 * bytes, and stops there without reading the rest: a 10 MB error page costs `cap` bytes (plus the
 * one chunk that crossed it), never 10 MB. The stream is left open, so the caller chooses:
 * `cancel()` it, or send it on `whole()`.
 */
export async function readCapped(body: BodyStream | null, cap: number): Promise<CappedBody> {
  if (body === null) return { head: null, complete: true, whole: () => null, cancel: () => undefined };
  const reader = readerOf(body);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let complete = false;
  let failure: unknown;
  try {
    while (total < cap) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      const bytes = asBytes(value);
      chunks.push(bytes);
      total += bytes.byteLength;
    }
  } catch (error) {
    // The app's stream failed: what was read is all there is, as a client reading it would have found.
    complete = true;
    failure = error ?? new Error('the response body stream failed');
  }
  if (complete) {
    reader.releaseLock();
    const all = concat(chunks, total);
    return { head: total === 0 ? null : all.subarray(0, cap), complete, whole: () => all, cancel: () => undefined, ...(failure === undefined ? {} : { failure }) };
  }
  const head = total === 0 ? null : concat(chunks, Math.min(total, cap));
  return {
    head,
    complete,
    whole: () =>
      new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            // What was read goes first, let go of as it is sent; then the rest, a chunk per pull.
            if (chunks.length > 0) return controller.enqueue(chunks.shift()!);
            const { done, value } = await reader.read();
            if (done) controller.close();
            else controller.enqueue(asBytes(value));
          },
          cancel: (reason) => reader.cancel(reason),
        },
        { highWaterMark: 0 },
      ),
    cancel: () => void reader.cancel().catch(() => undefined),
  };
}
