// Real HTTP servers on loopback for the tests, with a count of the requests they saw.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';

export interface TestServer {
  /** The server's origin, http://127.0.0.1:port. */
  readonly url: string;
  /** How many requests it has received. */
  readonly calls: () => number;
  readonly close: () => Promise<void>;
  readonly server: Server;
}

/** Listens on a free loopback port with `handler` (a node:http listener or an Express app). */
export async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestServer> {
  let count = 0;
  const server = createServer((req, res) => {
    count += 1;
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls: () => count,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A virtual clock: sleeping advances it at once and records each sleep. */
export function virtualClock(start = Date.UTC(2026, 10, 30, 12)) {
  let time = start;
  const sleeps: number[] = [];
  return {
    now: () => time,
    sleeps,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      time += ms;
    },
    advance: (ms: number) => void (time += ms),
  };
}

/** A free TCP port on loopback, for a server that takes its port from its command line or config rather than reporting a port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
