// Seed 002's scripted service on a real clock, bare: each cell gets its own loopback port (so no
// client's per-origin memory leaks from one cell into another) and its own run id, whose clock
// starts at its first call, as the example shop times runs (src/tools/example-shop.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DIALECTS, type Dialect } from '../../src/core/dialects.js';
import { FAILURES, scriptedService, type FailureName } from '../../src/tools/demo.js';

/** One cell's endpoint: its URL and how many calls the service saw for it. */
export interface Endpoint {
  readonly url: string;
  readonly calls: () => number;
}

/** The scripted service: opens one endpoint per cell and closes them all. */
export interface ScriptedService {
  open(failure: FailureName, dialect: Dialect): Promise<Endpoint>;
  close(): Promise<void>;
}

/** Starts nothing until `open`; each endpoint is `http://127.0.0.1:{port}/{dialect}/{failure}?run={id}`. */
export function createScriptedService(): ScriptedService {
  const started = new Map<string, number>();
  const calls = new Map<string, number>();
  const servers: Server[] = [];
  let runs = 0;

  // Bare on purpose: AgentFriendly would rewrite a dialect into this package's envelope for any
  // caller whose Accept ranks JSON first (axios sends `application/json, text/plain, */*`), so the
  // clients would not all meet the same body. The bench compares clients on what the service says.
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = new URL(req.url ?? '/', 'http://peers.local');
    const [, dialect, failure] = url.pathname.split('/') as [string, Dialect, FailureName];
    if (!(DIALECTS as readonly string[]).includes(dialect) || !Object.hasOwn(FAILURES, failure)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('no such cell');
      return;
    }
    const run = url.searchParams.get('run') ?? '';
    calls.set(run, (calls.get(run) ?? 0) + 1);
    if (!started.has(run)) started.set(run, Date.now());
    const reply = scriptedService(failure, dialect, (Date.now() - started.get(run)!) / 1000);
    res.writeHead(reply.status, reply.headers).end(reply.body);
  };

  return {
    async open(failure, dialect) {
      const server = createServer(listener);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const run = String(++runs);
      const { port } = server.address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}/${dialect}/${failure}?run=${run}`, calls: () => calls.get(run) ?? 0 };
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
