#!/usr/bin/env node
// agent-errors: the command line of @agent-index/errors. Exit codes: 0 clean, 1 findings, 2 usage.
import { realpathSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { styleText } from 'node:util';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { CODES, RETRY_WORDS } from '../../generated/catalog.js';
import { explainResponse, MAX_BODY_BYTES } from '../core/from-response.js';

type Write = (text: string) => void;

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

/**
 * At most the first MAX_BODY_BYTES of a file, or of standard input for "-": all that explainResponse
 * reads of a body. A longer body (a 1 GB file, /dev/zero, an endless pipe) is cut there and never
 * held whole: the read stops at the cap.
 */
export async function readBody(path: string, stdin: AsyncIterable<Uint8Array> = process.stdin): Promise<Uint8Array> {
  const buffer = Buffer.alloc(MAX_BODY_BYTES);
  let size = 0;
  if (path === '-') {
    // Leaving the loop early ends the iteration, which destroys the stream: nothing more is read.
    for await (const chunk of stdin) {
      const take = Math.min(chunk.byteLength, MAX_BODY_BYTES - size);
      buffer.set(chunk.subarray(0, take), size);
      size += take;
      if (size >= MAX_BODY_BYTES) break;
    }
    return buffer.subarray(0, size);
  }
  const handle = await open(path, 'r');
  try {
    // Position null reads on from where the last read stopped, so a pipe or a device works as a file does.
    while (size < MAX_BODY_BYTES) {
      const { bytesRead } = await handle.read(buffer, size, MAX_BODY_BYTES - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
    }
  } finally {
    await handle.close();
  }
  return buffer.subarray(0, size);
}

/** Collects a repeatable option's values into a list. */
const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** A --ref-root: a folder, or an http or https URL prefix. */
function refRootOption(value: string, previous: string[]): string[] {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(value) && !/^https?:\/\//i.test(value)) {
    throw new InvalidArgumentError(`a ref root is a folder or an http or https URL prefix (got "${value}")`);
  }
  if (/^https?:\/\//i.test(value) && !URL.canParse(value)) throw new InvalidArgumentError(`"${value}" is not a URL`);
  return collect(value, previous);
}

/** A "Name: value" header option, collected into a list. */
function headerOption(value: string, previous: [string, string][]): [string, string][] {
  const colon = value.indexOf(':');
  if (colon <= 0) throw new InvalidArgumentError(`a header is "Name: value" (got "${value}")`);
  return [...previous, [value.slice(0, colon).trim(), value.slice(colon + 1).trim()]];
}

function statusOption(value: string): number {
  if (!/^\d{1,3}$/.test(value)) throw new InvalidArgumentError(`a status is a number such as 429 (got "${value}")`);
  return Number(value);
}

/** The options of `agent-errors lint`, as commander parses them. */
interface LintOptions {
  json?: boolean;
  sarif?: boolean;
  siteCodes?: string[];
  allowRemoteRefs?: boolean;
  allowRefsOutside?: boolean;
  refRoot: string[];
}

/** Builds the program; `out` and `err` receive all output, and `code` the exit code a command chose. */
function program(out: Write, err: Write, exit: { code: number }): Command {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR && out === stdout;
  const bold = (text: string): string => (color ? styleText('bold', text) : text);
  const cli = new Command('agent-errors')
    .description('HTTP errors an autonomous agent can act on: the catalog, the experiment, and the checks a team runs in CI.')
    .addHelpText('after', '\nExit codes: 0 clean, 1 findings (lint, diff, codegen --check), 2 usage.')
    .configureOutput({ writeOut: out, writeErr: err })
    .exitOverride()
    .showHelpAfterError();

  cli
    .command('codes')
    .description('print the catalog: every code with its status, retry word, next step and advice')
    .option('--json', 'print the catalog as JSON')
    .action((options: { json?: boolean }) => out(options.json ? `${JSON.stringify(CODES, null, 2)}\n` : `${codeTableText()}\n`));

  cli
    .command('demo')
    .description("seed 002's experiment on a virtual clock: four failures in five dialects against three retry policies and the agent client")
    .option('--json', 'print the cells as data')
    .action(async (options: { json?: boolean }) => {
      const { demoTables, formatTables } = await import('./demo.js');
      const tables = await demoTables();
      out(options.json ? `${JSON.stringify(tables, null, 2)}\n` : `${formatTables(tables)}\n`);
    });

  cli
    .command('start')
    .description('the experiment over real HTTP: an example shop wrapped in AgentFriendly, the agent client against it, and a transcript')
    .option('--scale <factor>', 'how long a second takes, in seconds', (v) => {
      const n = Number(v);
      if (!(n > 0 && n <= 1)) throw new InvalidArgumentError(`--scale must be a number above 0 and at most 1 (got "${v}")`);
      return n;
    }, 0.01)
    .action(async (options: { scale: number }) => {
      const { runExample } = await import('./example-shop.js');
      out((await runExample({ scale: options.scale })).text);
    });

  cli
    .command('classify')
    .description('read any HTTP response as the envelope, and say why')
    .requiredOption('-s, --status <status>', 'the response status', statusOption)
    .option('-H, --header <header>', 'a response header, "Name: value" (repeatable)', headerOption, [])
    .option('-b, --body <file>', `the response body; "-" reads standard input (at most the first ${MAX_BODY_BYTES / 1024} KiB are read)`)
    .option('--json', 'print the envelope and the reasons as JSON')
    .action(async (options: { status: number; header: [string, string][]; body?: string; json?: boolean }) => {
      const body = options.body === undefined ? null : await readBody(options.body);
      const { envelope, because } = explainResponse(options.status, options.header, body);
      if (options.json) return out(`${JSON.stringify({ ...envelope, because }, null, 2)}\n`);
      out(`${JSON.stringify(envelope, null, 2)}\n\n${bold('why')}:\n${because.map((b) => `  - ${b}`).join('\n')}\n`);
    });

  cli
    .command('lint')
    .description('check an OpenAPI 3.0 or 3.1 document (YAML or JSON) declares errors an agent can act on')
    .argument('<spec>', 'the OpenAPI document; $refs resolve relative to it')
    .option('--json', 'print the findings as JSON')
    .option('--sarif', 'print SARIF 2.1.0, for code-scanning UIs')
    .option('--site-codes <codes>', "the site's own codes, comma-separated", (v) => v.split(',').map((c) => c.trim()).filter(Boolean))
    // A spec may come from an untrusted pull request: by default its $refs load nothing outside its folder.
    .option('--allow-remote-refs', 'fetch http and https $refs on public hosts (by default each is a ref-not-allowed finding)')
    .option('--allow-refs-outside', "read $refs to local files anywhere (by default only the spec's folder tree and this package's generated/)")
    .option('--ref-root <folder-or-url>', 'also allow $refs under this folder or http(s) URL prefix (repeatable)', refRootOption, [])
    .action(async (spec: string, options: LintOptions) => {
      const { lintOpenApi, formatFindings, LintInputError } = await import('./lint-openapi.js');
      const urls = options.refRoot.filter((r) => /^https?:\/\//i.test(r));
      const folders = options.refRoot.filter((r) => !urls.includes(r));
      let findings;
      try {
        findings = await lintOpenApi(resolve(spec), {
          siteCodes: options.siteCodes ?? [],
          allowRemoteRefs: options.allowRemoteRefs === true || urls,
          allowRefsOutside: options.allowRefsOutside === true || folders,
        });
      } catch (error) {
        if (!(error instanceof LintInputError)) throw error;
        err(`agent-errors lint: ${error.message}\n`);
        exit.code = 2;
        return;
      }
      if (options.sarif) {
        const { toSarif } = await import('./sarif.js');
        out(`${JSON.stringify(toSarif(findings, { uri: spec, source: await readFile(spec, 'utf8') }), null, 2)}\n`);
      } else out(options.json ? `${JSON.stringify(findings, null, 2)}\n` : `${formatFindings(findings, { color })}\n`);
      exit.code = findings.length > 0 ? 1 : 0;
    });

  cli
    .command('diff')
    .description('the breaking-change review of an error contract: two catalogs, or two OpenAPI documents')
    .argument('<before>', 'the catalog or OpenAPI document before (JSON or YAML)')
    .argument('<after>', 'the same after')
    .option('--closed-enums', "count an added code as breaking, for consumers whose code enum is closed")
    .option('--json', 'print the changes as JSON')
    .action(async (before: string, after: string, options: { closedEnums?: boolean; json?: boolean }) => {
      const { parse } = await import('yaml');
      const { diffCatalog, formatDiff } = await import('./diff.js');
      const [beforeDoc, afterDoc] = await Promise.all([before, after].map(async (file) => parse(await readFile(file, 'utf8')) as unknown));
      let result;
      try {
        result = diffCatalog(beforeDoc, afterDoc, { closedEnums: options.closedEnums === true });
      } catch (error) {
        if (!(error instanceof TypeError)) throw error;
        err(`agent-errors diff: ${error.message}\n`);
        exit.code = 2;
        return;
      }
      out(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatDiff(result)}\n`);
      exit.code = result.breaking.length > 0 ? 1 : 0;
    });

  cli
    .command('codegen')
    .description("write the package's artifacts (types, validators, OpenAPI components, docs) for the catalog plus a site's own codes")
    .requiredOption('--extend <file>', "the site's extension catalog (JSON)")
    .requiredOption('--out <dir>', 'where to write the artifacts')
    .action(async (options: { extend: string; out: string }) => {
      // The one command that runs codegen: the CLI is a tool, and the build step is what it offers here.
      let codegen;
      try {
        codegen = await import('../../codegen/extend.js');
      } catch (error) {
        err(`agent-errors codegen needs ajv, json-schema-to-typescript and jsonc-parser: npm install -D ajv json-schema-to-typescript jsonc-parser (${(error as Error).message})\n`);
        exit.code = 2;
        return;
      }
      const { CatalogError } = await import('../../codegen/catalog-model.js');
      const { writeGenerated } = await import('../../codegen/write.js');
      try {
        const files = await codegen.renderExtended(resolve(options.extend));
        await writeGenerated(files, resolve(options.out));
        out(`wrote ${files.size} files to ${options.out}\n`);
      } catch (error) {
        if (!(error instanceof CatalogError)) throw error;
        err(`${error.message}\n`);
        exit.code = 1;
      }
    });
  return cli;
}

const stdout: Write = (t) => void process.stdout.write(t);
const stderr: Write = (t) => void process.stderr.write(t);

/** Runs the CLI with `argv` (without node and the script); resolves to the exit code. */
export async function run(argv: string[], out: Write = stdout, err: Write = stderr): Promise<number> {
  const exit = { code: 0 };
  if (argv.length === 0) {
    // No command is a usage error: show what there is.
    err(program(out, err, exit).helpInformation());
    return 2;
  }
  try {
    await program(out, err, exit).parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.code === 'commander.helpDisplayed' || error.code === 'commander.help' || error.code === 'commander.version' ? 0 : 2;
    }
    err(`agent-errors: ${(error as Error).message}\n`);
    return 2;
  }
}

// Run only when executed, not when imported by a test.
const invokedAs = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invokedAs === fileURLToPath(import.meta.url)) {
  // `agent-errors codes | head` closes the pipe early: that ends the output, not in a crash.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await run(process.argv.slice(2));
}
