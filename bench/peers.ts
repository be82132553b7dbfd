// Issue 7 item 4: seed 002's scripted service on a real clock, its two temporary failures (rate
// limited, maintenance) in five dialects, through ky, got, undici's RetryAgent, axios-retry (each
// with its library's defaults) and this package's client; outcome, calls and seconds per cell.
//
//   npx tsx bench/peers.ts          prints the table; writes bench/results/peers.md, docs/peers.svg and the README's table
//   npx tsx bench/peers.ts --json   the rows as JSON instead of the table (the files are written all the same)
//
// Every cell runs at once, so the run takes about the 30 s the failures last (a cell is cut off at
// 60 s). Not a test: nothing here fails the run but a cell that cannot be measured at all.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FailureName } from '../src/tools/demo.js';
import { runGrid } from './peers/cells.js';
import { PEERS } from './peers/clients.js';
import { chartOf, notes, runLine } from './peers/report.js';
import { createScriptedService } from './peers/server.js';
import { barChartSvg } from './peers/svg.js';
import { publish } from './publish.js';
import { markdownTable } from './peers/table.js';

// The seed's two failures that clear with time: `rate_limited` (429) and `maintenance`
// (temporarily_unavailable, 503), both with a 30 s delay where the dialect can say one.
const FAILURES: readonly FailureName[] = ['rate_limited', 'maintenance'];

const out = (path: string): string => fileURLToPath(new URL(path, new URL('../', import.meta.url)));

async function main(): Promise<void> {
  const service = createScriptedService();
  const started = new Date();
  let rows;
  try {
    rows = await runGrid(service, PEERS, FAILURES);
  } finally {
    await service.close();
  }
  const table = markdownTable(rows, PEERS.map((p) => p.name));
  const md = ['# Peers: seed 002 through the clients agents use today', '', table, '', ...notes(PEERS), '', runLine(started), ''].join('\n');
  for (const [path, content] of [
    ['bench/results/peers.md', md],
    ['docs/peers.svg', barChartSvg(chartOf(rows, PEERS))],
  ] as const) {
    mkdirSync(dirname(out(path)), { recursive: true });
    writeFileSync(out(path), content);
  }
  publish('README.md', 'peers', `${table}\n\n${runLine(started)}`);
  if (process.argv.includes('--json')) {
    process.stdout.write(`${JSON.stringify({ peers: PEERS.map((p) => p.name), rows }, null, 2)}\n`);
    return;
  }
  process.stdout.write(`${table}\n\n${notes(PEERS).join('\n')}\n\n${runLine(started)}\nWrote bench/results/peers.md and docs/peers.svg.\n`);
}

await main();
