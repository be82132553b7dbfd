// Where the time goes in one server of bench/site.ts: runs the bare and the wrapped app of one
// adapter under `node --cpu-prof` (each in its own child process, compiled as the benchmark runs
// them), loads one case with autocannon for a few seconds, and prints the server's CPU time per
// request for each (process.cpuUsage: the difference is what the adapter costs, GC threads included),
// then from the two profiles the functions with the most self time and the inclusive time of every
// frame from src/site, in microseconds per request, positions mapped back
// to the .ts lines. The profile is sampled on the main thread's wall clock: "writev (native)" there
// holds more than the syscall, so read the src/site frames, not the total.
//
//   npx tsx bench/explore/site-profile.ts <node|express|fastify|hono|fetch> <json|stream|404> [seconds=4] [--keep]
//
// PROFILE_BEFORE=404 has each server serve that case for a second before the warm-up (bench/site.ts's
// warm-up ends in the 404s). PROFILE_VARIANT=noop profiles the no-op integration of bench/site-apps.ts in place of the adapter:
// the floor any integration of that shape pays.
//
// --keep leaves the .cpuprofile files (open them in Chrome DevTools) and prints where they are.

import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ADAPTERS, PATHS, type Adapter, type Case, type Variant } from '../site-apps.js';
import { buildServers, type Built } from '../site-build.js';
import { CannotMeasure, load, serverCpu, startServer, stopServer } from '../site.js';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}


let built: Built | null = null;
const maps = new Map<string, SourceMap | null>();

/** A frame as "name file:line", a compiled file of the build mapped back to its .ts source and line. */
const where = (f: CallFrame): string => {
  const name = f.functionName || '(anonymous)';
  if (!f.url) return `${name} (native)`;
  if (built && f.url.startsWith('file://') && fileURLToPath(f.url).startsWith(built.dir)) {
    const js = fileURLToPath(f.url);
    if (!maps.has(js)) maps.set(js, existsSync(`${js}.map`) ? new SourceMap(JSON.parse(readFileSync(`${js}.map`, 'utf8'))) : null);
    const entry = maps.get(js)?.findEntry(f.lineNumber, f.columnNumber);
    const source = js.slice(built.dir.length + 1).replace(/\.js$/, '.ts');
    const line = entry && 'originalLine' in entry ? entry.originalLine + 1 : NaN;
    return `${name} ${source}:${Number.isNaN(line) ? '?' : line}`;
  }
  return `${name} ${f.url.replace(/^file:\/\//, '').replace(/^.*\/node_modules\//, '~/')}:${f.lineNumber + 1}`;
};

/** Self and inclusive microseconds per function (by name and position), from the sampled stacks. */
function analyse(profile: Profile): { busyUs: number; self: Map<string, number>; inclusive: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let busyUs = 0;
  for (const [i, id] of profile.samples.entries()) {
    // The time of sample i is the delta to the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    if (name === '(idle)') continue;
    busyUs += us;
    const key = where(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = where(byId.get(at)!.callFrame);
      if (seen.has(k)) continue;
      seen.add(k);
      inclusive.set(k, (inclusive.get(k) ?? 0) + us);
    }
  }
  return { busyUs, self, inclusive };
}

async function profileOne(adapter: Adapter, variant: Variant, kase: Case, seconds: number, dir: string, label: string) {
  const out = join(dir, label);
  const server = await startServer(built!.entry, adapter, variant, variant, ['--cpu-prof', `--cpu-prof-dir=${out}`]);
  try {
    // PROFILE_BEFORE=404: the app first serves another case, as bench/site.ts's warm-up ends in its 404s.
    const before = process.env.PROFILE_BEFORE as Case | undefined;
    if (before !== undefined && before in PATHS) await load(server.origin, PATHS[before], 1, `before ${variant}`);
    await load(server.origin, PATHS[kase], 1, `warm-up ${variant}`);
  } catch (error) {
    await stopServer(server.child);
    throw error;
  }
  const cpu0 = await serverCpu(server);
  const t0 = Date.now();
  const perSecond = await load(server.origin, PATHS[kase], seconds, `${variant}`);
  const elapsed = (Date.now() - t0) / 1000;
  const cpuUs = (await serverCpu(server)) - cpu0;
  const requests = Math.round(perSecond * elapsed);
  await stopServer(server.child);
  const file = readdirSync(out).find((f) => f.endsWith('.cpuprofile'));
  if (!file) throw new CannotMeasure(`no profile written in ${out}`);
  const profile = JSON.parse(readFileSync(join(out, file), 'utf8')) as Profile;
  // Requests served over the whole profile: the warm-up's as well, estimated at the measured rate.
  return { perSecond, requests, cpuPerRequest: cpuUs / requests, cpuShare: cpuUs / 1e6 / elapsed, file: join(out, file), ...analyse(profile) };
}

async function main(): Promise<void> {
  const [adapter, kase, secondsArg] = process.argv.slice(2).filter((a) => !a.startsWith('--')) as [Adapter, Case, string | undefined];
  if (!ADAPTERS.includes(adapter) || !(kase in PATHS)) {
    console.error('usage: npx tsx bench/explore/site-profile.ts <node|express|fastify|hono|fetch> <json|stream|404> [seconds] [--keep]');
    process.exitCode = 2;
    return;
  }
  const seconds = Number(secondsArg ?? 4);
  const keep = process.argv.includes('--keep');
  const dir = mkdtempSync(join(tmpdir(), 'site-profile-'));
  built = buildServers();
  try {
    const bare = await profileOne(adapter, 'bare', kase, seconds, dir, 'bare');
    const wrapped = await profileOne(adapter, (process.env.PROFILE_VARIANT as Variant | undefined) ?? 'wrapped', kase, seconds, dir, 'wrapped');
    // The profile covers the warm-up second as well: requests over the profile are about rate x (seconds + 1).
    const perRequest = (p: typeof bare, us: number): number => us / (p.perSecond * (seconds + 1));
    console.log(`${adapter} ${kase}: bare ${Math.round(bare.perSecond)} req/s, wrapped ${Math.round(wrapped.perSecond)} req/s, ratio ${(wrapped.perSecond / bare.perSecond).toFixed(2)}`);
    console.log(
      `server CPU time (user + system, process.cpuUsage) per request: bare ${bare.cpuPerRequest.toFixed(1)} us (${Math.round(bare.cpuShare * 100)}% of a CPU), wrapped ${wrapped.cpuPerRequest.toFixed(1)} us (${Math.round(wrapped.cpuShare * 100)}%)`,
    );
    console.log('(the profiles below are wall-clock samples: "writev (native)" also holds time the thread waited on the loopback and the scheduler)');
    for (const [label, p] of [['bare', bare], ['wrapped', wrapped]] as const) {
      console.log(`\n${label}: top self time, us per request`);
      for (const [k, us] of [...p.self].sort((a, b) => b[1] - a[1]).slice(0, 22)) console.log(`  ${perRequest(p, us).toFixed(3).padStart(8)}  ${k}`);
    }
    console.log('\nlargest differences in self time, wrapped - bare, us per request');
    const names = new Set([...bare.self.keys(), ...wrapped.self.keys()]);
    const diffs = [...names].map((k) => [k, perRequest(wrapped, wrapped.self.get(k) ?? 0) - perRequest(bare, bare.self.get(k) ?? 0)] as const);
    for (const [k, d] of diffs.sort((a, b) => Math.abs(b[1]) - Math.abs(a[1])).slice(0, 25)) console.log(`  ${d.toFixed(3).padStart(8)}  ${k}`);
    console.log('\nwrapped: inclusive time of src/site frames, us per request');
    for (const [k, us] of [...wrapped.inclusive].filter(([k]) => k.includes(' src/')).sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(`  ${perRequest(wrapped, us).toFixed(3).padStart(8)}  ${k}`);
    if (keep) console.log(`\nprofiles: ${bare.file} ${wrapped.file}; compiled servers in ${built.dir}`);
  } finally {
    if (!keep) {
      rmSync(dir, { recursive: true, force: true });
      built.cleanup();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof CannotMeasure ? `bench: cannot measure: ${error.message}` : error);
  process.exitCode = 1;
});
