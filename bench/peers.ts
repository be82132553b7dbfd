// Issue 7 item 4 and issue 15 item 5: seed 002's scripted service on a real clock, its two temporary
// failures (rate limited, maintenance) in five dialects, through ky, got, undici, axios-retry (each
// alone, with its library's defaults, and with this package's plug-in for it) and this package's
// client (with its defaults and with unknownDelay 'backoff'); and the SDKs agents call model and
// code APIs through (openai, @anthropic-ai/sdk, @octokit/rest), alone and with agentFetch,
// against each vendor's own rate-limit answers. Outcome, calls and seconds per cell.
//
//   npx tsx bench/peers.ts          prints the tables; writes bench/results/peers.md, docs/peers.svg,
//                                   the README's headline and docs/benchmarks.md's peers section
//   npx tsx bench/peers.ts --json   the rows as JSON instead (the files are written all the same)
//
// Every cell of both grids runs at once, so the run takes about the 30 s the failures last (a cell
// is cut off at 60 s). Not a test: nothing here fails the run but a cell that cannot be measured.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FailureName } from '../src/tools/demo.js';
import { runGrid, runSdkGrid } from './peers/cells.js';
import { PEERS } from './peers/clients.js';
import { chartOf, goalMisses, headlineTable, MISS_REASONS, notes, runLine, sdkComparisons, sdkTable, seedComparisons } from './peers/report.js';
import { SDKS } from './peers/sdks.js';
import { createScriptedService } from './peers/server.js';
import { barChartSvg } from './peers/svg.js';
import { markdownTable } from './peers/table.js';
import { createVendorService } from './peers/vendors.js';
import { publish } from './publish.js';

// The seed's two failures that clear with time: `rate_limited` (429) and `maintenance`
// (temporarily_unavailable, 503), both with a 30 s delay where the dialect can say one.
const FAILURES: readonly FailureName[] = ['rate_limited', 'maintenance'];

/** This package's client with other options, shown in the headline under the client itself. */
const OUR_VARIANTS = ['this package, backoff', 'this package, backoff, budget 6'];

const out = (path: string): string => fileURLToPath(new URL(path, new URL('../', import.meta.url)));

async function main(): Promise<void> {
  const seed = createScriptedService();
  const vendors = createVendorService();
  const started = new Date();
  let rows, sdkRows;
  try {
    [rows, sdkRows] = await Promise.all([runGrid(seed, PEERS, FAILURES), runSdkGrid(vendors)]);
  } finally {
    await Promise.all([seed.close(), vendors.close()]);
  }
  const sdkCompared = sdkComparisons(sdkRows, SDKS);
  const comparisons = [...seedComparisons(rows, PEERS), ...sdkCompared];
  const misses = comparisons.flatMap(goalMisses);
  const headline = headlineTable(comparisons, rows, PEERS, OUR_VARIANTS);
  const why = comparisons.filter((c) => goalMisses(c).length && MISS_REASONS[c.plugged]).map((c) => `Why ${c.plugged} misses: ${MISS_REASONS[c.plugged]}.`);
  const goal = misses.length ? ['Where the goal was missed:', '', ...misses.map((m) => `- ${m}`), '', ...why.flatMap((w) => [w, ''])].slice(0, -1) : ['The goal was met in every cell.'];
  const grid = markdownTable(rows, PEERS.map((p) => p.name));
  const sdk = sdkTable(sdkCompared);
  const md = [
    '# Peers: the clients and SDKs agents use today, alone and with this package\'s plug-in',
    '',
    '## Headline',
    '',
    'Cells that ended ok, and calls summed over them: seed 002\'s grid for the clients, the vendor\'s own answers for the SDKs.',
    '',
    headline,
    '',
    ...goal,
    '',
    '## Seed 002 in five dialects',
    '',
    grid,
    '',
    '## The SDKs against their vendors\' own answers',
    '',
    sdk,
    '',
    '## Notes',
    '',
    ...notes([...PEERS, ...Object.values(SDKS).flatMap((s) => [s.alone, s.plugged])]),
    '',
    runLine(started),
    '',
  ].join('\n');
  for (const [path, content] of [
    ['bench/results/peers.md', md],
    ['docs/peers.svg', barChartSvg(chartOf(comparisons))],
  ] as const) {
    mkdirSync(dirname(out(path)), { recursive: true });
    writeFileSync(out(path), content);
  }
  publish('README.md', 'peers', `${headline}\n\n${runLine(started)}`);
  publish('docs/benchmarks.md', 'peers', [headline, '', ...goal, '', sdk, '', runLine(started)].join('\n'));
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ peers: PEERS.map((p) => p.name), rows, sdk: sdkRows }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${headline}\n\n${goal.join('\n')}\n\n${grid}\n\n${sdk}\n\n${runLine(started)}\nWrote bench/results/peers.md, docs/peers.svg, README.md and docs/benchmarks.md.\n`);
}

await main();
