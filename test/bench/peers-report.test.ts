// The peer bench's table and chart data from a grid of results.
import { describe, expect, it } from 'vitest';
import type { Row } from '../../bench/peers/cells.js';
import { PEERS } from '../../bench/peers/clients.js';
import { chartOf } from '../../bench/peers/report.js';
import { markdownTable } from '../../bench/peers/table.js';

const rows: Row[] = [
  { failure: 'rate_limited', dialect: 'problem', cells: [{ outcome: 'ok', calls: 2, seconds: 30 }, { outcome: 'HTTPError 429', calls: 3, seconds: 1 }] },
  { failure: 'maintenance', dialect: 'vague', cells: [{ outcome: 'a | b', calls: 1, seconds: 0 }, { outcome: 'timeout', calls: 9, seconds: 60 }] },
];

describe('markdownTable', () => {
  it('writes a row per failure and dialect, a column per client, cells as outcome, calls and seconds', () => {
    expect(markdownTable(rows, ['ky', 'got']).split('\n')).toEqual([
      '| failure | dialect | ky | got |',
      '| --- | --- | --- | --- |',
      '| rate limited (429) | problem | ok 2c 30s | HTTPError 429 3c 1s |',
      '| maintenance (503) | vague | a \\| b 1c 0s | timeout 9c 60s |',
    ]);
  });
});

describe('chartOf', () => {
  it('makes a panel per failure, a group per dialect and a bar per client: its calls, solid only for ok', () => {
    const chart = chartOf(rows, PEERS.slice(0, 2));
    expect(chart.series).toEqual(['ky', 'got']);
    expect(chart.panels.map((p) => [p.title, p.groups.map((g) => [g.label, g.bars.map((b) => [b.value, b.ok])])])).toEqual([
      ['rate limited (429)', [['problem', [[2, true], [3, false]]]]],
      ['maintenance (503)', [['vague', [[1, false], [9, false]]]]],
    ]);
  });
});
