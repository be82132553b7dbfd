// What test/runtimes/runtimes.test.ts and scripts/runtimes.ts share: bundling the smoke
// (test/runtimes/smoke.ts) with esbuild for each runtime, the loopback server its client check
// calls, running it on workerd, Deno, Bun and Node, and the markdown table of the reports.
//
// A bundle is built for a runtime with no Node: platform neutral, that runtime's own export
// conditions, and every node: module (or bare Node builtin no package provides) left external and
// recorded, so that the metafile names the chain of imports that pulls one in instead of esbuild
// failing without it. A runtime that does not start, or dies, gives a report whose `start` check
// failed with what it printed: nothing is skipped.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, type Metafile, type Plugin } from 'esbuild';
import { ROOT } from '../../codegen/paths.js';
import { freePort } from '../helpers/server.js';
import type { SmokeCheck, SmokeReport } from './smoke.js';

/** The runtimes' binaries, as the npm packages installed them. */
export const BINARIES = {
  workerd: join(ROOT, 'node_modules/.bin/workerd'),
  deno: join(ROOT, 'node_modules/.bin/deno'),
  bun: join(ROOT, 'node_modules/.bin/bun'),
  node: process.execPath,
} as const;

export type Runtime = keyof typeof BINARIES;

/** The runtimes the smoke runs on; Node last, as the reference the others are read against. */
export const RUNTIMES: readonly Runtime[] = ['workerd', 'deno', 'bun', 'node'];

/** The checks every report must hold, in its order: the bundle's own, then the smoke's three. */
export const CHECK_NAMES = ['bundle needs no node: module', 'fromResponse fixtures', 'createAgentClient', 'agentFriendlyFetch'] as const;

/** The check workerd's report holds besides (worker.ts names it): that its Worker had no Node.js compatibility to lean on. */
export const WORKERD_CHECK = 'Node.js compat off';

/** The check names a runtime's report must hold. */
export const checksOf = (runtime: string): readonly string[] =>
  runtime === 'workerd' ? [CHECK_NAMES[0], WORKERD_CHECK, ...CHECK_NAMES.slice(1)] : CHECK_NAMES;

/**
 * The export conditions each runtime's bundle resolves with, besides import and default: workerd and
 * worker for workerd, and the runtime's own name for Deno and Bun. None has `node` (which would pick
 * a package's Node build) or `browser` (which wrangler adds, and which would hide what a package's
 * default build imports).
 */
export const CONDITIONS: Readonly<Record<Runtime, string[]>> = { workerd: ['workerd', 'worker'], deno: ['deno'], bun: ['bun'], node: [] };

/** The public entries the smoke loads, which must import no node: module under any runtime's conditions. */
export const PUBLIC_ENTRIES = ['src/agent/index.ts', 'src/site/entries/fetch.ts', 'src/site/index.ts'] as const;

/**
 * node: imports that a dependency makes with import() only to probe for an optional feature, and
 * whose rejection it catches: they load nothing where the module is missing (workerd without
 * nodejs_compat proves it on every run). Anything else, and any static import, fails the checks.
 */
export const GUARDED_PROBES: readonly { importer: string; specifier: string; why: string }[] = [
  {
    importer: 'node_modules/lru-cache/dist/esm/index.min.js',
    specifier: 'node:diagnostics_channel',
    why:
      "lru-cache's default build (src/agent/store.ts imports LRUCache) publishes to diagnostics_channel when import() finds it, " +
      'and catches the rejection where it does not',
  },
];

/** A node: module in a bundle's graph, and the chain of imports from the entry that pulls it in. */
export interface NodeImport {
  readonly specifier: string;
  /** esbuild's import kind: import-statement, dynamic-import, require-call, ... */
  readonly kind: string;
  /** The entry first, then each importer, the node: module last. */
  readonly chain: readonly string[];
  /** True for a GUARDED_PROBES import, which a runtime without the module survives. */
  readonly guarded: boolean;
}

const BUILTINS = new Set(builtinModules.filter((name) => !name.startsWith('_')));

/** True for a bare name of a Node builtin (fs, fs/promises), which may still be an npm package of that name. */
const isBareBuiltin = (path: string): boolean => BUILTINS.has(path) || BUILTINS.has(path.split('/')[0]!);

/**
 * Leaves node: modules external, and bare builtin names too when no package of that name resolves,
 * so that the build succeeds and its metafile shows who imports them.
 */
const nodeExternals: Plugin = {
  name: 'node-externals',
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /^[a-z_]+(\/[a-z_]+)?$/ }, async (args) => {
      if (!isBareBuiltin(args.path) || args.pluginData === 'node-externals') return undefined;
      const resolved = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'node-externals' });
      return resolved.errors.length === 0 ? resolved : { path: `node:${args.path}`, external: true };
    });
  },
};

/** Bundles `entry` (relative to the repo) for `runtime`: ESM, platform neutral, nothing from Node. */
export async function bundle(entry: string, runtime: Runtime, outfile?: string): Promise<{ metafile: Metafile }> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: CONDITIONS[runtime],
    // Neutral reads no main fields; these are the ones a package without exports is found by.
    mainFields: ['module', 'main'],
    plugins: [nodeExternals],
    metafile: true,
    write: outfile !== undefined,
    ...(outfile === undefined ? {} : { outfile }),
    logLevel: 'silent',
  });
  return { metafile: result.metafile };
}

/** Every node: module in a bundle's graph, each with the shortest chain of imports from `entry` to it. */
export function nodeImports(metafile: Metafile, entry: string): NodeImport[] {
  const parent = new Map<string, string>([[entry, '']]);
  const queue = [entry];
  const found: NodeImport[] = [];
  const chainTo = (file: string): string[] => {
    const chain: string[] = [];
    for (let at = file; at !== ''; at = parent.get(at)!) chain.unshift(at);
    return chain;
  };
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const imported of metafile.inputs[file]?.imports ?? []) {
      if (imported.external && (imported.path.startsWith('node:') || isBareBuiltin(imported.path))) {
        const specifier = imported.path.startsWith('node:') ? imported.path : `node:${imported.path}`;
        const guarded = imported.kind === 'dynamic-import' && GUARDED_PROBES.some((p) => p.importer === file && p.specifier === specifier);
        found.push({ specifier, kind: imported.kind, chain: [...chainTo(file), specifier], guarded });
      } else if (!imported.external && !parent.has(imported.path)) {
        parent.set(imported.path, file);
        queue.push(imported.path);
      }
    }
  }
  return found;
}

/** The bundle's own check: no node: module beyond the guarded probes, each named with its chain. */
export function bundleCheck(imports: readonly NodeImport[]): SmokeCheck {
  const needed = imports.filter((i) => !i.guarded);
  const line = (i: NodeImport): string => `${i.chain.join(' -> ')} (${i.kind})`;
  if (needed.length > 0) return { name: CHECK_NAMES[0], ok: false, detail: `needs ${needed.map(line).join('; ')}` };
  if (imports.length > 0) return { name: CHECK_NAMES[0], ok: true, detail: `none needed; guarded probe only: ${imports.map(line).join('; ')}` };
  return { name: CHECK_NAMES[0], ok: true, detail: 'no node: import in the graph' };
}

/** The loopback server the client check calls, on 127.0.0.1 only. */
export interface Loopback {
  readonly url: string;
  readonly close: () => Promise<void>;
}

const NGINX_PAGE = (status: string): string =>
  `<html>\r\n<head><title>${status}</title></head>\r\n<body>\r\n<center><h1>${status}</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n`;

/**
 * GET /flaky/<id> answers a 429 with Retry-After: 1 the first time for each id and 200 after;
 * anything else is nginx's 404 page. Each runtime uses an id of its own, so they can run at once.
 */
export async function startLoopback(): Promise<Loopback> {
  const seen = new Set<string>();
  const server: Server = createHttpServer((req, res) => {
    const path = req.url ?? '/';
    if (path.startsWith('/flaky/')) {
      if (seen.has(path)) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      seen.add(path);
      return void res.writeHead(429, { 'content-type': 'text/html', 'retry-after': '1' }).end(NGINX_PAGE('429 Too Many Requests'));
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end(NGINX_PAGE('404 Not Found'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}


/** What a process printed and how it ended. */
interface Ran {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: string | null;
  /** Set when it could not be started at all (ENOENT, EACCES). */
  readonly error?: Error;
}

/** Runs a command to its end, or kills it after `timeoutMs`. */
function runProcess(command: string, args: readonly string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => (clearTimeout(timer), resolve({ stdout, stderr, code: null, signal: null, error })));
    child.once('close', (code, signal) => (clearTimeout(timer), resolve({ stdout, stderr, code, signal })));
  });
}

/** The last lines of what a process printed, for a report's detail. */
const tail = (text: string, lines = 12): string => text.trim().split('\n').slice(-lines).join('\n');

/** A report for a runtime that gave none: its start check failed with what it printed. */
function failedStart(runtime: Runtime, version: string, why: string): SmokeReport {
  return { runtime, version, checks: [{ name: 'start', ok: false, detail: why }] };
}

/** The version a binary prints, or why it printed none: the first sign of a binary that cannot start here. */
export async function binaryVersion(runtime: Runtime): Promise<{ version: string } | { error: string }> {
  const ran = await runProcess(BINARIES[runtime], ['--version'], ROOT, 10_000);
  if (ran.error || ran.code !== 0) {
    return { error: `${BINARIES[runtime]} --version: ${ran.error?.message ?? `exit ${ran.code ?? ran.signal}`}\n${tail(ran.stderr + ran.stdout)}` };
  }
  const match = /(\d{4}-\d{2}-\d{2}|\d+\.\d+\.\d+)/.exec(ran.stdout);
  return { version: match?.[1] ?? ran.stdout.trim() };
}

/** The report a command-line runtime printed as its last line of output, or a failed start naming what went wrong. */
function reportFrom(runtime: Runtime, version: string, ran: Ran): SmokeReport {
  const line = ran.stdout.trim().split('\n').pop() ?? '';
  try {
    const report = JSON.parse(line) as SmokeReport;
    if (ran.code === 0 && Array.isArray(report.checks)) return report;
  } catch {
    // Not a report: the start failed, as said below.
  }
  const how = ran.error ? ran.error.message : `exit ${ran.code ?? ran.signal}`;
  return failedStart(runtime, version, `${how}\n${tail(ran.stderr + '\n' + ran.stdout)}`);
}

/**
 * The workerd config: the smoke Worker on 127.0.0.1:port, with loopback (and nothing else) as its
 * outbound network, and no Node.js compatibility.
 */
export function workerdConfig(port: number, date: string): string {
  return `# The smoke Worker for test/runtimes: workerd serve config.capnp (written by test/runtimes/run.ts).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "smoke", worker = .smokeWorker),
    # The Worker's global fetch() may reach the host's loopback server, and only loopback.
    (name = "loopback", network = (allow = ["local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "smoke")],
);

const smokeWorker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  # The binary's own date. From 2026-08-04 on, that date alone turns nodejs_compat and nodejs_compat_v2
  # on (Buffer, process and the node: modules); both are turned off, so the bundle must not need Node.
  compatibilityDate = "${date}",
  compatibilityFlags = ["no_nodejs_compat", "no_nodejs_compat_v2"],
  bindings = [(name = "WORKERD_VERSION", text = "${date}")],
  globalOutbound = "loopback",
);
`;
}

/** Waits until something accepts HTTP on `url`, or the process exits, or `timeoutMs` pass. */
async function ready(url: string, exited: () => boolean, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && !exited()) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(1000) }).then((r) => r.body?.cancel());
      return true;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return false;
}

/** Runs the smoke Worker on workerd: serves the config on a free port and fetches the report from it. */
async function runWorkerd(dir: string, version: string, server: string, timeoutMs: number): Promise<SmokeReport> {
  const port = await freePort();
  await writeFile(join(dir, 'config.capnp'), workerdConfig(port, version));
  // PWD set to the folder it runs in, or workerd logs that the two differ.
  const env = { ...process.env, PWD: dir };
  const child = spawn(BINARIES.workerd, ['serve', 'config.capnp', '--verbose'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exit: string | undefined;
  child.stdout.on('data', (chunk: Buffer) => (output += chunk));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk));
  child.once('error', (error) => (exit = error.message));
  child.once('exit', (code, signal) => (exit = `exit ${code ?? signal}`));
  try {
    const origin = `http://127.0.0.1:${port}`;
    if (!(await ready(`${origin}/`, () => exit !== undefined, 10_000))) {
      return failedStart('workerd', version, `workerd did not serve ${origin}: ${exit ?? 'no answer in 10 s'}\n${tail(output)}`);
    }
    const response = await fetch(`${origin}/?server=${encodeURIComponent(server)}`, { signal: AbortSignal.timeout(timeoutMs) });
    const text = await response.text();
    if (response.status !== 200) return failedStart('workerd', version, `the Worker answered ${response.status}: ${text.slice(0, 500)}\n${tail(output)}`);
    return JSON.parse(text) as SmokeReport;
  } catch (error) {
    return failedStart('workerd', version, `${(error as Error).message}\n${tail(output)}`);
  } finally {
    if (exit === undefined) {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // A workerd that ignores SIGTERM is not left behind.
      const stuck = setTimeout(() => child.kill('SIGKILL'), 3000);
      await gone;
      clearTimeout(stuck);
    }
  }
}

/** The command that runs a command-line bundle on each runtime but workerd. */
export function commandFor(runtime: Exclude<Runtime, 'workerd'>, bundlePath: string, server: string): [string, string[]] {
  switch (runtime) {
    case 'deno':
      return [BINARIES.deno, ['run', '--allow-net=127.0.0.1', bundlePath, server]];
    case 'bun':
      return [BINARIES.bun, [bundlePath, server]];
    case 'node':
      return [BINARIES.node, [bundlePath, server]];
  }
}

/** Bundles the smoke for one runtime and runs it; the report starts with the bundle's node: check. */
export async function runRuntime(runtime: Runtime, root: string, server: string, timeoutMs = 15_000): Promise<SmokeReport> {
  const dir = join(root, runtime);
  await mkdir(dir, { recursive: true });
  const known = await binaryVersion(runtime);
  if ('error' in known) return failedStart(runtime, 'unknown', known.error);
  const entry = runtime === 'workerd' ? 'test/runtimes/worker.ts' : 'test/runtimes/cli.ts';
  const outfile = join(dir, runtime === 'workerd' ? 'worker.js' : 'bundle.js');
  let bundled: Awaited<ReturnType<typeof bundle>>;
  try {
    bundled = await bundle(entry, runtime, outfile);
  } catch (error) {
    return failedStart(runtime, known.version, `esbuild: ${(error as Error).message}`);
  }
  const checked = bundleCheck(nodeImports(bundled.metafile, entry));
  let report: SmokeReport;
  if (runtime === 'workerd') report = await runWorkerd(dir, known.version, server, timeoutMs);
  else {
    const [command, args] = commandFor(runtime, 'bundle.js', server);
    // Deno's and Bun's fetch honour proxy variables; loopback must never go through a proxy.
    const loopbackOnly = { NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost' };
    const env = { ...process.env, ...loopbackOnly, DENO_NO_UPDATE_CHECK: '1', DENO_DIR: join(dir, 'deno-dir') };
    report = reportFrom(runtime, known.version, await runProcess(command, args, dir, timeoutMs, env));
  }
  return { ...report, checks: [checked, ...report.checks] };
}

/** Builds and runs the smoke on every runtime at once, against one loopback server, in a temporary folder it removes. */
export async function runAll(runtimes: readonly Runtime[] = RUNTIMES): Promise<SmokeReport[]> {
  const root = await mkdtemp(join(tmpdir(), 'agent-errors-runtimes-'));
  const loopback = await startLoopback();
  try {
    return await Promise.all(runtimes.map((runtime) => runRuntime(runtime, root, loopback.url)));
  } finally {
    await loopback.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** The failed checks of a report, and any that it lacks, as lines; empty when it passed whole. */
export function problems(report: SmokeReport): string[] {
  const lines = report.checks.filter((c) => !c.ok).map((c) => `${report.runtime} ${report.version}: ${c.name}: ${c.detail}`);
  for (const name of checksOf(report.runtime)) {
    if (!report.checks.some((c) => c.name === name)) lines.push(`${report.runtime}: no "${name}" check in the report`);
  }
  return lines;
}

/** Escapes a table cell: no pipes, no line breaks. */
const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

/** The markdown table of the reports, one row a runtime, one column a check, with each check's detail below. */
export function table(reports: readonly SmokeReport[], date = new Date().toISOString().slice(0, 10)): string {
  const mark = (report: SmokeReport, name: string): string => {
    const found = report.checks.find((c) => c.name === name);
    return found === undefined ? (report.checks.some((c) => c.name === 'start') ? 'did not start' : 'missing') : found.ok ? 'ok' : 'FAIL';
  };
  const cellOf = (report: SmokeReport, name: string): string => (checksOf(report.runtime).includes(name) ? mark(report, name) : 'n/a');
  const columns = reports.some((r) => r.runtime === 'workerd') ? checksOf('workerd') : CHECK_NAMES;
  const lines = [
    '# The smoke of /agent and /site/fetch on other runtimes',
    '',
    `Written by \`npx tsx scripts/runtimes.ts\` on ${date}; test/runtimes/runtimes.test.ts asserts the same. Each runtime runs one esbuild bundle`,
    '(ESM, platform neutral, its own export conditions, no node: module) of test/runtimes/smoke.ts; workerd runs it with nodejs_compat and',
    'nodejs_compat_v2 turned off (its compatibility date alone would turn them on), which its "Node.js compat off" check confirms.',
    '',
    `| runtime | version | ${columns.join(' | ')} |`,
    `|---|---|${columns.map(() => '---').join('|')}|`,
    ...reports.map((r) => `| ${r.runtime} | ${r.version} | ${columns.map((name) => cellOf(r, name)).join(' | ')} |`),
    '',
    '## Details',
    '',
    ...reports.flatMap((r) => [`### ${r.runtime} ${r.version}`, '', ...r.checks.map((c) => `- ${c.ok ? 'ok' : 'FAIL'} ${c.name}: ${cell(c.detail)}`), '']),
  ];
  return lines.join('\n');
}
