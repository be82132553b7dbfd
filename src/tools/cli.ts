#!/usr/bin/env node
// agent-errors: the command line of @agent-index/errors.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CODES, RETRY_WORDS } from '../../generated/catalog.js';
import { demoTables, formatTables } from './demo.js';
import { runExample } from './example-shop.js';

const HELP = `Usage: agent-errors <command> [options]

Commands:
  codes              Print the catalog: every code with its status, retry word, next step and advice.
  demo               Seed 002's experiment on a virtual clock: four failures in five dialects against
                     three retry policies and this package's agent client; calls made, seconds slept.
  start              The same over real HTTP: an example shop wrapped in AgentFriendly on a loopback
                     port, the agent client against it, and a transcript of what it did and why.

Options:
  --json             codes, demo: print data instead of tables.
  --scale <factor>   start: how long a second takes, in seconds (default 0.01).
  -h, --help         Show this help.
`;

/** The code table as aligned text columns. */
export function codeTableText(): string {
  const rows = Object.entries(CODES).map(([code, e]) => [
    code,
    String(e.status),
    e.retry,
    RETRY_WORDS[e.retry].next_step,
    `${e.advice}${'draft' in e && e.draft ? ` [${e.family}, draft]` : ''}`,
  ]);
  const all = [['code', 'status', 'retry', 'next_step', 'agent should'], ...rows];
  const widths = all[0]!.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

/** Runs the CLI with `argv` (without node and the script); returns the exit code. */
export async function run(
  argv: string[],
  out: (text: string) => void = (t) => void process.stdout.write(t),
  err: (text: string) => void = (t) => void process.stderr.write(t),
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' }, scale: { type: 'string' } },
    });
  } catch (error) {
    err(`agent-errors: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  const [command, ...rest] = parsed.positionals;
  if (parsed.values.help || command === undefined || command === 'help') {
    out(HELP);
    return command === undefined && !parsed.values.help ? 2 : 0;
  }
  if (command === 'codes' && rest.length === 0) {
    out(parsed.values.json ? `${JSON.stringify(CODES, null, 2)}\n` : `${codeTableText()}\n`);
    return 0;
  }
  if (command === 'demo' && rest.length === 0) {
    const tables = await demoTables();
    out(parsed.values.json ? `${JSON.stringify(tables, null, 2)}\n` : `${formatTables(tables)}\n`);
    return 0;
  }
  if (command === 'start' && rest.length === 0) {
    const scale = parsed.values.scale === undefined ? 0.01 : Number(parsed.values.scale);
    if (!(scale > 0 && scale <= 1)) {
      err(`agent-errors: --scale must be a number above 0 and at most 1 (got ${parsed.values.scale})\n`);
      return 2;
    }
    out((await runExample({ scale })).text);
    return 0;
  }
  err(`agent-errors: unknown command "${[command, ...rest].join(' ')}"\n\n${HELP}`);
  return 2;
}

// Run only when executed, not when imported by a test.
const invokedAs = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invokedAs === fileURLToPath(import.meta.url)) {
  process.exitCode = await run(process.argv.slice(2));
}
