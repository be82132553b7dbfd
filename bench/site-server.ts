// One app of bench/site-apps.ts in a process of its own, so the load generator (bench/site.ts) and
// the server never share an event loop, and a bare app never runs in a process that loaded the
// adapter. bench/site.ts compiles it (bench/site-build.ts) and runs `node <build>/bench/site-server.js
// <adapter> <bare|wrapped>`; `npx tsx bench/site-server.ts <adapter> <bare|wrapped>` runs it by hand.
// Prints {"port": N} when it listens; answers a line "cpu" on stdin with {"cpu", "user", "system"}:
// microseconds of CPU time so far (process.cpuUsage: every thread, V8's GC helpers included), and
// "idle", "active": milliseconds the event loop has spent waiting for I/O and running so far
// (performance.eventLoopUtilization); exits
// when its stdin closes.

import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { ADAPTERS, VARIANTS, startApp, type Adapter, type Variant } from './site-apps.js';

const [adapter, variant] = process.argv.slice(2) as [Adapter, Variant];
if (!ADAPTERS.includes(adapter) || !VARIANTS.includes(variant)) {
  console.error(`usage: site-server.ts <${ADAPTERS.join('|')}> <${VARIANTS.join('|')}>`);
  process.exit(2);
}

const app = await startApp(adapter, variant);
process.stdout.write(`${JSON.stringify({ port: app.port })}\n`);

// process.exit (not a hard kill) so that --cpu-prof writes its profile.
const stop = (): void => process.exit(0);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'cpu') return;
  const { user, system } = process.cpuUsage();
  const { idle, active } = performance.eventLoopUtilization();
  process.stdout.write(`${JSON.stringify({ cpu: user + system, user, system, idle, active })}\n`);
});
process.stdin.on('end', stop);
process.stdin.on('error', stop);
process.on('SIGTERM', stop);
