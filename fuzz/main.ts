// npm run fuzz: every fuzz target (fuzz/targets.ts) under fast-check, 1,000,000 inputs in all by
// default, split evenly across the targets, seeded and reproducible, with a 50 ms limit per input.
//
//   npx tsx fuzz/main.ts                                   1,000,000 inputs, a random seed (printed)
//   npx tsx fuzz/main.ts --runs 60000 --seed 42            fewer inputs, a fixed seed
//   npx tsx fuzz/main.ts --runs 6000000                    1,000,000 inputs per target (about 10 minutes on 2 cores)
//   npx tsx fuzz/main.ts --target fromResponse,decode      some targets only
//   npx tsx fuzz/main.ts --target decode --seed 42 --path 1234:5:6   replay one failure, as printed
//
// Exit code 1 when any target fails: the failure, its counterexample and the command that replays it are printed.
import { performance } from 'node:perf_hooks';
import { describeFailure, runTarget, type TargetReport } from './run.js';
import { TARGETS } from './targets.js';

/** The most one input may take the code under test, in ms. */
const LIMIT_MS = 50;

function parseArgs(argv: readonly string[]): { runs: number; seed: number; targets: readonly string[] | null; path: string | undefined } {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 1) {
    const name = argv[i]!;
    const value = argv[i + 1];
    if (!['--runs', '--seed', '--target', '--path'].includes(name) || value === undefined) throw new Error(`usage: tsx fuzz/main.ts [--runs N] [--seed S] [--target a,b] [--path P] (got ${name})`);
    args.set(name, value);
    i += 1;
  }
  const number = (name: string, fallback: number): number => {
    const value = args.get(name);
    if (value === undefined) return fallback;
    if (!/^-?\d+$/.test(value)) throw new Error(`${name} takes an integer (got ${value})`);
    return Number(value);
  };
  return {
    runs: number('--runs', 1_000_000),
    seed: number('--seed', Math.floor(Math.random() * 2 ** 31)),
    targets: args.get('--target')?.split(',') ?? null,
    path: args.get('--path'),
  };
}

function main(): number {
  const { runs, seed, targets: names, path } = parseArgs(process.argv.slice(2));
  const unknown = (names ?? []).filter((n) => !TARGETS.some((t) => t.name === n));
  if (unknown.length > 0) throw new Error(`unknown target ${unknown.join(', ')}; targets: ${TARGETS.map((t) => t.name).join(', ')}`);
  const targets = names === null ? TARGETS : TARGETS.filter((t) => names.includes(t.name));
  if (path !== undefined && targets.length !== 1) throw new Error('--path replays one target: name it with --target');
  const each = Math.ceil(runs / targets.length);
  console.log(`fuzz: seed ${seed}, ${path === undefined ? `${each.toLocaleString('en')} inputs per target (${runs.toLocaleString('en')} in all)` : `replaying path ${path}`}, limit ${LIMIT_MS} ms per input`);
  console.log(`  ${'target'.padEnd(16)}${'inputs'.padStart(10)}${'slowest ms'.padStart(12)}${'seconds'.padStart(9)}  result`);
  const reports: TargetReport[] = [];
  const started = performance.now();
  for (const target of targets) {
    const start = performance.now();
    const report = runTarget(target, { seed, numRuns: each, limitMs: LIMIT_MS, ...(path === undefined ? {} : { path }) });
    reports.push(report);
    const seconds = ((performance.now() - start) / 1000).toFixed(1);
    console.log(`  ${report.name.padEnd(16)}${report.runs.toLocaleString('en').padStart(10)}${report.maxMs.toFixed(2).padStart(12)}${seconds.padStart(9)}  ${report.failed ? 'FAILED' : 'ok'}`);
  }
  const failures = reports.filter((r) => r.failed);
  console.log(`fuzz: ${reports.reduce((n, r) => n + r.runs, 0).toLocaleString('en')} inputs in ${((performance.now() - started) / 1000).toFixed(0)} s, seed ${seed}, ${failures.length} failed`);
  for (const report of reports) if (!report.failed) console.log(`  slowest ${report.name} input (${report.maxMs.toFixed(2)} ms): ${report.slowest.slice(0, 300)}`);
  for (const failure of failures) console.log(`\n${describeFailure(failure)}`);
  return failures.length === 0 ? 0 : 1;
}

process.exitCode = main();
