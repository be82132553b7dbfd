// One adapter's apps (wrapped and bare, test/helpers/load-apps.ts) in a child process of their own,
// for test/load/*.test.ts: `node --expose-gc --import tsx test/helpers/load-server.ts <adapter>`
// with an IPC channel. Its own process, so that its memory is the server's alone (measured after
// global.gc, without the load generator's buffers in it), and so that an uncaught exception is
// this process's and not the test runner's. It registers uncaughtException and unhandledRejection
// listeners so that it lives to report them; the tests assert there were none.
//
// Sends a Ready message when both servers listen; answers {id, cmd: 'stats', gc} with ServerStats
// and {id, cmd: 'exit'} by closing its servers and exiting; exits when the channel closes.

import { setImmediate as nextTurn } from 'node:timers/promises';
import { startApp } from './load-apps.js';
import { ADAPTERS, type Adapter, type Ready, type ServerStats, type ToServer } from './load-shared.js';

const adapter = process.argv[2] as Adapter;
if (!ADAPTERS.includes(adapter) || !process.send) {
  console.error(`usage: node --expose-gc --import tsx load-server.ts <${ADAPTERS.join('|')}> (with an IPC channel)`);
  process.exit(2);
}

const describe = (error: unknown): string => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 300);
const uncaught: string[] = [];
const unhandled: string[] = [];
const warnings: string[] = [];
const onError = new Map<string, number>();
const lastResort = { agent: 0, browser: 0 };
process.on('uncaughtException', (error) => void uncaught.push(`${describe(error)}\n${(error as Error)?.stack ?? ''}`.slice(0, 2000)));
process.on('unhandledRejection', (reason) => void unhandled.push(`${describe(reason)}\n${(reason as Error)?.stack ?? ''}`.slice(0, 2000)));
process.on('warning', (warning) => void warnings.push(`${warning.name}: ${warning.message}`));

const hooks = {
  onError: (error: unknown) => void onError.set(describe(error), (onError.get(describe(error)) ?? 0) + 1),
  lastResort: (agent: boolean) => void (agent ? (lastResort.agent += 1) : (lastResort.browser += 1)),
};
const wrapped = await startApp(adapter, true, hooks);
const bare = await startApp(adapter, false, hooks);

const connections = (server: typeof wrapped.server): Promise<number> =>
  new Promise((resolve) => server.getConnections((error, count) => resolve(error ? -1 : count)));

async function stats(gc: boolean): Promise<ServerStats> {
  if (gc) {
    // Several collections a turn apart, so that what finalizers and weak references let go of goes too.
    for (let i = 0; i < 4; i++) {
      globalThis.gc!();
      await nextTurn();
    }
  }
  const resources: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
  return {
    adapter,
    memory: process.memoryUsage(),
    connections: { wrapped: await connections(wrapped.server), bare: await connections(bare.server) },
    resources,
    uncaught: [...uncaught],
    unhandled: [...unhandled],
    warnings: [...warnings],
    onError: Object.fromEntries(onError),
    lastResort: { ...lastResort },
  };
}

process.on('message', (message: ToServer) => {
  if (message.cmd === 'stats') void stats(message.gc).then((value) => process.send!({ id: message.id, stats: value }));
  if (message.cmd === 'exit') void Promise.all([wrapped.close(), bare.close()]).then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send({ ready: true, pid: process.pid, wrapped: wrapped.port, bare: bare.port } satisfies Ready);
