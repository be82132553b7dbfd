// One cell: a client against one endpoint of the scripted service, capped, timed on the wall clock;
// and the whole grid, every cell at once.
import { performance } from 'node:perf_hooks';
import { DIALECTS, type Dialect } from '../../src/core/dialects.js';
import type { FailureName } from '../../src/tools/demo.js';
import { surfaced, type Peer } from './clients.js';
import { SDKS, SDK_PATHS } from './sdks.js';
import type { Endpoint, LoopbackService, ScriptedService } from './server.js';
import { VENDOR_CELLS, type VendorCell } from './vendors.js';

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

/** One row of cells, each `peer` on an endpoint of its own for `key`, all at once; every endpoint is opened before any clock runs. */
async function runRows<K>(service: LoopbackService<K>, rows: readonly { key: K; peers: readonly Peer[]; path?: (peer: Peer, j: number) => string }[]): Promise<CellResult[][]> {
  const endpoints: Endpoint[][] = await Promise.all(rows.map(({ key, peers }) => Promise.all(peers.map(() => service.open(key)))));
  return Promise.all(
    rows.map(({ peers, path }, i) =>
      Promise.all(peers.map((peer, j) => runCell(peer, `${endpoints[i]![j]!.url}${path?.(peer, j) ?? ''}`, endpoints[i]![j]!.calls))),
    ),
  );
}

/** Every failure in every dialect through every client, all cells concurrently. */
export async function runGrid(service: ScriptedService, peers: readonly Peer[], failures: readonly FailureName[]): Promise<Row[]> {
  const pairs = failures.flatMap((failure) => DIALECTS.map((dialect) => ({ failure, dialect })));
  const cells = await runRows(service, pairs.map((key) => ({ key, peers })));
  return pairs.map(({ failure, dialect }, i) => ({ failure, dialect, cells: cells[i]! }));
}

/** A row of the SDK grid: one vendor answer, its SDK alone, with the plug-in, and this package's client. */
export interface SdkRow {
  readonly cell: VendorCell;
  /** alone, with the plug-in, this package's client. */
  readonly cells: readonly CellResult[];
}

/** Every vendor cell through its SDK alone, with agentFetch, and this package's client, all at once. */
export async function runSdkGrid(service: LoopbackService<VendorCell>, cells: readonly VendorCell[] = VENDOR_CELLS): Promise<SdkRow[]> {
  const results = await runRows(
    service,
    cells.map((cell) => {
      const { alone, plugged, ours } = SDKS[cell.vendor];
      // The SDKs add their own paths to the base URL; this package's client calls the path the SDK calls.
      return { key: cell, peers: [alone, plugged, ours], path: (_peer: Peer, j: number) => (j === 2 ? SDK_PATHS[cell.vendor] : '') };
    }),
  );
  return cells.map((cell, i) => ({ cell, cells: results[i]! }));
}
