// The statistics every benchmark here reports with: quantiles of per-round ratios, never bare times.

/** The q-quantile of `values`, linearly interpolated. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** The interquartile range. */
export const iqr = (values: readonly number[]): [number, number] => [quantile(values, 0.25), quantile(values, 0.75)];

export const round2 = (x: number): number => Math.round(x * 100) / 100;

/** The cell a verdict shows: yes, yes* (equal within noise), no, or - for a row without a target. */
export const verdictMark = (verdict: string): string =>
  verdict === 'informational' ? '-' : verdict === 'met' ? 'yes' : verdict === 'equal within noise' ? 'yes*' : 'no';

/** Aligned columns, the first left and the rest right, with a rule under the header row. */
export function alignedTable(cells: readonly (readonly string[])[], header: readonly string[], notes: readonly string[]): string {
  const widths = cells[0]!.map((_, c) => Math.max(...cells.map((line) => line[c]!.length)));
  const lines = cells.map((line) => line.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '));
  lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '));
  return [...header, '', ...lines, '', ...notes].join('\n');
}

/** A target as the tables show it: `<= 0.10`, `>= 0.97` (a bare number is a floor), or '' for none. */
export const targetText = (target: { op: '<=' | '>='; value: number } | number | null | undefined): string =>
  target === null || target === undefined ? '' : typeof target === 'number' ? `>= ${target.toFixed(2)}` : `${target.op} ${target.value.toFixed(2)}`;
