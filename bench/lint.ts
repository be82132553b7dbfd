// Benchmark: agent-errors lint beside Redocly's lint on the largest real specs of the project's
// fixtures (GitHub's, 13 MB, and Stripe's and Cloudflare's, 4 MB each; test/fixtures/specs), issue 28
// item 4. Each lint runs in a fresh process (bench/lint-child.ts, both under the same tsx loader),
// the sides interleaved round by round; a second run of this package's lint in each round is the
// A/A control of the time ratio.
//
//   npx tsx bench/lint.ts          a table
//   npx tsx bench/lint.ts --json   the same as JSON
//
// Ratios, per spec: median time ours / median time Redocly, at most 0.25; median peak resident
// memory ours / Redocly, at most 1.00. Time is from before the linter's module is imported to its
// findings (Node's own start, the same for both, left out). Missing a target never fails the run;
// only a child that cannot lint exits 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { alignedTable, median, round2, targetText, verdictMark, verdictOf, type Target, type Verdict } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHILD = fileURLToPath(new URL('./lint-child.ts', import.meta.url));
const SPECS: readonly [name: string, gz: string][] = [
  ['GitHub (api.github.com, 13.0 MB)', 'test/fixtures/specs/github/api.github.com.json.gz'],
  ['Stripe (spec3.json, 4.2 MB)', 'test/fixtures/specs/stripe/spec3.json.gz'],
  ['Cloudflare (openapi.json, 4.2 MB)', 'test/fixtures/specs/cloudflare/openapi.json.gz'],
];
const ROUNDS = 5;
const TIME_TARGET: Target = { op: '<=', value: 0.25 };
const MEMORY_TARGET: Target = { op: '<=', value: 1 };

interface Run {
  ms: number;
  maxRssKb: number;
  findings: number;
}

function lintOnce(tool: string, spec: string): Run {
  const child = spawnSync(process.execPath, ['--import', 'tsx', CHILD, tool, spec], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (child.status !== 0) throw new Error(`${tool} could not lint ${spec}: ${child.stderr.slice(0, 2000)}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Run;
}

interface Row {
  measure: string;
  ratio: number;
  target: Target | null;
  verdict: Verdict;
  a: string;
  b: string;
}

function main(): void {
  const json = process.argv.includes('--json');
  const dir = mkdtempSync(join(tmpdir(), 'bench-lint-'));
  const rows: Row[] = [];
  try {
    for (const [name, gz] of SPECS) {
      const spec = join(dir, gz.split('/').at(-1)!.replace(/\.gz$/, ''));
      writeFileSync(spec, gunzipSync(readFileSync(join(ROOT, gz))));
      const runs: Record<'ours' | 'again' | 'redocly', Run[]> = { ours: [], again: [], redocly: [] };
      lintOnce('ours', spec); // the file and page caches, once
      for (let round = 0; round < ROUNDS; round += 1) {
        // Rotate the order, so no side always runs first after a quiet moment.
        const order = [['ours', 'ours'], ['redocly', 'redocly'], ['again', 'ours']] as const;
        for (let i = 0; i < order.length; i += 1) {
          const [side, tool] = order[(i + round) % order.length]!;
          runs[side].push(lintOnce(tool, spec));
        }
      }
      const time = (side: keyof typeof runs): number => median(runs[side].map((r) => r.ms));
      const rss = (side: keyof typeof runs): number => median(runs[side].map((r) => r.maxRssKb));
      const control = time('again') / time('ours');
      const noise = Math.abs(1 - control);
      const timeRatio = time('ours') / time('redocly');
      const memoryRatio = rss('ours') / rss('redocly');
      const ms = (side: keyof typeof runs): string => `${Math.round(time(side))} ms`;
      const mb = (side: keyof typeof runs): string => `${Math.round(rss(side) / 1024)} MB`;
      rows.push(
        { measure: `${name}: lint time, this package / Redocly (A/A ${round2(control).toFixed(2)})`, ratio: timeRatio, target: TIME_TARGET, verdict: verdictOf(timeRatio, TIME_TARGET, noise), a: ms('ours'), b: ms('redocly') },
        { measure: `${name}: peak memory, this package / Redocly`, ratio: memoryRatio, target: MEMORY_TARGET, verdict: verdictOf(memoryRatio, MEMORY_TARGET, null), a: mb('ours'), b: mb('redocly') },
      );
      process.stderr.write(`bench lint: ${name}: ${runs.ours[0]!.findings} findings here, ${runs.redocly[0]!.findings} from Redocly\n`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (json) {
    console.log(JSON.stringify({ rows: rows.map(({ measure, ratio, target, verdict }) => ({ measure, ratio, target, verdict })) }));
    return;
  }
  const cells = [['measure', 'this package', 'Redocly', 'ratio', 'target', 'met'], ...rows.map((r) => [r.measure, r.a, r.b, r.ratio.toFixed(2), targetText(r.target), verdictMark(r.verdict)])];
  console.log(alignedTable(cells, ['agent-errors lint beside Redocly (@redocly/openapi-core lint, recommended rules), medians of fresh processes'], [`${ROUNDS} rounds per spec; the A/A control is a second run of this package's lint in the same rounds.`]));
}

main();
