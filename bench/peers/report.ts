// What the run writes: each client alone against the same client with this package's plug-in and
// against this package's client (the comparisons), whether the goal is met, the headline table,
// the notes (what a cell means, what each client was run with), and the chart's data.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromResponse } from '../../src/core/from-response.js';
import { CLEARS_AFTER_SECONDS, scriptedService } from '../../src/tools/demo.js';
import { CAP_SECONDS, type CellResult, type Row, type SdkRow } from './cells.js';
import type { Peer } from './clients.js';
import type { SdkColumns } from './sdks.js';
import { FAILURE_LABELS } from './table.js';
import type { BarChart } from './svg.js';
import type { Vendor } from './vendors.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The column every comparison is measured against: this package's client with its defaults. */
export const OURS = 'this package';

/** The installed version of `pkg` (this package's own for its name). */
export function versionOf(pkg: string): string {
  const file = pkg === '@agent-index/errors' ? `${ROOT}package.json` : `${ROOT}node_modules/${pkg}/package.json`;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** One cell of a comparison: the same answer through the client alone, with the plug-in, and through this package's client. */
export interface Compared {
  readonly label: string;
  /** The label, short enough for the chart. */
  readonly short: string;
  /** True when the answer gives a delay anywhere (a header or the body), as fromResponse reads it. */
  readonly delayGiven: boolean;
  readonly alone: CellResult;
  readonly plugged: CellResult;
  readonly ours: CellResult;
}

/** A client alone against itself with the plug-in, cell by cell. */
export interface Comparison {
  /** The client alone's column name. */
  readonly client: string;
  /** The column name with the plug-in. */
  readonly plugged: string;
  readonly cells: readonly Compared[];
}

/** Whether seed 002's `failure` in `dialect` gives a delay anywhere, as fromResponse reads the answer. */
export function seedGivesDelay(row: Pick<Row, 'failure' | 'dialect'>): boolean {
  const reply = scriptedService(row.failure, row.dialect, 0);
  return fromResponse(reply.status, reply.headers, reply.body).error.retry_after !== null;
}

/** The seed grid's comparisons, a column with the plug-in (a peer with `alone`) against its client alone and this package's client. */
export function seedComparisons(rows: readonly Row[], peers: readonly Peer[]): Comparison[] {
  const at = (name: string): number => peers.findIndex((p) => p.name === name);
  const ours = at(OURS);
  return peers
    .filter((p) => p.alone !== undefined)
    .map((p) => {
      const [alone, plugged] = [at(p.alone!), at(p.name)];
      return {
        client: p.alone!,
        plugged: p.name,
        cells: rows.map((r) => ({
          label: `${FAILURE_LABELS[r.failure] ?? r.failure}, ${r.dialect}`,
          short: `${STATUS[r.failure] ?? r.failure} ${r.dialect}`,
          delayGiven: seedGivesDelay(r),
          alone: r.cells[alone]!,
          plugged: r.cells[plugged]!,
          ours: r.cells[ours]!,
        })),
      };
    });
}

/** The SDK grid's comparisons, one per vendor, in the grid's order. */
export function sdkComparisons(rows: readonly SdkRow[], sdks: Record<Vendor, SdkColumns>): Comparison[] {
  const vendors = [...new Set(rows.map((r) => r.cell.vendor))];
  return vendors.map((vendor) => ({
    client: sdks[vendor].alone.name,
    plugged: sdks[vendor].plugged.name,
    cells: rows
      .filter((r) => r.cell.vendor === vendor)
      .map((r) => ({ label: r.cell.says, short: r.cell.short, delayGiven: r.cell.delayGiven, alone: r.cells[0]!, plugged: r.cells[1]!, ours: r.cells[2]! })),
  }));
}

/** The status each of the seed's failures is sent with, for the chart's labels. */
const STATUS: Partial<Record<Row['failure'], string>> = { rate_limited: '429', maintenance: '503' };

const ok = (c: CellResult): boolean => c.outcome === 'ok';
const brief = (c: CellResult): string => `${c.outcome} ${c.calls}c`;

/**
 * Where a comparison misses the goal: with the plug-in, ok in at most 2 calls wherever a delay is
 * given anywhere; the same ending in no more calls than this package's client; and never more
 * calls than the client alone. One line per miss.
 */
export function goalMisses(comparison: Comparison): string[] {
  const misses: string[] = [];
  for (const c of comparison.cells) {
    const why: string[] = [];
    if (c.delayGiven && !(ok(c.plugged) && c.plugged.calls <= 2)) why.push('a delay is given, yet it is not ok in 2 calls');
    if (ok(c.plugged) !== ok(c.ours) || c.plugged.calls > c.ours.calls) why.push(`this package's client: ${brief(c.ours)}`);
    if (c.plugged.calls > c.alone.calls) why.push(`more calls than alone (${brief(c.alone)})`);
    if (why.length) misses.push(`${comparison.plugged}, ${c.label}: ${brief(c.plugged)}; ${why.join('; ')}`);
  }
  return misses;
}

/** Why a column misses the goal where it does, as found when it was run; printed only under a column's misses. */
export const MISS_REASONS: Readonly<Record<string, string>> = {
  'undici + agentUndici':
    "a defect of src/agent/undici.ts, not of the rules: undici's request() dispatches a GET with `body: undefined` (fetch sends null), and replayable() reads an undefined body as one that cannot be sent again, so judge() hands every error over after one call. Passing `body: null` to request(), or treating undefined as no body in replayable(), makes it wait and end ok in 2 calls (checked on a loopback 429 with Retry-After: 1); Node's fetch through the same dispatcher already does",
  'octokit + agentFetch':
    '@octokit/rest alone never retries (retries and rate-limit waits are in @octokit/plugin-retry and @octokit/plugin-throttling, which it does not include), so it fails after one call; the one call more is the one that ends ok after the wait the site named. No plug-in can both wait and stay at one call',
};

/** Cells that ended ok and calls summed, of `cells`. */
function tally(cells: readonly CellResult[]): string {
  const calls = cells.reduce((sum, c) => sum + c.calls, 0);
  return `${cells.filter(ok).length} ok, ${calls} ${calls === 1 ? 'call' : 'calls'}`;
}

/**
 * The README's headline: per client, over its cells, how many ended ok and the calls summed, alone
 * and with the plug-in, and whether the goal holds; then this package's client, alone and with
 * unknownDelay 'backoff', on the seed's cells.
 */
export function headlineTable(comparisons: readonly Comparison[], rows: readonly Row[], peers: readonly Peer[], extra: readonly string[]): string {
  const line = (cells: readonly (string | number)[]): string => `| ${cells.join(' | ')} |`;
  const column = (name: string): CellResult[] => rows.map((r) => r.cells[peers.findIndex((p) => p.name === name)]!);
  return [
    line(['client', 'plug-in', 'cells', 'alone', 'with the plug-in', 'goal']),
    line(['---', '---', '---:', '---', '---', '---']),
    ...comparisons.map((c) => {
      const misses = goalMisses(c).length;
      const plugin = c.plugged.slice(c.plugged.indexOf('+') + 1).trim();
      return line([c.client, `\`${plugin}\``, c.cells.length, tally(c.cells.map((x) => x.alone)), tally(c.cells.map((x) => x.plugged)), misses ? `${misses} missed` : 'met']);
    }),
    ...[OURS, ...extra].map((name) => line([name === OURS ? "this package's client" : name.replace(OURS, "this package's client"), '', rows.length, tally(column(name)), '', ''])),
  ].join('\n');
}

/** The SDK grid as a Markdown table: a row per vendor answer, cells alone, with the plug-in, and this package's client. */
export function sdkTable(comparisons: readonly Comparison[]): string {
  const cell = (c: CellResult): string => `${c.outcome.replaceAll('|', '\\|')} ${c.calls}c ${c.seconds}s`;
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [
    line(['SDK', 'the vendor answers', 'alone', 'with agentFetch', "this package's client"]),
    line(['---', '---', '---', '---', '---']),
    ...comparisons.flatMap((c) => c.cells.map((x) => line([c.client, x.label, cell(x.alone), cell(x.plugged), cell(x.ours)]))),
  ].join('\n');
}

/** What a cell means, then what each client was run with, as read from its source. */
export function notes(peers: readonly Peer[]): string[] {
  return [
    `Each cell: how the call ended (\`ok\`, the error the client surfaced, or \`timeout\` at ${CAP_SECONDS} s), the calls the service saw (c) and wall seconds (s). The failures clear ${CLEARS_AFTER_SECONDS} s after a cell's first call (GitHub's \`x-ratelimit-reset\` cell at the reset epoch second it names, the last whole second within those ${CLEARS_AFTER_SECONDS} s); every cell has its own port and runs at the same time as the others.`,
    '',
    'The goal: with the plug-in, a client is ok in at most 2 calls wherever a delay is given anywhere (a header or the body, as `fromResponse` reads the answer), ends as this package\'s client does in no more calls, and never makes more calls than it makes alone. An SDK alone keeps its own retry defaults; with the plug-in its own retries are set to 0 (`maxRetries: 0`), so no rule runs twice.',
    '',
    'Each client as it was run:',
    '',
    ...peers.map((p) => `- **${p.name}** (${p.pkg} ${versionOf(p.pkg)}): ${p.defaults}. Read in \`${p.source}\`.`),
  ];
}

/** The run's date and platform, one line. */
export const runLine = (date: Date): string => `Run ${date.toISOString().slice(0, 10)} on Node ${process.version} (${process.platform} ${process.arch}), \`npx tsx bench/peers.ts\`.`;

/** Calls per cell, a panel per client: alone, with the plug-in, and this package's client on the same answers. */
export function chartOf(comparisons: readonly Comparison[]): BarChart {
  const bar = (c: CellResult) => ({ value: c.calls, ok: ok(c), note: `${c.outcome}, ${c.seconds} s` });
  return {
    title: `Calls until the failure clears (${CLEARS_AFTER_SECONDS} s) or the client stops`,
    xLabel: 'what the service answers',
    yLabel: 'calls the service saw',
    series: ['alone', "with this package's plug-in", "this package's client"],
    panels: comparisons.map((c) => ({
      title: `${c.client} / ${c.plugged}`,
      groups: c.cells.map((x) => ({ label: x.short, bars: [bar(x.alone), bar(x.plugged), bar(x.ours)] })),
    })),
  };
}
