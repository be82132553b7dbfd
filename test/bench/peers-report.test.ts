// The peer bench's table and chart data from a grid of results.
import { describe, expect, it } from 'vitest';
import type { Row } from '../../bench/peers/cells.js';
import { PEERS } from '../../bench/peers/clients.js';
import { chartOf, goalMisses, headlineTable, seedComparisons, seedGivesDelay, type Comparison } from '../../bench/peers/report.js';
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

const cell = (outcome: string, calls: number, seconds = 0) => ({ outcome, calls, seconds });

// Three columns of PEERS: ky alone, ky with its plug-in, and this package's client.
const three = [PEERS.find((p) => p.name === 'ky')!, PEERS.find((p) => p.name === 'ky + agentFetch')!, PEERS.find((p) => p.name === 'this package')!];
const grid: Row[] = [
  { failure: 'rate_limited', dialect: 'google', cells: [cell('HTTPError 429', 3, 1), cell('ok', 2, 30), cell('ok', 2, 30)] },
  { failure: 'rate_limited', dialect: 'vague', cells: [cell('HTTPError 429', 3, 1), cell('HTTPError 429', 1), cell('rate_limited, no delay', 1)] },
];

describe('seedGivesDelay', () => {
  it('reads the answer as fromResponse does: a delay in the problem, google and envelope dialects, none in stripe and vague', () => {
    expect((['problem', 'google', 'stripe', 'vague', 'envelope'] as const).map((dialect) => seedGivesDelay({ failure: 'rate_limited', dialect }))).toEqual([true, true, false, false, true]);
  });
});

describe('seedComparisons and goalMisses', () => {
  it('pairs a plug-in column with its client alone and this package\'s client, cell by cell', () => {
    const [ky] = seedComparisons(grid, three);
    expect(ky!.client).toBe('ky');
    expect(ky!.plugged).toBe('ky + agentFetch');
    expect(ky!.cells.map((c) => [c.label, c.short, c.delayGiven, c.alone.calls, c.plugged.calls, c.ours.calls])).toEqual([
      ['rate limited (429), google', '429 google', true, 3, 2, 2],
      ['rate limited (429), vague', '429 vague', false, 3, 1, 1],
    ]);
    expect(goalMisses(ky!)).toEqual([]);
  });

  const compared = (plugged: ReturnType<typeof cell>, delayGiven = true, alone = cell('HTTPError 429', 3), ours = cell('ok', 2)): Comparison => ({
    client: 'ky',
    plugged: 'ky + x',
    cells: [{ label: 'L', short: 'l', delayGiven, alone, plugged, ours }],
  });

  it.each([
    ['not ok where a delay is given', compared(cell('HTTPError 429', 1)), /not ok in 2 calls/],
    ['ok in 3 calls where a delay is given', compared(cell('ok', 3)), /not ok in 2 calls/],
    ['more calls than alone', compared(cell('HTTPError 429', 2), false, cell('HTTPError 429', 1), cell('rate_limited, no delay', 1)), /more calls than alone/],
    ['ending otherwise than this package\'s client', compared(cell('HTTPError 503', 1), false, cell('HTTPError 503', 3), cell('ok', 2)), /this package's client: ok 2c/],
  ])('reports a cell %s, naming the column and the cell', (_what, comparison, reason) => {
    const misses = goalMisses(comparison);
    expect(misses).toHaveLength(1);
    expect(misses[0]).toMatch(/^ky \+ x, L: /);
    expect(misses[0]).toMatch(reason);
  });

  it('passes a cell ok in 2 calls as this package\'s client, with fewer calls than alone', () => {
    expect(goalMisses(compared(cell('ok', 2)))).toEqual([]);
  });
});

describe('headlineTable', () => {
  it('sums ok cells and calls per client alone and with the plug-in, says whether the goal holds, then this package\'s client', () => {
    const comparisons = seedComparisons(grid, three);
    const missed = { ...comparisons[0]!, client: 'got', plugged: 'got + agentGot', cells: [{ ...comparisons[0]!.cells[0]!, plugged: cell('HTTPError 429', 1) }] };
    expect(headlineTable([...comparisons, missed], grid, three, []).split('\n')).toEqual([
      '| client | plug-in | cells | alone | with the plug-in | goal |',
      '| --- | --- | ---: | --- | --- | --- |',
      '| ky | `agentFetch` | 2 | 0 ok, 6 calls | 1 ok, 3 calls | met |',
      '| got | `agentGot` | 1 | 0 ok, 3 calls | 0 ok, 1 call | 1 missed |',
      "| this package's client |  | 2 | 1 ok, 3 calls |  |  |",
    ]);
  });
});

describe('chartOf', () => {
  it('makes a panel per client, a group per cell and three bars: alone, with the plug-in, this package\'s client; solid only for ok', () => {
    const chart = chartOf(seedComparisons(grid, three));
    expect(chart.series).toEqual(['alone', "with this package's plug-in", "this package's client"]);
    expect(chart.panels.map((p) => [p.title, p.groups.map((g) => [g.label, g.bars.map((b) => [b.value, b.ok])])])).toEqual([
      [
        'ky / ky + agentFetch',
        [
          ['429 google', [[3, false], [2, true], [2, true]]],
          ['429 vague', [[3, false], [1, false], [1, false]]],
        ],
      ],
    ]);
  });
});
