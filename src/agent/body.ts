// The one reader of response bodies every agent host uses: it reads at most a given number of
// decoded bytes (fetch inflates a compressed body only as far as it is read) and stops at a
// deadline, whatever the site does; what it did not read stays unread, never buffered, and reaches
// the caller behind the bytes it held.

/** A body read as far as the limit and the deadline allowed. */
export interface Held {
  /** The bytes read, at most the limit (the last chunk cut there), decoded as fetch gives them. */
  readonly bytes: Uint8Array;
  /** True when the body ended within the limit and the deadline. */
  readonly whole: boolean;
  /** What reading threw: the body was cut off, or the connection lost. */
  readonly failed?: unknown;
  /** The response as the caller gets it: the held bytes, then the rest as the caller reads it. */
  readonly response: Response;
  /** Drops the rest unread, closing its connection. */
  readonly discard: () => void;
}

const EMPTY = new Uint8Array(0);
const ignore = (): void => undefined;

/** `chunks` as one array of at most `limit` bytes. */
function joined(chunks: readonly Uint8Array[], size: number, limit: number): Uint8Array {
  const out = new Uint8Array(Math.min(size, limit));
  let at = 0;
  for (const chunk of chunks) {
    if (at >= out.length) break;
    const part = chunk.subarray(0, out.length - at);
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** `response` with `body` in place of its own: the same status, headers, URL and redirect flag. */
function rebuilt(response: Response, body: ReadableStream<Uint8Array> | Uint8Array): Response {
  const copy = new Response(body as BodyInit, { status: response.status, statusText: response.statusText, headers: response.headers });
  // A Response made here has no URL of its own; the caller's code (an SDK's, a log's) may read it.
  Object.defineProperties(copy, { url: { value: response.url }, redirected: { value: response.redirected } });
  return copy;
}

/**
 * Reads `response`'s body until it ends, `limit` bytes arrived, `deadlineMs` passed or reading
 * failed. Never throws and never waits past the deadline: a body that drips, stalls after its
 * headers or never ends is cut there. A read still pending at the deadline is the caller's first.
 * @example const held = await hold(response, MAX_BODY_BYTES, 5000); fromResponse(status, headers, held.bytes)
 */
export async function hold(response: Response, limit: number, deadlineMs: number): Promise<Held> {
  const body = response.body;
  if (body === null) return { bytes: EMPTY, whole: true, response, discard: ignore };
  let reader: ReadableStreamDefaultReader<Uint8Array>;
  try {
    reader = body.getReader();
  } catch (failed) {
    // A body someone already read or locked: nothing to hold, and the response is theirs.
    return { bytes: EMPTY, whole: false, failed, response, discard: ignore };
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let whole = false;
  let failed: unknown;
  let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(resolve, deadlineMs, 'late');
  });
  try {
    while (size < limit) {
      pending = reader.read();
      // Handled here so that a read left pending at the deadline never rejects unheard.
      pending.catch(ignore);
      const next = await Promise.race([pending, late]);
      if (next === 'late') break;
      pending = null;
      if (next.done) {
        whole = true;
        break;
      }
      chunks.push(next.value);
      size += next.value.byteLength;
    }
  } catch (error) {
    failed = error;
    pending = null;
  } finally {
    clearTimeout(timer);
  }
  const bytes = joined(chunks, size, limit);
  const discard = (): void => {
    reader.cancel().catch(ignore);
  };
  if (whole) return { bytes, whole, response: rebuilt(response, joined(chunks, size, size)), discard: ignore };
  const rest = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      if (failed !== undefined) controller.error(failed);
    },
    async pull(controller) {
      try {
        const next = await (pending ?? reader.read());
        pending = null;
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      } catch (error) {
        controller.error(error);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return { bytes, whole, ...(failed === undefined ? {} : { failed }), response: rebuilt(response, rest), discard };
}
