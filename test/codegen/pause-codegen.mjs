// Loaded with --import into an `agent-errors codegen` child process that a test then kills with
// SIGKILL: it stops the process at the point CODEGEN_PAUSE_AT names, says "codegen paused" on
// standard error, and waits to be killed. Nothing in codegen knows of it: it wraps node:fs/promises.
//   write:N  before the Nth file is written into the temporary folder
//   swap     after the old folder has stepped aside, before the new one takes its place
import fs from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';

const [point, count] = (process.env.CODEGEN_PAUSE_AT ?? '').split(':');
const TEMPORARY = /\.codegen-\d+-[0-9a-f]{8}\.(next|old)$/;

/** Says so, then waits far longer than any test: the test kills the process first. */
async function pause() {
  process.stderr.write('codegen paused\n');
  await new Promise((resolve) => setTimeout(resolve, 600_000));
}

if (point === 'write') {
  const writeFile = fs.writeFile;
  let written = 0;
  fs.writeFile = async function (path, ...rest) {
    if (/\.codegen-\d+-[0-9a-f]{8}\.next[\\/]/.test(String(path)) && ++written === Number(count)) await pause();
    return writeFile.call(this, path, ...rest);
  };
} else if (point === 'swap') {
  const rename = fs.rename;
  fs.rename = async function (from, to) {
    await rename.call(this, from, to);
    if (TEMPORARY.exec(String(to))?.[1] === 'old') await pause();
  };
} else {
  throw new Error(`pause-codegen.mjs: CODEGEN_PAUSE_AT is write:<n> or swap (got ${JSON.stringify(process.env.CODEGEN_PAUSE_AT)})`);
}
syncBuiltinESMExports();
