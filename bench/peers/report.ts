// What the run writes: the table's notes (what a cell means, each client's defaults and version)
// and the chart's data, calls per dialect per client, a panel per failure.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CLEARS_AFTER_SECONDS } from '../../src/tools/demo.js';
import { CAP_SECONDS, type Row } from './cells.js';
import type { Peer } from './clients.js';
import { FAILURE_LABELS } from './table.js';
import type { BarChart } from './svg.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The installed version of `pkg` (this package's own for its name). */
export function versionOf(pkg: string): string {
  const file = pkg === '@agent-index/errors' ? `${ROOT}package.json` : `${ROOT}node_modules/${pkg}/package.json`;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** What a cell means, then each client's defaults as read from its source. */
export function notes(peers: readonly Peer[]): string[] {
  return [
    `Each cell: how the GET ended (\`ok\`, the error the client surfaced, or \`timeout\` at ${CAP_SECONDS} s), the calls the service saw (c) and wall seconds (s). The failures clear ${CLEARS_AFTER_SECONDS} s after a cell's first call; every cell has its own port and runs at the same time as the others.`,
    '',
    'Each client with its defaults:',
    '',
    ...peers.map((p) => `- **${p.name}** (${p.pkg} ${versionOf(p.pkg)}): ${p.defaults}. Read in \`${p.source}\`.`),
  ];
}

/** The run's date and platform, one line. */
export const runLine = (date: Date): string => `Run ${date.toISOString().slice(0, 10)} on Node ${process.version} (${process.platform} ${process.arch}), \`npx tsx bench/peers.ts\`.`;

/** Calls per dialect per client, a panel per failure. */
export function chartOf(rows: readonly Row[], peers: readonly Peer[]): BarChart {
  const failures = [...new Set(rows.map((r) => r.failure))];
  return {
    title: `Calls until the failure clears (${CLEARS_AFTER_SECONDS} s) or the client stops, per dialect`,
    xLabel: 'dialect the service answers in',
    yLabel: 'calls the service saw',
    series: peers.map((p) => p.name),
    panels: failures.map((failure) => ({
      title: FAILURE_LABELS[failure] ?? failure,
      groups: rows
        .filter((r) => r.failure === failure)
        .map((r) => ({
          label: r.dialect,
          bars: r.cells.map((c) => ({ value: c.calls, ok: c.outcome === 'ok', note: `${c.outcome}, ${c.seconds} s` })),
        })),
    })),
  };
}
