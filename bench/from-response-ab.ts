// fromResponse as it is in the working tree against fromResponse at an earlier commit, over the
// response corpus, both built and measured in this one run: the target of the corpus row (issue 36)
// is that reading a new dialect or format costs at most 3 % more than the commit before it.
//
//   npx tsx bench/from-response-ab.ts                 against HEAD when src/ or generated/ have
//                                                     changes not yet committed, else HEAD~1 (the last commit's change)
//   npx tsx bench/from-response-ab.ts --base <rev>    against any commit
//   npx tsx bench/from-response-ab.ts --json          the same as JSON
//
// Each side is src/core/from-response.ts of its tree (the base's from `git archive`, with its
// generated/), bundled by esbuild into one module of its own under a temporary folder, so that both
// run the same way and neither shares a compiled function with the other. The base is bundled twice:
// the second copy against the first is the A/A control, whose distance from 1.00 is the row's own
// noise, and a ratio above 1.03 by no more than that is "equal within noise" (yes*). Rounds rotate
// which side runs first; the ratio is the median of the per-round ratios. Before measuring, every
// corpus response is read by both sides and the envelopes compared: a change that reads a response
// differently is said so (a count of responses that differ), since a row that compares two different
// answers is not comparing costs alone.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { loadCorpus, type CorpusItem } from './agent.js';
import { median, permutations, round2, verdictMark, verdictOf, type Target } from './stats.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET: Target = { op: '<=', value: 1.03 };
const WARMUP_PASSES = 400;
const BATCH_PASSES = 20;
const ROUNDS = 60;

type Read = (status: number, headers: Record<string, string>, body: string | null) => { error: { code: string; message: string } };

/** src/core/from-response.ts of the tree at `root`, bundled into `out` (dependencies resolved from this repo's node_modules), and imported. */
async function bundle(root: string, out: string): Promise<Read> {
  await build({
    entryPoints: [join(root, 'src', 'core', 'from-response.ts')],
    outfile: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    nodePaths: [join(ROOT, 'node_modules')],
    logLevel: 'silent',
  });
  return ((await import(pathToFileURL(out).href)) as { fromResponse: Read }).fromResponse;
}

let sink = 0;
const pass = (read: Read, items: readonly CorpusItem[], passes: number): void => {
  for (let p = 0; p < passes; p++) for (const item of items) sink += read(item.status, item.headers, item.body).error.message.length;
};

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { base: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const changed = execFileSync('git', ['status', '--porcelain', '--', 'src', 'generated'], { cwd: ROOT, encoding: 'utf8' }).trim() !== '';
  const base = values.base ?? (changed ? 'HEAD' : 'HEAD~1');
  const rev = execFileSync('git', ['rev-parse', '--short', base], { cwd: ROOT, encoding: 'utf8' }).trim();
  const tmp = mkdtempSync(join(tmpdir(), 'agent-errors-ab-'));
  try {
    const tree = join(tmp, 'base');
    mkdirSync(tree);
    // The base's own source and generated tables, nothing else of it.
    execFileSync('sh', ['-c', `git archive ${JSON.stringify(rev)} src generated | tar -x -C ${JSON.stringify(tree)}`], { cwd: ROOT });
    const [current, before, again] = await Promise.all([bundle(ROOT, join(tmp, 'current.mjs')), bundle(tree, join(tmp, 'base.mjs')), bundle(tree, join(tmp, 'base-again.mjs'))]);
    const { items } = loadCorpus();
    const differ = items.filter((item) => JSON.stringify(current(item.status, item.headers, item.body)) !== JSON.stringify(before(item.status, item.headers, item.body))).length;
    const sides = [current, before, again];
    for (let done = 0; done < WARMUP_PASSES; done += BATCH_PASSES) for (const read of sides) pass(read, items, BATCH_PASSES);
    const orders = permutations(sides.length);
    const ratios: number[] = [];
    const controls: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const times = [0, 0, 0];
      for (const i of orders[round % orders.length]!) {
        const t0 = performance.now();
        pass(sides[i]!, items, BATCH_PASSES);
        times[i] = performance.now() - t0;
      }
      ratios.push(times[0]! / times[1]!);
      controls.push(times[2]! / times[1]!);
    }
    const ratio = median(ratios);
    const control = median(controls);
    const verdict = verdictOf(ratio, TARGET, Math.abs(control - 1));
    const measure = `corpus (${items.length} responses): fromResponse now / at ${rev} (A/A ${round2(control).toFixed(2)}; ${differ} read differently)`;
    const result = { base: rev, responses: items.length, differ, ratio: round2(ratio), control: round2(control), target: TARGET, verdict, met: verdictMark(verdict), rows: [{ measure, ratio: round2(ratio), target: TARGET, verdict }] };
    if (values.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      process.stdout.write(
        [
          `fromResponse over the corpus (${items.length} responses): the working tree / ${rev}, ${ROUNDS} rounds of ${BATCH_PASSES} passes`,
          `  ratio ${result.ratio.toFixed(2)} (A/A control ${result.control.toFixed(2)}), target <= ${TARGET.value.toFixed(2)}: ${result.met}`,
          `  responses read differently: ${differ}`,
          '',
        ].join('\n'),
      );
    }
    if (sink === -1) process.stdout.write('');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
