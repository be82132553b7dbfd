// The spread of one adapter's speed over many processes of the same code: starts N servers of one
// variant (compiled as bench/site.ts runs them, each under --trace-deopt), warms each up as
// bench/site.ts does (0.4 s each of JSON, the stream and the 404, then 0.3 s of JSON), measures
// each on GET /json for 1.5 s, one after the other, and prints its requests per second and the
// deopts V8 reported while it was measured. A wide spread where the bare app's is narrow means the
// adapter leaves some processes in a slower settled state.
//
//   npx tsx bench/site-spread.ts <adapter> <bare|wrapped|noop> [processes=6]
import { spawn, type ChildProcess } from 'node:child_process';
import { ADAPTERS, VARIANTS, type Adapter, type Variant } from './site-apps.js';
import { buildServers } from './site-build.js';
import { load } from './site.js';

const [adapter, variant, count = '6'] = process.argv.slice(2) as [Adapter, Variant, string?];
if (!ADAPTERS.includes(adapter) || !VARIANTS.includes(variant)) {
  console.error(`usage: npx tsx bench/site-spread.ts <${ADAPTERS.join('|')}> <${VARIANTS.join('|')}> [processes]`);
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
  for (const s of servers) for (const path of ['/json', '/stream', '/missing']) await load(origin(s), path, 0.4, 'warm-up');
  for (const s of servers) await load(origin(s), '/json', 0.3, 'settle');
  const rates: number[] = [];
  for (const [i, s] of servers.entries()) {
    const mark = s.out.length;
    const rps = await load(origin(s), '/json', 1.5, `process ${i}`);
    rates.push(rps);
    const deopts = s.out.slice(mark).split('\n').filter((line) => line.includes('bailout')).length;
    console.log(`process ${i}: ${Math.round(rps)} req/s, ${deopts} deopts while measured`);
  }
  const sorted = [...rates].sort((a, b) => a - b);
  console.log(`${adapter} ${variant}: slowest / fastest ${(sorted[0]! / sorted.at(-1)!).toFixed(2)}`);
} finally {
  for (const s of servers) s.child.stdin!.end();
  await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode === null ? s.child.once('exit', resolve) : resolve(null)))));
  built.cleanup();
}
