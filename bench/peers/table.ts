// The grid as a Markdown table, a row per failure and dialect, a column per client, cells in the
// seed's form: outcome, calls the service saw, wall seconds.
import type { FailureName } from '../../src/tools/demo.js';
import type { CellResult, Row } from './cells.js';

/** The two temporary failures as the issue names them, with the status each is sent with. */
export const FAILURE_LABELS: Partial<Record<FailureName, string>> = {
  rate_limited: 'rate limited (429)',
  maintenance: 'maintenance (503)',
};

/** `ok 2c 30s`; a pipe in an outcome cannot break the table. */
export const cellText = (c: CellResult): string => `${c.outcome.replaceAll('|', '\\|')} ${c.calls}c ${c.seconds}s`;

/** The Markdown table. */
export function markdownTable(rows: readonly Row[], clients: readonly string[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    line(['failure', 'dialect', ...clients]),
    line(['---', '---', ...clients.map(() => '---')]),
    ...rows.map((r) => line([FAILURE_LABELS[r.failure] ?? r.failure, r.dialect, ...r.cells.map(cellText)])),
  ].join('\n');
}
