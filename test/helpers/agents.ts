// Request header sets the AgentFriendly adapter tests share, and byte-level helpers.
import { createHash } from 'node:crypto';

/** Accept as agents send it: Markdown first, HTML as good, anything else. */
export const AGENT = { accept: 'text/markdown, text/html, */*' };
/** An agent that asks for RFC 9457 problem details. */
export const PROBLEM = { accept: 'application/problem+json' };
/** A browser's Accept. */
export const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
/** Accept: any type at all, which names no agent type: not an agent. */
export const ANY = { accept: '*/*' };
/** A request signed as Web Bot Auth sends it (RFC 9421 Signature and Signature-Input, plus Signature-Agent). */
export const SIGNED = {
  accept: '*/*',
  signature: 'sig1=:jdq0SqOwHdyHr9+r5jw3iYZH6aNGKijYp/EstF4RQTQdi5N5YYKrD+mCT1HA1nZDsi6nJKuHxUi/5Syp3rLWBA==:',
  'signature-input': 'sig1=("@authority");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735693200;tag="web-bot-auth"',
  'signature-agent': '"https://signature-agent.example"',
};

/** SHA-256 of bytes or text, hex. */
export const sha = (bytes: ArrayBuffer | Uint8Array | string): string =>
  createHash('sha256').update(typeof bytes === 'string' ? bytes : new Uint8Array(bytes)).digest('hex');

/** The chunk size of counted() streams. */
export const CHUNK = 16 * 1024;

/** A body stream of `total` bytes that counts what its consumer pulls from it. */
export function counted(total: number, first = '') {
  const stats = { pulled: 0, cancelled: false };
  const prefix = new TextEncoder().encode(first);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stats.pulled >= total) return controller.close();
      const chunk = new Uint8Array(Math.min(CHUNK, total - stats.pulled)).fill(120);
      if (stats.pulled === 0) chunk.set(prefix);
      stats.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      stats.cancelled = true;
    },
  });
  return { stream, stats };
}
