// A/B of site-side variants, for finding where an adapter's cost goes: several servers of one
// adapter and case at once (as bench/site.ts runs them: compiled, plain node, a child process each),
// measured in interleaved rounds in rotating order. Prints each server's median requests per second
// and server CPU per request, and its median per-round ratio and CPU difference against the first.
//
//   npx tsx bench/explore/site-ab.ts <adapter> <case> [rounds=8] [seconds=1] -- spec ...
//   spec: label:variant[:ENV=value,...[:node-flag]]
//   e.g. npx tsx bench/explore/site-ab.ts express json 10 1 -- bare:bare noop:noop wrapped:wrapped bare2:bare wrapped2:wrapped
//
// Identical servers differ by up to ±3% here (list one twice to see it): compare variants over
// several servers each. Before measuring, each server answers 20 agent 404s, browser 404s and
// browser successes, as bench/site.ts's check does; WARM=a404+b404+bjson picks which (WARM=plain, none),
// and WARM=...+load adds half a second of load on every case first, as bench/site.ts's warm-up;
// WARM=...+load+switch then measures the case with no warm-up of its own (1 round: the first
// moments of a server that switches from a burst of 404s to the case).
// Every server gets the spec's environment (the adapters read none; for experiments). HONO_LISTENER=1
// on a bare Hono server puts agentFriendlyNode (node:http) around @hono/node-server's listener instead:
//   npx tsx bench/explore/site-ab.ts hono json 8 1 -- bare:bare mw:wrapped listener:bare:HONO_LISTENER=1
import { PATHS, type Adapter, type Case, type Variant } from '../site-apps.js';
import { buildServers } from '../site-build.js';
import { measure, startServer, stopServer, type ServerHandle } from '../site.js';
import { median } from '../stats.js';

const args = process.argv.slice(2);
const split = args.indexOf('--');
const [adapter, kase, roundsArg, secondsArg] = args.slice(0, split < 0 ? args.length : split) as [Adapter, Case, string?, string?];
const specs = (split < 0 ? ['bare:bare', 'noop:noop', 'wrapped:wrapped'] : args.slice(split + 1)).map((spec) => {
  const [label, variant, env = '', ...node] = spec.split(':');
  return { label: label!, variant: variant as Variant, node: node.length ? [node.join(':')] : [], env: Object.fromEntries(env.split(',').filter(Boolean).map((kv) => kv.split('=') as [string, string])) };
});
const rounds = Number(roundsArg ?? 8);
const seconds = Number(secondsArg ?? 1);
const built = buildServers();
const servers: ServerHandle[] = [];
try {
  for (const s of specs) servers.push(await startServer(built.entry, adapter, s.variant, s.label, s.node, s.env));
  // As bench/site.ts checks each server before it measures: an agent's converted 404 and a browser's pages first.
  const WARM: Record<string, [string, string]> = { a404: ['/missing', 'text/markdown, text/html, */*'], b404: ['/missing', 'text/html'], bjson: ['/json', 'text/html'] };
  for (const [i, server] of servers.entries())
    for (const [name, [path, accept]] of Object.entries(WARM))
      if ((specs[i]!.env.WARM ?? 'a404+b404+bjson').split('+').includes(name))
        for (let k = 0; k < 20; k++) await (await fetch(`${server.origin}${path}`, { headers: { accept } })).arrayBuffer();
  // WARM=...+load: before the case's own warm-up, half a second of load on each case, as bench/site.ts warms up.
  for (const [i, server] of servers.entries())
    if ((specs[i]!.env.WARM ?? '').split('+').includes('load')) for (const path of Object.values(PATHS)) await measure(server, path, 0.5, 'warm-up');
  // WARM=...+load+switch: no warm-up on the case itself, so the first round measures a server right
  // after its last load (404s), as it settles on the new traffic.
  for (const [i, server] of servers.entries())
    if (!(specs[i]!.env.WARM ?? '').split('+').includes('switch')) await measure(server, PATHS[kase], 0.5, 'warm-up');
  const rps = specs.map(() => [] as number[]);
  const cpu = specs.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const order = specs.map((_, i) => (i + r) % specs.length);
    for (const i of order) {
      const m = await measure(servers[i]!, PATHS[kase], seconds, specs[i]!.label);
      rps[i]!.push(m.rps);
      cpu[i]!.push(m.cpu);
    }
  }
  console.log(`${adapter} ${kase}, ${rounds} rounds of ${seconds} s; ratios per round against ${specs[0]!.label}, medians`);
  for (const [i, s] of specs.entries()) {
    const ratio = median(rps[i]!.map((v, r) => v / rps[0]![r]!));
    const dcpu = median(cpu[i]!.map((v, r) => v - cpu[0]![r]!));
    console.log(`${s.label.padEnd(16)} ${Math.round(median(rps[i]!)).toString().padStart(7)} req/s  ratio ${ratio.toFixed(3)}  cpu ${median(cpu[i]!).toFixed(1)} us  (+${dcpu.toFixed(1)})`);
  }
} finally {
  for (const server of servers) await stopServer(server.child);
}
