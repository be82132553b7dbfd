// One lint of one spec in a fresh process, for bench/lint.ts: `ours` is this package's lintOpenApi,
// `redocly` is @redocly/openapi-core's lint with its recommended rules (what `redocly lint` runs).
// Prints {ms, maxRssKb, findings}: the time from before the linter's module is imported to its
// findings, and the process's peak resident memory.
import { performance } from 'node:perf_hooks';

const [tool, spec] = process.argv.slice(2) as [string, string];
const t0 = performance.now();
let findings: number;
if (tool === 'ours') {
  const { lintOpenApi } = await import('../src/tools/lint-openapi.js');
  findings = (await lintOpenApi(spec)).length;
} else if (tool === 'redocly') {
  const { createConfig, lint } = await import('@redocly/openapi-core');
  const config = await createConfig({ extends: ['recommended'] });
  findings = (await lint({ ref: spec, config })).length;
} else throw new Error(`no such tool: ${tool}`);
const ms = performance.now() - t0;
console.log(JSON.stringify({ ms, maxRssKb: process.resourceUsage().maxRSS, findings }));
