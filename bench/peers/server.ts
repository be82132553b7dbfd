// Loopback services on a real clock, bare: each cell gets its own loopback port (so no client's
// per-origin memory leaks from one cell into another) and its own clock, which starts at its first
// call, as the example shop times runs (src/tools/example-shop.ts). Two services use it: seed 002's
// scripted service in its five dialects, and the vendors' own error formats (vendors.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIALECTS, type Dialect } from '../../src/core/dialects.js';
import { FAILURES, scriptedService, type FailureName } from '../../src/tools/demo.js';

/** One cell's endpoint: its URL and how many calls the service saw for it. */
export interface Endpoint {
  readonly url: string;
  readonly calls: () => number;
}

/** What a cell answers one call with. */
export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A service of cells keyed by `K`: opens one endpoint per cell and closes them all. */
export interface LoopbackService<K> {
  open(key: K): Promise<Endpoint>;
  close(): Promise<void>;
}

/**
 * Starts nothing until `open`; each endpoint is a port of its own at `http://127.0.0.1:{port}{path(key)}`,
 * and every request to that port, whatever its path or method, is answered by `answer(key, seconds
 * since the port's first call, the first call's epoch ms)`.
 */
export function createLoopbackService<K>(answer: (key: K, elapsed: number, startedAt: number) => Reply, path: (key: K) => string = () => '/'): LoopbackService<K> {
  const servers: Server[] = [];
  return {
    async open(key) {
      let calls = 0;
      let startedAt: number | undefined;
      const server = createServer((req: IncomingMessage, res: ServerResponse) => {
        // The request body, read whole, so a client that sends one (the SDKs' POSTs) sees its answer after it.
        req.resume();
        req.on('end', () => {
          calls += 1;
          startedAt ??= Date.now();
          const reply = answer(key, (Date.now() - startedAt) / 1000, startedAt);
          res.writeHead(reply.status, reply.headers).end(reply.body);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}${path(key)}`, calls: () => calls };
    },
    async close() {
      await Promise.all(
        servers.map(
          (server) =>
            new Promise<void>((resolve) => {
              server.closeAllConnections();
              server.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/** One cell of seed 002's grid: a failure in a dialect. */
export interface SeedCell {
  readonly failure: FailureName;
  readonly dialect: Dialect;
}

/** Seed 002's scripted service, bare; each endpoint is `http://127.0.0.1:{port}/{dialect}/{failure}`. */
export type ScriptedService = LoopbackService<SeedCell>;

// Bare on purpose: AgentFriendly would rewrite a dialect into this package's envelope for any
// caller whose Accept ranks JSON first (axios sends `application/json, text/plain, */*`), so the
// clients would not all meet the same body. The bench compares clients on what the service says.
export function createScriptedService(): ScriptedService {
  return createLoopbackService<SeedCell>(
    ({ failure, dialect }, elapsed) => {
      if (!(DIALECTS as readonly string[]).includes(dialect) || !Object.hasOwn(FAILURES, failure)) return { status: 404, headers: { 'content-type': 'text/plain' }, body: 'no such cell' };
      return scriptedService(failure, dialect, elapsed);
    },
    ({ failure, dialect }) => `/${dialect}/${failure}`,
  );
}
