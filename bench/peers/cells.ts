// One cell: a client against one endpoint of the scripted service, capped, timed on the wall clock;
// and the whole grid, every cell at once.
import { performance } from 'node:perf_hooks';
import { DIALECTS, type Dialect } from '../../src/core/dialects.js';
import type { FailureName } from '../../src/tools/demo.js';
import { surfaced, type Peer } from './clients.js';
import type { ScriptedService } from './server.js';

/** How a cell ended: `ok`, what the client surfaced, or `timeout`; calls the service saw; wall seconds. */
export interface CellResult {
  readonly outcome: string;
  readonly calls: number;
  readonly seconds: number;
}

/** A row of the grid: one failure in one dialect, a cell per client. */
export interface Row {
  readonly failure: FailureName;
  readonly dialect: Dialect;
  readonly cells: readonly CellResult[];
}

/** The cap on one cell, so a client that would wait for ever still ends. */
export const CAP_SECONDS = 60;

/** Runs `peer` once against `url`; past `capSeconds` the call is aborted and the cell reads `timeout`. */
export async function runCell(peer: Peer, url: string, calls: () => number, capSeconds = CAP_SECONDS): Promise<CellResult> {
  const controller = new AbortController();
  const start = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const capped = new Promise<string>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('cap'));
      resolve('timeout');
    }, capSeconds * 1000);
  });
  const outcome = await Promise.race([peer.run(url, controller.signal).catch(surfaced), capped]);
  clearTimeout(timer);
  return { outcome, calls: calls(), seconds: Math.round((performance.now() - start) / 1000) };
}

/** Every failure in every dialect through every client, all cells concurrently. */
export async function runGrid(service: ScriptedService, peers: readonly Peer[], failures: readonly FailureName[]): Promise<Row[]> {
  const pairs = failures.flatMap((failure) => DIALECTS.map((dialect) => ({ failure, dialect })));
  // Open every endpoint first, so no cell's clock runs while another port is still being bound.
  const endpoints = await Promise.all(pairs.map(({ failure, dialect }) => Promise.all(peers.map(() => service.open(failure, dialect)))));
  return Promise.all(
    pairs.map(async ({ failure, dialect }, i) => ({
      failure,
      dialect,
      cells: await Promise.all(peers.map((peer, j) => runCell(peer, endpoints[i]![j]!.url, endpoints[i]![j]!.calls))),
    })),
  );
}
