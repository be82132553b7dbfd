// Decoding an error body held as it came off the wire (Node only: node:zlib), bounded: the undici
// interceptor and the got binding read below the layer that decodes, so they decode what they hold.
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate, constants } from 'node:zlib';
import { MAX_BODY_BYTES } from '../core/from-response.js';

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  'x-gzip': () => createGunzip({ finishFlush: constants.Z_SYNC_FLUSH }),
  deflate: () => createInflate({ finishFlush: constants.Z_SYNC_FLUSH }),
  br: () => createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH }),
};

/** At most MAX_BODY_BYTES of `bytes` decoded by one decoder, as far as a truncated input goes. */
function inflated(bytes: Buffer, decoder: Transform): Promise<Buffer> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let size = 0;
    const done = (): void => resolve(Buffer.concat(out, Math.min(size, MAX_BODY_BYTES)));
    decoder.on('data', (chunk: Buffer) => {
      out.push(chunk);
      size += chunk.length;
      if (size >= MAX_BODY_BYTES) decoder.destroy();
    });
    decoder.on('close', done);
    decoder.on('error', done);
    decoder.end(bytes);
  });
}

/**
 * Bytes held as they came off the wire, as fromResponse should read them: decoded by each coding
 * of Content-Encoding in turn, at most MAX_BODY_BYTES of output each (a bomb is inflated only
 * that far). Null for a coding it does not know. The undici interceptor and the got binding hold
 * bytes below the decoding fetch and got do, so they decode their own copy.
 */
export async function readable(bytes: Buffer, encoding: string | string[] | undefined): Promise<Buffer | null> {
  const codings = String(encoding ?? '')
    .toLowerCase()
    .split(',')
    .map((coding) => coding.trim())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  let decoded = bytes;
  for (const coding of codings) {
    const decoder = Object.hasOwn(DECODERS, coding) ? DECODERS[coding]! : null;
    if (decoder === null) return null;
    decoded = await inflated(decoded, decoder());
  }
  return decoded;
}

/**
 * Counts what a body held as it came off the wire decodes to, as it arrives: `onLimit` is called
 * once its decoded bytes reach MAX_BODY_BYTES (a compression bomb is cut there, before the layer
 * that decodes for the caller has inflated much more). Null for no coding, several, or one it does not know.
 */
export function decodedLimit(encoding: string | string[] | undefined, onLimit: () => void): { write(chunk: Buffer): void; end(): void } | null {
  const coding = String(encoding ?? '').trim().toLowerCase();
  if (!Object.hasOwn(DECODERS, coding)) return null;
  const decoder = DECODERS[coding]!();
  let size = 0;
  decoder.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size < MAX_BODY_BYTES) return;
    decoder.destroy();
    onLimit();
  });
  decoder.on('error', () => undefined);
  return { write: (chunk) => void (decoder.destroyed || decoder.write(chunk)), end: () => decoder.destroy() };
}
