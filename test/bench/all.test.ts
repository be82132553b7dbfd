import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BENCHES, formatReport, TABLE_PAGE } from '../../bench/all.js';
import { injectSection } from '../../bench/publish.js';

const bench = (name: string) => BENCHES.find((b) => b.name === name)!;

describe('npm run bench: the one report', () => {
  it('reads each benchmark\'s JSON rows into ratio, target and mark', () => {
    const rows = [
      ...bench('validators').rows({ rows: [{ measure: 'cold start', ratio: 0.08, target: { op: '<=', value: 0.1 }, verdict: 'met' }] }),
      ...bench('site').rows({ rows: [{ adapter: 'express', case: 'json', ratio: 0.93, control: 1.01, floor: 0.98, target: 0.97, verdict: 'not met' }] }),
    ];
    const report = formatReport(rows, 'context');
    expect(report).toContain('| validators | cold start | 0.08 | <= 0.10 | yes |');
    expect(report).toContain('| site | Express, 1 KB JSON: wrapped / bare req/s (A/A 1.01, a no-op integration 0.98) | 0.93 | >= 0.97 | no |');
  });

  it('says of a site row judged against the no-op Hono middleware what it divides by, and still shows wrapped / bare', () => {
    const rows = bench('site').rows({
      rows: [{ adapter: 'hono', case: 'json', baseline: 'no-op', ratio: 0.98, overBare: 0.89, control: 0.99, floor: 0.91, target: 0.97, verdict: 'met' }],
    });
    expect(formatReport(rows, 'context')).toContain(
      '| site | Hono, middleware, 1 KB JSON: wrapped / a no-op Hono middleware req/s, same run (A/A 0.99; no-op / bare 0.91, wrapped / bare 0.89) | 0.98 | >= 0.97 | yes |',
    );
  });

  it('sums calls per client in the peers grid, against this package\'s', () => {
    const rows = bench('peers').rows({
      peers: ['ky', 'this package'],
      rows: [
        { cells: [{ calls: 3, outcome: 'HTTPError 429' }, { calls: 1, outcome: 'rate_limited' }] },
        { cells: [{ calls: 2, outcome: 'ok' }, { calls: 2, outcome: 'ok' }] },
      ],
    });
    expect(rows.map((r) => [r.ratio, r.measure])).toEqual([
      [5 / 3, "ky: calls over 2 cells (1 ended ok), / this package's"],
      [1, "this package: calls over 2 cells (1 ended ok), / this package's"],
    ]);
  });

  it('publishes its table into a page that has the bench markers', () => {
    const page = readFileSync(new URL(`../../${TABLE_PAGE}`, import.meta.url), 'utf8');
    expect(TABLE_PAGE).toBe('docs/benchmarks.md');
    expect(page.indexOf('<!-- bench:start -->')).toBeGreaterThan(-1);
    expect(page.indexOf('<!-- bench:end -->')).toBeGreaterThan(page.indexOf('<!-- bench:start -->'));
  });

  it('replaces only the text between a page\'s markers, and leaves a page without them alone', () => {
    const readme = 'a\n<!-- bench:start -->\nold\n<!-- bench:end -->\nb';
    expect(injectSection(readme, 'bench', 'new')).toBe('a\n<!-- bench:start -->\nnew\n<!-- bench:end -->\nb');
    expect(injectSection(readme, 'peers', 'new')).toBe(readme);
    expect(injectSection('no markers', 'bench', 'new')).toBe('no markers');
  });
});
