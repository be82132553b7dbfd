// A vitest setup file (vitest.config.ts and vitest.slow.config.ts): a warning Node emits while the
// tests run fails the test it came during, or the file when it came outside a test (at import, in a
// beforeAll or afterAll hook), so that the suite prints none and a new one is a red test rather than a
// line nobody reads among the usual ones. That takes in the Node child processes the tests start:
// NODE_OPTIONS, inherited by each, preloads a listener that writes their warnings to a folder this
// worker reads after each test.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeEach } from 'vitest';

/** The environment variable that tells a child process where to write its warnings. */
export const WARNINGS_DIR_ENV = 'AGENT_ERRORS_TEST_WARNINGS_DIR';

/** The preload of each Node child process: one line per warning, named by the process and its command. */
const PRELOAD = `import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
const dir = process.env.${WARNINGS_DIR_ENV};
// A test's child that runs vitest again gets a preload of its own too: one listener is enough.
const once = Symbol.for('@agent-index/errors/test/setup/warnings preload');
if (dir && !globalThis[once]) {
  globalThis[once] = true;
  process.on('warning', (warning) => {
    const text = (warning.code ? warning.name + ' [' + warning.code + ']' : warning.name) + ': ' + warning.message;
    // The folder is gone once the test file that made it ends; a child that outlived it has no one to tell.
    try {
      appendFileSync(join(dir, 'child-' + process.pid + '.log'), JSON.stringify({ command: process.argv.slice(1).join(' '), text }) + '\\n');
    } catch {}
  });
}
`;

interface Heard {
  /** Warnings of this process, as text with their stack. */
  readonly own: string[];
  /** The folder Node child processes write their warnings to, for the test file running. */
  readonly dir: string;
}

// One listener and one folder per worker process: vitest runs this file again for each test file a
// worker runs, with a fresh module but the same process.
const KEY = Symbol.for('@agent-index/errors/test/setup/warnings');

function describeWarning(warning: Error & { code?: string }): string {
  const name = warning.code ? `${warning.name} [${warning.code}]` : warning.name;
  // Node's own frames (node:internal, node:events) say nothing of where the warning came from.
  const frames = (warning.stack ?? '')
    .split('\n')
    .filter((line) => line.trimStart().startsWith('at ') && !/\(?node:/.test(line))
    .slice(0, 6);
  return [`${name}: ${warning.message}`, ...frames.map((f) => `    ${f.trim()}`)].join('\n');
}

/**
 * The preload, as one file in the temporary folder named by its content and never removed: a child
 * that outlives its worker, or starts a process of its own late, must still find it, or Node would
 * refuse to start that process.
 */
function preloadFile(): string {
  const path = join(tmpdir(), `agent-errors-test-warnings-${createHash('sha256').update(PRELOAD).digest('hex').slice(0, 16)}.mjs`);
  if (!existsSync(path)) {
    // Written whole under another name, then renamed: workers starting at once may race here.
    const partial = `${path}.${process.pid}`;
    writeFileSync(partial, PRELOAD);
    renameSync(partial, path);
  }
  return path;
}

function start(): Heard {
  const own: string[] = [];
  process.on('warning', (warning) => void own.push(describeWarning(warning)));
  const dir = join(tmpdir(), `agent-errors-test-warnings-${process.pid}-${Date.now().toString(36)}`);
  process.env[WARNINGS_DIR_ENV] = dir;
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--import=${pathToFileURL(preloadFile()).href}`].filter(Boolean).join(' ');
  return { own, dir };
}

const heard: Heard = ((globalThis as Record<symbol, Heard | undefined>)[KEY] ??= start());
// The folder lasts a test file: its afterAll below removes it, since vitest ends a worker without
// an exit event to clean up on.
mkdirSync(heard.dir, { recursive: true });

/** The warnings Node child processes wrote since the last call, each with its command. */
function childWarnings(): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(heard.dir).filter((name) => /^child-\d+\.log$/.test(name));
  } catch {
    return found;
  }
  for (const name of names) {
    const path = join(heard.dir, name);
    const text = readFileSync(path, 'utf8');
    rmSync(path, { force: true });
    for (const line of text.split('\n')) {
      if (line === '') continue;
      try {
        const { command, text: warning } = JSON.parse(line) as { command: string; text: string };
        found.push(`${warning}\n    in the child process ${name.slice('child-'.length, -'.log'.length)}: node ${command}`);
      } catch {
        // A line the child was still writing as it was read: shown as it is, the rest comes next time.
        found.push(line);
      }
    }
  }
  return found;
}

/** Every warning heard so far and not yet taken, of this process and of its children. */
async function take(): Promise<string[]> {
  // Node emits a warning on the next tick after the call that caused it: a test that ends at once
  // would otherwise hand its warning on to the next. From node:timers, which vi.useFakeTimers()
  // leaves alone, so that a test still on fake timers does not hold this hook up.
  await nextTurn();
  return [...heard.own.splice(0), ...childWarnings()];
}

function check(when: string, warnings: readonly string[]): void {
  if (warnings.length === 0) return;
  throw new Error(`Node warned ${when} (test/setup/warnings.ts fails a test on any warning, so that a new one is seen; fix its cause):\n\n${warnings.join('\n\n')}`);
}

// Warnings heard before a test starts came at import or in a beforeAll hook: they fail the file, not
// the test that happens to be first.
const outside: string[] = [];
beforeEach(async () => void outside.push(...(await take())));
afterEach(async () => check('during this test', await take()));
afterAll(async () => {
  const warnings = [...outside.splice(0), ...(await take())];
  rmSync(heard.dir, { recursive: true, force: true });
  check('in this file, outside its tests (at import, or in a beforeAll or afterAll hook)', warnings);
});
