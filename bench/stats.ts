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

/** Every order of 0 .. n-1, for rounds that rotate which side runs first. */
export function permutations(n: number): number[][] {
  if (n === 1) return [[0]];
  return permutations(n - 1).flatMap((p) => Array.from({ length: n }, (_, at) => [...p.slice(0, at), n - 1, ...p.slice(at)]));
}

/** A ratio's target: at most (`<=`) or at least (`>=`) `value`. */
export interface Target {
  readonly op: '<=' | '>=';
  readonly value: number;
}

export type Verdict = 'met' | 'equal within noise' | 'not met' | 'informational';
/** The verdict of a ratio that has a target. */
export type Judged = Exclude<Verdict, 'informational'>;

/**
 * A ratio against its target, at the two decimals the tables show: met; "equal within noise" when
 * it misses by no more than `noise` (how far the same run's A/A control strayed from 1.00; null
 * where there is none); not met; informational when there is no target.
 */
export function verdictOf(ratio: number, target: Target, noise: number | null): Judged;
export function verdictOf(ratio: number, target: Target | null, noise: number | null): Verdict;
export function verdictOf(ratio: number, target: Target | null, noise: number | null): Verdict {
  if (target === null) return 'informational';
  const r = round2(ratio);
  const within = (bound: number): boolean => (target.op === '>=' ? r >= bound : r <= bound);
  if (within(target.value)) return 'met';
  if (noise !== null && within(round2(target.op === '>=' ? target.value - noise : target.value + noise))) return 'equal within noise';
  return 'not met';
}

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
export const targetText = (target: Target | number | null | undefined): string =>
  target === null || target === undefined ? '' : typeof target === 'number' ? `>= ${target.toFixed(2)}` : `${target.op} ${target.value.toFixed(2)}`;
