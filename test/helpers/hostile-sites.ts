// A hostile site on loopback: one node:http server with a route per way a site can hurt the agent
// that reads its errors. Huge bodies, bodies that never end, compression bombs, a body that drips,
// headers and then silence. Every route stops writing the moment the client's socket closes, and
// counts what it wrote, so a test can tell that an agent let go.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { constants, createBrotliCompress, createGzip, type BrotliCompress, type Gzip } from 'node:zlib';

const MiB = 1024 * 1024;

/** The size of the 404 page of /big-404. */
export const BIG_BYTES = 50 * MiB;
/** What /gzip-404 and /br-404 inflate to. */
export const BOMB_BYTES = 256 * MiB;
/** The chunk the endless routes write, again and again. */
export const CHUNK_BYTES = 64 * 1024;

/** One route: its path, and what it does to a request. */
export interface HostileRoute {
  readonly path: string;
  readonly what: string;
}

export const HOSTILE_ROUTES = {
  warm: { path: '/warm', what: 'a 200 of two bytes, to load the host before measuring' },
  big404: { path: '/big-404', what: 'a 404 with a 50 MB HTML body, sent as fast as the socket takes it' },
  endless503: { path: '/endless-503', what: 'a 503 with Retry-After: 120 and a body that never ends (64 KiB chunks until the socket closes)' },
  gzip404: { path: '/gzip-404', what: 'a 404 with Content-Encoding: gzip whose body inflates to 256 MB' },
  br404: { path: '/br-404', what: 'a 404 with Content-Encoding: br whose body inflates to 256 MB' },
  drip500: { path: '/drip-500', what: 'a 500 whose body drips 10 bytes a second' },
  silent503: { path: '/silent-503', what: 'a 503 whose headers come, and then nothing' },
  endless200: { path: '/endless-200', what: 'a 200 whose body never ends' },
} as const satisfies Record<string, HostileRoute>;

/** What the site did: requests per path, bytes written per path, and responses still open. */
export interface HostileStats {
  readonly requests: Record<string, number>;
  readonly written: Record<string, number>;
  readonly open: number;
}

export interface HostileSite {
  readonly url: string;
  readonly stats: () => HostileStats;
  readonly close: () => Promise<void>;
}

const PAGE_HEAD = '<!doctype html><html><head><title>Not found</title></head><body><h1>Not found</h1>';

/** A bomb: PAGE_HEAD then spaces, BOMB_BYTES in all, through `encoder`, in 1 MiB writes. */
async function bomb(encoder: Gzip | BrotliCompress): Promise<Buffer> {
  const out: Buffer[] = [];
  encoder.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = once(encoder, 'end');
  const spaces = Buffer.alloc(MiB, 0x20);
  encoder.write(PAGE_HEAD);
  for (let written = PAGE_HEAD.length; written < BOMB_BYTES; written += MiB) {
    if (!encoder.write(written + MiB > BOMB_BYTES ? spaces.subarray(0, BOMB_BYTES - written) : spaces)) await once(encoder, 'drain');
  }
  encoder.end();
  await ended;
  return Buffer.concat(out);
}

/** The gzip and brotli bombs, made once per process (about 250 KB and 400 bytes). */
let bombs: Promise<{ gzip: Buffer; br: Buffer }> | undefined;
function bombsOnce(): Promise<{ gzip: Buffer; br: Buffer }> {
  bombs ??= (async () => ({
    gzip: await bomb(createGzip({ level: 9 })),
    br: await bomb(createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: BOMB_BYTES } })),
  }))();
  return bombs;
}

/** Starts the hostile site on 127.0.0.1. */
export async function startHostileSite(): Promise<HostileSite> {
  const { gzip, br } = await bombsOnce();
  const requests: Record<string, number> = {};
  const written: Record<string, number> = {};
  let open = 0;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    requests[path] = (requests[path] ?? 0) + 1;
    open += 1;
    let closed = false;
    const gone = new Promise<void>((resolve) =>
      res.once('close', () => {
        closed = true;
        open -= 1;
        resolve();
      }),
    );
    req.resume();
    const count = (bytes: number): void => void (written[path] = (written[path] ?? 0) + bytes);
    /** Writes `chunk` again and again (at most `total` bytes, or forever), as fast as the socket drains, until the client goes. */
    const pump = async (chunk: Buffer, total = Infinity): Promise<void> => {
      let sent = 0;
      while (!closed && sent < total) {
        const piece = total - sent < chunk.length ? chunk.subarray(0, total - sent) : chunk;
        sent += piece.length;
        count(piece.length);
        if (!res.write(piece)) await Promise.race([once(res, 'drain'), gone]);
      }
      if (!closed) res.end();
    };

    switch (path) {
      case HOSTILE_ROUTES.warm.path:
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      case HOSTILE_ROUTES.big404.path: {
        res.writeHead(404, { 'content-type': 'text/html', 'content-length': String(BIG_BYTES) });
        res.write(PAGE_HEAD);
        count(PAGE_HEAD.length);
        return void pump(Buffer.alloc(CHUNK_BYTES, 0x20), BIG_BYTES - PAGE_HEAD.length);
      }
      case HOSTILE_ROUTES.endless503.path: {
        res.writeHead(503, { 'content-type': 'text/html', 'retry-after': '120' });
        const title = '<!doctype html><title>Down for maintenance</title>';
        res.write(title);
        count(title.length);
        return void pump(Buffer.alloc(CHUNK_BYTES, 0x20));
      }
      case HOSTILE_ROUTES.gzip404.path:
      case HOSTILE_ROUTES.br404.path: {
        const [encoding, body] = path === HOSTILE_ROUTES.gzip404.path ? ['gzip', gzip] : ['br', br];
        res.writeHead(404, { 'content-type': 'text/html', 'content-encoding': encoding, 'content-length': String(body.length) });
        count(body.length);
        return void res.end(body);
      }
      case HOSTILE_ROUTES.drip500.path: {
        res.writeHead(500, { 'content-type': 'text/html' });
        res.flushHeaders();
        const page = Buffer.from('<!doctype html><html><head><title>Internal Server Error</title></head><body>' + '.'.repeat(10_000));
        let at = 0;
        // 10 bytes a second: one every 100 ms.
        const timer = setInterval(() => {
          if (closed || at >= page.length) return void clearInterval(timer);
          res.write(page.subarray(at, at + 1));
          count(1);
          at += 1;
        }, 100);
        return void gone.then(() => clearInterval(timer));
      }
      case HOSTILE_ROUTES.silent503.path: {
        res.writeHead(503, { 'content-type': 'text/html' });
        res.flushHeaders();
        return; // and nothing more, until the client goes
      }
      case HOSTILE_ROUTES.endless200.path: {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return void pump(Buffer.alloc(CHUNK_BYTES, 0x61));
      }
      default:
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('no such route');
    }
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stats: () => ({ requests: { ...requests }, written: { ...written }, open }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
