import { describe, expect, it } from 'vitest';
import { baselineOf, summarize, type Side } from '../../bench/site.js';
import { verdictOf } from '../../bench/stats.js';

/** Rounds of one cell, every round the same requests per second for each of the five processes. */
const rounds = (sides: Record<Side, number>, n = 4): Record<Side, number>[] => Array.from({ length: n }, () => ({ ...sides }));
/** A cell where any middleware costs a tenth of bare, and the adapter `wrapped / no-op` of that. */
const cell = (wrappedOverNoop: number, control = 1): Record<Side, number>[] =>
  rounds({ bare: 1000, 'bare again': 1000 * control, 'no-op': 900, wrapped: 900 * wrappedOverNoop, 'wrapped again': 900 * wrappedOverNoop });

describe('bench/site.ts: what each cell is judged against', () => {
  it('judges the Hono middleware\'s JSON and stream against the no-op middleware, every other cell against bare', () => {
    expect(baselineOf('hono', 'json')).toBe('no-op');
    expect(baselineOf('hono', 'stream')).toBe('no-op');
    expect(baselineOf('hono', '404')).toBe('bare');
    for (const adapter of ['node', 'express', 'fastify', 'fetch'] as const) for (const kase of ['json', 'stream', '404'] as const) expect(baselineOf(adapter, kase)).toBe('bare');
  });

  it('meets 0.97 of the no-op for the Hono middleware where 0.89 of bare would miss it', () => {
    const s = cell(0.99);
    const row = summarize('hono', 'json', s, s);
    expect(row.baseline).toBe('no-op');
    expect(row.ratio).toBeCloseTo(0.99, 5);
    expect(row.overNoop).toBeCloseTo(0.99, 5);
    expect(row.overBare).toBeCloseTo(0.891, 5);
    expect(row.floor).toBeCloseTo(0.9, 5);
    expect(row.verdict).toBe('met');
    // The same numbers on the Fetch adapter's row, judged against bare, miss.
    const fetchRow = summarize('fetch', 'json', s, s);
    expect(fetchRow.baseline).toBe('bare');
    expect(fetchRow.ratio).toBeCloseTo(0.891, 5);
    expect(fetchRow.verdict).toBe('not met');
  });

  it('gives a Hono middleware row below 0.97 of the no-op yes* within the bare A/A, and no beyond it', () => {
    expect(summarize('hono', 'stream', cell(0.95, 0.97), cell(0.95)).verdict).toBe('equal within noise');
    expect(summarize('hono', 'stream', cell(0.95, 1.03), cell(0.95)).verdict).toBe('equal within noise');
    expect(summarize('hono', 'stream', cell(0.95, 0.99), cell(0.95)).verdict).toBe('not met');
    expect(summarize('hono', 'json', cell(0.9, 0.97), cell(0.9)).verdict).toBe('not met');
  });

  it('takes the median of each wrapped process over the one no-op process, round by round', () => {
    const s = [
      { bare: 1000, 'bare again': 1000, 'no-op': 900, wrapped: 800, 'wrapped again': 900 },
      { bare: 1000, 'bare again': 1000, 'no-op': 1000, wrapped: 1000, 'wrapped again': 990 },
      { bare: 1000, 'bare again': 1000, 'no-op': 800, wrapped: 800, 'wrapped again': 800 },
    ];
    // Per-round ratios 0.889, 1.000, 1.000, 0.990, 1.000, 1.000: the median is 1.00.
    expect(summarize('hono', 'json', s, s).ratio).toBeCloseTo(1, 5);
    expect(summarize('hono', 'json', s, s).verdict).toBe('met');
  });

  it('keeps the 404 target of 0.50 of bare for the Hono middleware', () => {
    const s = rounds({ bare: 1000, 'bare again': 1000, 'no-op': 1000, wrapped: 600, 'wrapped again': 600 });
    const row = summarize('hono', '404', s, s);
    expect([row.baseline, row.target, row.verdict]).toEqual(['bare', 0.5, 'met']);
    expect(row.ratio).toBeCloseTo(0.6, 5);
  });
});

describe('bench/stats.ts: verdictOf', () => {
  it('judges a floor and a ceiling at two decimals, yes* within the noise', () => {
    expect(verdictOf(0.971, { op: '>=', value: 0.97 }, 0)).toBe('met');
    expect(verdictOf(0.95, { op: '>=', value: 0.97 }, 0.02)).toBe('equal within noise');
    expect(verdictOf(0.95, { op: '>=', value: 0.97 }, 0.01)).toBe('not met');
    expect(verdictOf(1.05, { op: '<=', value: 1.05 }, null)).toBe('met');
    expect(verdictOf(1.07, { op: '<=', value: 1.05 }, 0.03)).toBe('equal within noise');
    expect(verdictOf(1.07, { op: '<=', value: 1.05 }, null)).toBe('not met');
    expect(verdictOf(0.5, null, 0.5)).toBe('informational');
  });
});
