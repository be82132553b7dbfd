// /agent and the Fetch adapter beyond Node (issue 18): the smoke (smoke.ts) bundled with esbuild for
// workerd, Deno and Bun, and Node for reference, each run at once against one loopback server
// (run.ts, which scripts/runtimes.ts shares); every check must pass on every runtime. A runtime
// whose binary does not start fails with what it printed, never skips. And the public entries the
// smoke loads must import no node: module under any runtime's export conditions.
import { beforeAll, describe, expect, it } from 'vitest';
import type { SmokeReport } from './smoke.js';
import { bundle, checksOf, CONDITIONS, GUARDED_PROBES, nodeImports, problems, PUBLIC_ENTRIES, RUNTIMES, runAll, type NodeImport, type Runtime } from './run.js';

/** One line a node: import, as a failure names it. */
const chainOf = (i: NodeImport): string => `${i.chain.join(' -> ')} (${i.kind}${i.guarded ? ', guarded probe' : ''})`;

describe('the smoke on workerd, Deno, Bun and Node', () => {
  let reports: SmokeReport[] = [];

  beforeAll(async () => {
    reports = await runAll();
  }, 25_000);

  it.each(RUNTIMES)('%s passes every check', (runtime: Runtime) => {
    const report = reports.find((r) => r.runtime === runtime);
    expect(report, `${runtime} gave no report`).toBeDefined();
    // The failures come first, whole, so a runtime that did not start shows its own error.
    expect(problems(report!)).toEqual([]);
    expect(report!.checks.map((c) => c.name)).toEqual(checksOf(runtime));
    expect(report!.version).toMatch(/^\d/);
  });
});

describe('the public entries the smoke loads', () => {
  it.each(PUBLIC_ENTRIES.flatMap((entry) => RUNTIMES.map((runtime) => [entry, runtime] as const)))(
    '%s imports no node: module under the conditions of %s',
    async (entry, runtime) => {
      const { metafile } = await bundle(entry, runtime);
      const found = nodeImports(metafile, entry);
      expect(found.filter((i) => !i.guarded).map(chainOf), `conditions ${JSON.stringify(CONDITIONS[runtime])}`).toEqual([]);
    },
  );

  it('every guarded probe it tolerates is still in the graph', async () => {
    // An exception that nothing needs any more goes: then the check is strict again.
    const found = (await Promise.all(PUBLIC_ENTRIES.map(async (entry) => nodeImports((await bundle(entry, 'node')).metafile, entry)))).flat();
    for (const probe of GUARDED_PROBES) {
      const still = found.some((i) => i.guarded && i.chain.at(-2) === probe.importer && i.specifier === probe.specifier);
      expect(still, `${probe.importer} -> ${probe.specifier} is gone: remove it from GUARDED_PROBES`).toBe(true);
    }
  });

  it('the check names the whole chain to a node: module, whatever its depth', async () => {
    const entry = 'test/runtimes/fixtures/uses-node.ts';
    const found = nodeImports((await bundle(entry, 'workerd')).metafile, entry);
    expect(found.map(chainOf)).toEqual(['test/runtimes/fixtures/uses-node.ts -> test/runtimes/fixtures/uses-node-inner.ts -> node:fs (import-statement)']);
  });
});
