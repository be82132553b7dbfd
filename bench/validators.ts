// Benchmark: the ajv standalone validators of generated/validators.js against compiling the same
// schema (validatorSchema(catalog)) at run time with ajv (Ajv2020, the options of newAjv() minus
// code.source/code.esm, which only matter for emitting). The machine is shared and noisy, so each
// verdict is a ratio of two things measured in this same run; absolute numbers are context only.
//
//   npx tsx bench/validators.ts          a table
//   npx tsx bench/validators.ts --json   the same as JSON
//
// Every measurement runs in a plain `node` child (no tsx loader, so generated/validators.js runs
// exactly as shipped); this parent only computes the schema once, writes it to a temp file (so the
// catalog loading of codegen is nobody's cost) and does the arithmetic.
//
// 1. Cold start: fresh processes, the two sides interleaved, timed inside the child from just
//    before its first import to just after its first validation:
//      standalone: import generated/validators.js, validate one envelope;
//      runtime:    import ajv, read and parse the schema JSON, new Ajv2020, addSchema, compile the
//                  envelope validator (getSchema: what ajv.compile does, on the very ref the
//                  standalone module was built from, so both run the same generated code),
//                  validate one envelope.
//    Verdict: median standalone / median runtime, at most 0.10. Node's own boot, the same for both,
//    is left out; the whole-process time is shown as an informational row.
// 2. Steady state: bench/validators-steady-state.mjs, in a few fresh processes, validations per second
//    cycling through every catalog example envelope plus a few invalid bodies. Each process holds
//    two copies of each contender (the standalone module imported twice, the schema compiled
//    twice), warms all four up, then runs rounds of one batch each in rotating order. Verdict:
//    median of all per-round ratios standalone / runtime of the first copies (an application has
//    one of each), at least 1.00. Second copy against first, by the same statistic, is an A/A
//    control: the same code, so how far it strays from 1.00 is the headline's own noise, and a
//    ratio below 1.00 by no more than that is "equal within noise" (yes*).
//
// Missing a target never fails the run (a benchmark is not a test): the exit code is 0. Only a run
// that cannot measure (a child crashed, or the validators disagree on an input, which means
// generated/validators.js is stale) exits 1.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadCatalog } from '../codegen/load-catalog.js';
import { newAjv, validatorSchema, VALIDATOR_EXPORTS } from '../codegen/emit-validators.js';
import { GENERATED_DIR } from '../codegen/paths.js';
import { EXAMPLES } from '../generated/catalog.js';
import { alignedTable, iqr, median, round2, targetText, verdictMark, verdictOf, type Target, type Verdict } from './stats.js';

const COLD_WARMUP = 2; // discarded fresh processes per side (file cache, page cache)
const COLD_REPS = 15; // measured fresh processes per side, interleaved
const STEADY_PROCESSES = 4; // fresh processes, each running all sides (JIT luck differs per process)
const STEADY_WARMUP_MS = 1500; // per process, rotating the sides
const STEADY_BATCH_MS = 30; // target length of one timed batch
const STEADY_ROUNDS = 24; // per process; each round one batch per side (2 copies x 2 contenders), in all 24 orders
const COLD_TARGET = 0.1; // standalone / runtime, at most
const STEADY_TARGET = 1.0; // standalone / runtime, at least

const STEADY_CHILD = fileURLToPath(new URL('./validators-steady-state.mjs', import.meta.url));

type Primitive = boolean | number | string;

interface Row {
  id: 'cold_start' | 'cold_start_process' | 'steady_state';
  measure: string;
  unit: 'ms' | 'validations/s';
  standalone: number;
  runtime: number;
  /** standalone / runtime */
  ratio: number;
  target: Target | null;
  met: boolean | null;
  verdict: Verdict;
  spread: { standalone: [number, number]; runtime: [number, number]; ratio?: [number, number] };
  samples: number;
}

class CannotMeasure extends Error {}

// ---------------------------------------------------------------- statistics


// ---------------------------------------------------------------- options

/**
 * The options of newAjv() that differ from Ajv2020's defaults, minus code.source and code.esm
 * (they only matter for emitting the standalone module). Derived rather than copied so the bench
 * follows codegen when its options change; JSON-safe so a child process can take them.
 */
function runtimeOptions(): Record<string, Primitive | Record<string, Primitive>> {
  const configured = newAjv().opts as unknown as Record<string, unknown>;
  const defaults = new Ajv2020().opts as unknown as Record<string, unknown>;
  const options: Record<string, Primitive | Record<string, Primitive>> = {};
  const primitive = (key: string, value: unknown): Primitive => {
    if (typeof value === 'boolean' || typeof value === 'number' || typeof value === 'string') return value;
    throw new CannotMeasure(`newAjv() sets the option ${key} to a ${typeof value}; teach bench/validators.ts to pass it on`);
  };
  for (const [key, value] of Object.entries(configured)) {
    if (key === 'code') {
      const code: Record<string, Primitive> = {};
      const defaultCode = defaults.code as Record<string, unknown>;
      for (const [sub, subValue] of Object.entries(value as Record<string, unknown>)) {
        if (sub === 'source' || sub === 'esm' || Object.is(subValue, defaultCode[sub])) continue;
        code[sub] = primitive(`code.${sub}`, subValue);
      }
      if (Object.keys(code).length > 0) options.code = code;
    } else if (!Object.is(value, defaults[key])) {
      options[key] = primitive(key, value);
    }
  }
  return options;
}

// ---------------------------------------------------------------- cold start

// Each child prints {"ms": ..., "ok": ...}: ms from just before its first import to just after its
// first validation, so Node's own boot (the same for both) is not in it.
const STANDALONE_CHILD = `
const cfg = JSON.parse(process.argv[1]);
const t0 = performance.now();
const { envelope } = await import(cfg.validators);
const ok = envelope(cfg.body);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, ok }));
`;

const RUNTIME_CHILD = `
const cfg = JSON.parse(process.argv[1]);
const t0 = performance.now();
const mod = await import(cfg.ajv);
const { readFileSync } = await import('node:fs');
const Ajv2020 = mod.Ajv2020 ?? mod.default;
const ajv = new Ajv2020(cfg.options);
ajv.addSchema(JSON.parse(readFileSync(cfg.schemaFile, 'utf8')));
const envelope = ajv.getSchema(cfg.ref);
const ok = envelope(cfg.body);
const ms = performance.now() - t0;
process.stdout.write(JSON.stringify({ ms, ok }));
`;

interface ColdSample {
  /** inside the child: import .. first validation */
  ms: number;
  /** the whole process as the parent sees it, spawn to exit */
  processMs: number;
}

function coldSample(script: string, config: object, label: string): ColdSample {
  const start = performance.now();
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(config)], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 30_000,
  });
  const processMs = performance.now() - start;
  if (child.status !== 0)
    throw new CannotMeasure(`the ${label} cold-start child failed (${child.status ?? child.signal}): ${child.stderr || child.error}`);
  let out: { ms: number; ok: boolean };
  try {
    out = JSON.parse(child.stdout) as { ms: number; ok: boolean };
  } catch {
    throw new CannotMeasure(`the ${label} cold-start child printed ${JSON.stringify(child.stdout)}`);
  }
  if (out.ok !== true) throw new CannotMeasure(`the ${label} cold-start child refused the example envelope`);
  return { ms: out.ms, processMs };
}

interface Shared {
  validators: string;
  ajv: string;
  options: Record<string, Primitive | Record<string, Primitive>>;
  ref: string;
  schemaFile: string;
}

function coldStart(shared: Shared, body: unknown): Row[] {
  const standaloneConfig = { validators: shared.validators, body };
  const runtimeConfig = { ajv: shared.ajv, options: shared.options, schemaFile: shared.schemaFile, ref: shared.ref, body };
  const a: ColdSample[] = [];
  const b: ColdSample[] = [];
  const sampleA = (): ColdSample => coldSample(STANDALONE_CHILD, standaloneConfig, 'standalone');
  const sampleB = (): ColdSample => coldSample(RUNTIME_CHILD, runtimeConfig, 'runtime');
  for (let i = 0; i < COLD_WARMUP + COLD_REPS; i++) {
    // Alternate which side goes first so a drift in machine load hits both alike.
    let sa: ColdSample;
    let sb: ColdSample;
    if (i % 2 === 0) {
      sa = sampleA();
      sb = sampleB();
    } else {
      sb = sampleB();
      sa = sampleA();
    }
    if (i >= COLD_WARMUP) {
      a.push(sa);
      b.push(sb);
    }
  }
  const row = (id: Row['id'], measure: string, pick: (s: ColdSample) => number, target: Row['target']): Row => {
    const sa = a.map(pick);
    const sb = b.map(pick);
    const ratio = median(sa) / median(sb);
    const verdict = verdictOf(ratio, target, null);
    return {
      id,
      measure,
      unit: 'ms',
      standalone: median(sa),
      runtime: median(sb),
      ratio,
      target,
      met: verdict === 'informational' ? null : verdict === 'met',
      verdict,
      spread: { standalone: iqr(sa), runtime: iqr(sb) },
      samples: COLD_REPS,
    };
  };
  return [
    row('cold_start', 'cold start: import + 1st validation', (s) => s.ms, { op: '<=', value: COLD_TARGET }),
    row('cold_start_process', 'cold start: whole process (info)', (s) => s.processMs, null),
  ];
}

// ---------------------------------------------------------------- steady state

/** Every example envelope of the catalog, then bodies each validator must refuse. */
function steadyInputs(): { inputs: unknown[]; valid: number; invalid: number } {
  const valid = Object.values(EXAMPLES).map((example) => structuredClone(example.envelope) as unknown);
  const base = structuredClone(EXAMPLES.invalid_input.envelope);
  const delayed = structuredClone(EXAMPLES.rate_limited.envelope);
  const { retry_after: _dropped, ...withoutRetryAfter } = base.error;
  const invalid: unknown[] = [
    { error: { ...base.error, retry: 'no' } }, // the catalog's retry word for the code is fix_input
    { error: withoutRetryAfter }, // a required member is missing
    { ...base, extra: true }, // additionalProperties: false
    { error: { ...delayed.error, retry_after: -1 } }, // minimum: 0
    { error: { ...base.error, code: 'Not A Code', field: '' } }, // two pattern failures
    null, // not an object
  ];
  return { inputs: [...valid, ...invalid], valid: valid.length, invalid: invalid.length };
}

/** Validations per second in every round, for both copies of each contender. */
interface SteadySample {
  standalone: [number[], number[]];
  runtime: [number[], number[]];
}

function steadySample(config: object): SteadySample {
  const child = spawnSync(process.execPath, [STEADY_CHILD, JSON.stringify(config)], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 60_000,
  });
  if (child.status !== 0)
    throw new CannotMeasure(`the steady-state child failed (${child.status ?? child.signal}): ${child.stderr || child.error}`);
  let out: SteadySample & { error?: string };
  try {
    out = JSON.parse(child.stdout) as SteadySample & { error?: string };
  } catch {
    throw new CannotMeasure(`the steady-state child printed ${JSON.stringify(child.stdout)}`);
  }
  if (out.error) throw new CannotMeasure(`${out.error}; run npm run codegen`);
  return out;
}

interface Steady {
  row: Row;
  bodies: { valid: number; invalid: number };
  /** per process: median of the per-round ratios standalone / runtime */
  perProcess: number[];
  /** median of all rounds' ratios of each contender's second copy to its first (same code: ideally 1.00) */
  control: { standalone: number; runtime: number };
  /** the farther of the two A/A controls from 1.00 */
  noise: number;
}

function steadyState(shared: Shared, inputsFile: string, bodies: Steady['bodies']): Steady {
  const config = { ...shared, inputsFile, warmupMs: STEADY_WARMUP_MS, batchMs: STEADY_BATCH_MS, rounds: STEADY_ROUNDS };
  const samples = Array.from({ length: STEADY_PROCESSES }, () => steadySample(config));
  // The headline compares the first copies: an application imports the module once, or compiles
  // the schema once. The second copies are there only to measure the noise.
  const twins = ([one, two]: [number[], number[]]): number[] => one.map((x, i) => two[i]! / x);
  const roundRatios = (s: SteadySample): number[] => s.standalone[0].map((x, i) => x / s.runtime[0][i]!);
  const ratios = samples.flatMap(roundRatios);
  const perProcess = samples.map((s) => median(roundRatios(s)));
  // The A/A control is the same statistic as the headline (median of all rounds' ratios), taken
  // between two copies of the same code, so its distance from 1.00 is the headline's noise.
  const control = {
    standalone: median(samples.flatMap((s) => twins(s.standalone))),
    runtime: median(samples.flatMap((s) => twins(s.runtime))),
  };
  const noise = Math.max(Math.abs(1 - control.standalone), Math.abs(1 - control.runtime));
  const sa = samples.flatMap((s) => s.standalone[0]);
  const sb = samples.flatMap((s) => s.runtime[0]);
  const ratio = median(ratios);
  const target: Target = { op: '>=', value: STEADY_TARGET };
  const verdict = verdictOf(ratio, target, noise);
  return {
    row: {
      id: 'steady_state',
      measure: 'steady state: validations/s',
      unit: 'validations/s',
      standalone: median(sa),
      runtime: median(sb),
      ratio,
      target,
      met: verdict !== 'not met',
      verdict,
      spread: { standalone: iqr(sa), runtime: iqr(sb), ratio: iqr(ratios) },
      samples: ratios.length,
    },
    bodies,
    perProcess,
    control,
    noise,
  };
}

// ---------------------------------------------------------------- output

function formatValue(row: Row, value: number): string {
  if (row.unit === 'ms') return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
  return value >= 1e6 ? `${(value / 1e6).toFixed(2)} M/s` : `${(value / 1e3).toFixed(1)} k/s`;
}

function table(rows: Row[], header: string[], notes: string[]): string {
  const cells = [
    ['measure', 'standalone', 'runtime', 'ratio', 'target', 'met'],
    ...rows.map((row) => [
      row.measure,
      formatValue(row, row.standalone),
      formatValue(row, row.runtime),
      row.ratio.toFixed(2),
      targetText(row.target) || '-',
      verdictMark(row.verdict),
    ]),
  ];
  return alignedTable(cells, header, notes);
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const started = performance.now();
  const require = createRequire(import.meta.url);
  const ajvVersion = (require('ajv/package.json') as { version: string }).version;

  // The schema both sides use, computed once here so the catalog loading of codegen is nobody's
  // cost; the children read it (and the steady-state bodies) from files.
  const schema = await validatorSchema(await loadCatalog());
  const { inputs, valid, invalid } = steadyInputs();
  const dir = mkdtempSync(join(tmpdir(), 'agent-errors-bench-'));
  let cold: Row[];
  let steady: Steady;
  const options = runtimeOptions();
  try {
    const shared: Shared = {
      validators: pathToFileURL(join(GENERATED_DIR, 'validators.js')).href,
      ajv: pathToFileURL(require.resolve('ajv/dist/2020.js')).href,
      options,
      ref: `${String(schema.$id)}#/$defs/${VALIDATOR_EXPORTS.envelope}`,
      schemaFile: join(dir, 'validator-schema.json'),
    };
    const inputsFile = join(dir, 'inputs.json');
    writeFileSync(shared.schemaFile, JSON.stringify(schema));
    writeFileSync(inputsFile, JSON.stringify({ inputs, valid }));
    cold = coldStart(shared, EXAMPLES.invalid_input.envelope);
    steady = steadyState(shared, inputsFile, { valid, invalid });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const rows = [...cold, steady.row];
  const context = {
    node: process.version,
    ajv: ajvVersion,
    cpus: availableParallelism(),
    runtimeOptions: options,
    cold: { warmup: COLD_WARMUP, reps: COLD_REPS, statistic: 'ratio of medians' },
    steady: {
      processes: STEADY_PROCESSES,
      roundsPerProcess: STEADY_ROUNDS,
      batchMs: STEADY_BATCH_MS,
      bodies: steady.bodies,
      statistic: 'median of all per-round ratios of the first copies; second copies measure the noise',
      perProcessRatio: steady.perProcess.map(round2),
      control: { standalone: round2(steady.control.standalone), runtime: round2(steady.control.runtime) },
      noise: round2(steady.noise),
    },
    seconds: round2((performance.now() - started) / 1000),
  };
  if (json) {
    // The same precision as the table: ratios to two decimals, ms to hundredths, ops to units.
    const value = (row: Row) => (x: number) => (row.unit === 'ms' ? round2(x) : Math.round(x));
    const pair = (f: (x: number) => number, p: [number, number]): [number, number] => [f(p[0]), f(p[1])];
    const out = rows.map((row) => ({
      ...row,
      standalone: value(row)(row.standalone),
      runtime: value(row)(row.runtime),
      ratio: round2(row.ratio),
      spread: {
        standalone: pair(value(row), row.spread.standalone),
        runtime: pair(value(row), row.spread.runtime),
        ...(row.spread.ratio ? { ratio: pair(round2, row.spread.ratio) } : {}),
      },
    }));
    console.log(JSON.stringify({ ...context, rows: out }, null, 2));
    return;
  }
  const fmt = (xs: number[]): string => xs.map((x) => x.toFixed(2)).join(', ');
  console.log(
    table(
      rows,
      [
        'generated/validators.js (ajv standalone) vs the same schema compiled by ajv at run time',
        `node ${context.node}, ajv ${context.ajv}, ${context.cpus} CPUs, run-time options ${JSON.stringify(options)}`,
        `cold start: ${COLD_REPS} fresh processes per side, interleaved, after ${COLD_WARMUP} discarded; medians`,
        `steady state: ${STEADY_PROCESSES} processes x ${STEADY_ROUNDS} rounds over ${valid} valid + ${invalid} invalid envelopes; median per-round ratio`,
      ],
      [
        'ratio = standalone / runtime, both measured in this run; absolute numbers are context only.',
        `steady state per process: ${fmt(steady.perProcess)}`,
        `steady state A/A control, second copy / first copy of the same code: standalone ${steady.control.standalone.toFixed(2)}, runtime ${steady.control.runtime.toFixed(2)}; noise ${steady.noise.toFixed(2)}`,
        ...(rows.some((r) => r.verdict === 'equal within noise')
          ? ['yes* = below target by no more than the A/A control strayed from 1.00: equal within noise']
          : []),
        `took ${context.seconds} s`,
      ],
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof CannotMeasure ? `bench: cannot measure: ${error.message}` : error);
  process.exitCode = 1;
});
