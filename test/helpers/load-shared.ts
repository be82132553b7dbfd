// What the load test's servers (test/helpers/load-apps.ts, in child processes) and its client
// (test/helpers/load-client.ts, in the vitest worker) both know: the adapters, the routes, the
// streamed bodies byte for byte, and the thrown errors. Imports no framework.

export const ADAPTERS = ['node', 'express', 'fastify', 'hono'] as const;
export type Adapter = (typeof ADAPTERS)[number];

/** The text every thrown error carries, which no response may show. */
export const SECRET = 'secret-db-password-7f3a';

/** Requests each key may make to /limited in one window, per rate limiter. */
export const LIMIT = 3;
/** The rate limiters' window: one hour, so that no window resets during a run. */
export const WINDOW_MS = 3_600_000;

/** What /agent-error throws: agentError('temporarily_unavailable', { retryAfter: 7, message: 'Back soon' }). */
export const AGENT_ERROR = { code: 'temporarily_unavailable', message: 'Back soon', field: null, retry: 'after_delay', retry_after: 7 } as const;

/** The JSON success, serialized by each framework the way JSON.stringify does it. */
export const JSON_BODY = {
  order: 'ord_1042',
  status: 'shipped',
  currency: 'EUR',
  items: Array.from({ length: 15 }, (_, i) => ({ sku: `sku-${1000 + i}`, name: `Item number ${i}`, qty: 1 + (i % 3), price: 1000 + i * 25 })),
};

/** The node:http app's own 404 and 500 pages. */
export const NODE_404 = '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n</body>\r\n</html>\r\n';
export const NODE_500 = '<html>\r\n<head><title>500 Internal Server Error</title></head>\r\n<body>\r\n<center><h1>500 Internal Server Error</h1></center>\r\n</body>\r\n</html>\r\n';

/** The chunk size streamed bodies are written in, one chunk per turn of the event loop. */
export const STREAM_CHUNK = 16 * 1024;
/** The sizes of the streamed successes, by seed: 64 KiB to 1 MiB, some not a whole number of chunks. */
export const STREAM_SIZES = [64 * 1024, 96 * 1024 + 3, 128 * 1024, 160 * 1024 + 17, 200 * 1024, 256 * 1024, 512 * 1024 + 1, 1024 * 1024] as const;

const bodies = new Map<number, Buffer>();

/** The streamed success of `seed` (0 to 7): deterministic pseudo-random bytes (xorshift32), a different body per seed. */
export function streamBody(seed: number): Buffer {
  const known = bodies.get(seed);
  if (known) return known;
  const size = STREAM_SIZES[seed]!;
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = (0x9e3779b9 ^ (seed * 0x85ebca6b)) >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    words[i] = x;
  }
  const body = Buffer.from(words.buffer, 0, size);
  bodies.set(seed, body);
  return body;
}

/** The chunks of a body, as views (never changed, so sending one again is safe). */
export function chunksOf(body: Buffer, size = STREAM_CHUNK): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < body.length; at += size) out.push(body.subarray(at, at + size));
  return out;
}

/** The body every fault route streams before it fails: 3 chunks of the seed-0 body. */
export const PARTIAL_CHUNKS = 3;

/** The start of the 502 page /fault/close-error sends before its source closes. */
export const PARTIAL_PAGE = '<html><head><title>Bad gateway</title></head><body><p>The upstream';
/** The start of the 500 page the /fault/*-after-error-headers routes send before they throw. */
export const OOPS_PAGE = '<html><head><title>Oops</title></head><body><p>Something';

/** The trickled success: TRICKLE_PARTS parts of TRICKLE_PART bytes, one every TRICKLE_MS. */
export const TRICKLE_PARTS = 20;
export const TRICKLE_PART = 100;
export const TRICKLE_MS = 50;
export const trickleBody = (): Buffer => streamBody(1).subarray(0, TRICKLE_PARTS * TRICKLE_PART);
/** The trickled error page (404, text/html), in TRICKLE_PARTS parts. */
export const TRICKLE_PAGE = `<html><head><title>Nothing here</title></head><body>${'<p>still looking</p>'.repeat(TRICKLE_PARTS)}</body></html>`;
/** The 429 page /fault/slow-429 trickles, with Retry-After: SLOW_429_RETRY_AFTER. */
export const SLOW_429_PAGE = `<html><head><title>Too many requests</title></head><body>${'<p>slow down</p>'.repeat(TRICKLE_PARTS)}</body></html>`;
export const SLOW_429_RETRY_AFTER = 11;

/** Splits a string into `parts` pieces of near-equal length. */
export function split(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, i) => text.slice(i * size, (i + 1) * size)).filter((s) => s.length > 0);
}

/** Messages from the test to a server child. */
export type ToServer = { readonly id: number; readonly cmd: 'stats'; readonly gc: boolean } | { readonly id: number; readonly cmd: 'exit' };

/** What a server child reports about itself. */
export interface ServerStats {
  readonly adapter: Adapter;
  /** process.memoryUsage(), after global.gc() when asked for. */
  readonly memory: NodeJS.MemoryUsage;
  /** Open connections of the wrapped and the bare server (server.getConnections). */
  readonly connections: { readonly wrapped: number; readonly bare: number };
  /** process.getActiveResourcesInfo(), counted by kind. */
  readonly resources: Record<string, number>;
  /** Every uncaughtException and unhandledRejection the child saw (it registers listeners, so it survives to say so). */
  readonly uncaught: readonly string[];
  readonly unhandled: readonly string[];
  /** Process warnings (a MaxListenersExceededWarning is how a listener leak shows). */
  readonly warnings: readonly string[];
  /** What the adapter handed to onError, counted by the error's message. */
  readonly onError: Record<string, number>;
  /** Thrown errors that reached the app's own last resort (node:http only), by caller: an agent's never should. */
  readonly lastResort: { readonly agent: number; readonly browser: number };
}

/** A server child's first message. */
export interface Ready {
  readonly ready: true;
  readonly pid: number;
  readonly wrapped: number;
  readonly bare: number;
}
