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
