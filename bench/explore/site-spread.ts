// The spread of one adapter's speed over many processes of the same code: starts N servers of one
// variant (compiled as bench/site.ts runs them, each under --trace-deopt), warms each up as
// bench/site.ts does (0.4 s each of JSON, the stream and the 404, then 0.3 s of JSON), measures
// each on GET /json for 1.5 s, one after the other, and prints its requests per second, its CPU
// time a request, how much of the time its event loop sat idle waiting for I/O, and the deopts V8
// reported while it was measured. A wide spread where the bare app's is narrow means the
// adapter leaves some processes in a slower settled state.
//
//   npx tsx bench/explore/site-spread.ts <adapter> <bare|wrapped|noop> [processes=6]
import { spawn, type ChildProcess } from 'node:child_process';
import { ADAPTERS, VARIANTS, type Adapter, type Variant } from '../site-apps.js';
import { buildServers } from '../site-build.js';
import { load } from '../site.js';

const [adapter, variant, count = '6'] = process.argv.slice(2) as [Adapter, Variant, string?];
if (!ADAPTERS.includes(adapter) || !VARIANTS.includes(variant)) {
  console.error(`usage: npx tsx bench/explore/site-spread.ts <${ADAPTERS.join('|')}> <${VARIANTS.join('|')}> [processes]`);
  process.exit(2);
}
const built = buildServers();
const servers: { child: ChildProcess; out: string; port: number }[] = [];
try {
  for (let i = 0; i < Number(count); i++) {
    const server = { child: spawn(process.execPath, ['--trace-deopt', built.entry, adapter, variant], { stdio: ['pipe', 'pipe', 'inherit'] }), out: '', port: 0 };
    server.child.stdout!.on('data', (chunk: Buffer) => {
      server.out += chunk;
      server.port ||= Number(/\{"port":(\d+)/.exec(server.out)?.[1] ?? 0);
    });
    servers.push(server);
  }
  while (servers.some((s) => s.port === 0)) await new Promise((resolve) => setTimeout(resolve, 50));
  const origin = (s: { port: number }) => `http://127.0.0.1:${s.port}`;
  // What the server says of itself (bench/site-server.ts answers "cpu"): CPU time and event-loop idle time so far.
  const usage = (s: { child: ChildProcess; out: string }) =>
    new Promise<{ user: number; system: number; idle: number; active: number }>((resolve) => {
      const mark = s.out.length;
      const poll = (): void => {
        const line = s.out.slice(mark).split('\n').find((l) => l.startsWith('{"cpu"'));
        if (line) resolve(JSON.parse(line));
        else setTimeout(poll, 5);
      };
      s.child.stdin!.write('cpu\n');
      poll();
    });
  for (const s of servers) for (const path of ['/json', '/stream', '/missing']) await load(origin(s), path, 0.4, 'warm-up');
  for (const s of servers) await load(origin(s), '/json', 0.3, 'settle');
  const rates: number[] = [];
  for (const [i, s] of servers.entries()) {
    const before = await usage(s);
    const mark = s.out.length;
    const rps = await load(origin(s), '/json', 1.5, `process ${i}`);
    const after = await usage(s);
    rates.push(rps);
    const deopts = s.out.slice(mark).split('\n').filter((line) => line.includes('bailout')).length;
    const requests = rps * 1.5;
    const idle = after.idle - before.idle;
    const share = idle / (idle + after.active - (before.active ?? 0));
    console.log(
      `process ${i}: ${Math.round(rps)} req/s, CPU ${((after.user - before.user) / requests).toFixed(1)} us user + ${((after.system - before.system) / requests).toFixed(1)} us system a request, event loop idle ${(share * 100).toFixed(0)}%, ${deopts} deopts while measured`,
    );
  }
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`${adapter} ${variant}: slowest / fastest ${(sorted[0]! / sorted.at(-1)!).toFixed(2)}`);
} finally {
  for (const s of servers) s.child.stdin!.end();
  await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once('exit', resolve) : resolve(null)))));
  built.cleanup();
}
