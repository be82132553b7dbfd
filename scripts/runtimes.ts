// Runs the smoke of /agent and /site/fetch on workerd, Deno, Bun and Node (test/runtimes/run.ts, the
// code test/runtimes/runtimes.test.ts runs), writes the table to bench/results/runtimes.md and prints
// it; exits 1 when any check failed, after printing which.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT } from '../codegen/paths.js';
import { problems, runAll, table } from '../test/runtimes/run.js';

const started = Date.now();
const reports = await runAll();
const markdown = table(reports);
await writeFile(join(ROOT, 'bench/results/runtimes.md'), `${markdown}\n`);
console.log(markdown);
const failed = reports.flatMap(problems);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`\n${failed.length === 0 ? 'every check passed' : `${failed.length} failed:\n${failed.join('\n')}`} (${seconds} s)`);
process.exitCode = failed.length === 0 ? 0 : 1;
