#!/usr/bin/env node
// agent-errors: the command line of @agent-index/errors. Every command exits by the one rule of EXIT.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { styleText } from 'node:util';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CODE_PATTERN, CODES, RETRY_WORDS, type CodeEntry } from '../../generated/catalog.js';
import type { NextStep, RetryWord } from '../../generated/types.js';
import { explainResponse, MAX_BODY_BYTES } from '../core/from-response.js';

type Write = (text: string) => void;

/** Standard input as a command reads it: its chunks, and whether it is a terminal (then nothing was piped). */
export type Input = AsyncIterable<Uint8Array> & { readonly isTTY?: boolean };

/**
 * The exit codes, the same for every command. A command reports findings with `findingsExit`, and input
 * it cannot use with a UsageError; `run` turns those, commander's usage errors and unreadable files into
 * these codes, so no command chooses a number of its own.
 */
export const EXIT = { clean: 0, findings: 1, usage: 2 } as const;

/** The rule as the program's help states it, and docs/tooling.md word for word. */
export const EXIT_CODES_HELP = [
  'Exit codes, the same for every command:',
  '  0  clean: the command did its work and found nothing wrong (lint warnings,',
  '     and findings in a lint baseline, pass)',
  '  1  findings: lint errors, a breaking change (diff), an --out folder that',
  '     codegen --check finds out of date',
  '  2  usage or input: an unknown command or option, a file that cannot be read,',
  '     an invalid spec, lint config, baseline or --extend file, JSON or YAML',
  '     that does not parse',
].join('\n');

/** The exit code of a command that found `count` things to report. */
const findingsExit = (count: number): number => (count > 0 ? EXIT.findings : EXIT.clean);

/** Input or setup a command cannot use (a document of the wrong kind, an invalid catalog, a missing peer): exit 2 with the message. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An error from the operating system, such as a file that does not exist or cannot be read or written. */
const isSystemError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';

/**
 * A system error as a sentence, "cannot open nope.json: no such file or directory", not Node's "ENOENT:
 * no such file or directory, open 'nope.json'"; `path` names the file when the error names none (a read
 * from an open file).
 */
function systemErrorText(error: NodeJS.ErrnoException, path = error.path): string {
  const reason = error.message.replace(/^[A-Z]+: /, '').replace(/, \w+(?: '.*')?$/s, '');
  return path === undefined ? `cannot ${error.syscall}: ${reason}` : `cannot ${error.syscall} ${path}: ${reason}`;
}

const PACKAGE_NAME = '@agent-index/errors';

/**
 * The version in this package's own package.json, read when the CLI runs: the nearest package.json above
 * `from` named @agent-index/errors, which is two folders up from src/tools/ in the source tree and three
 * from dist/src/tools/ in an installed package.
 */
export function packageVersion(from: string = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown };
      if (name === PACKAGE_NAME && typeof version === 'string') return version;
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}

/** The columns of `codes`, in order: each one's header in the table and its member in the JSON. */
const CODE_COLUMNS = [
  ['code', 'code'],
  ['status', 'status'],
  ['retry', 'retry'],
  ['next_step', 'next_step'],
  ['agent should', 'advice'],
] as const;

/** One code as `codes` shows it: its catalog entry and its retry word's next step. */
export interface CodeRow {
  readonly code: string;
  readonly status: number;
  readonly retry: RetryWord;
  readonly next_step: NextStep;
  readonly title: string;
  readonly advice: string;
  readonly family: CodeEntry['family'];
  readonly draft: boolean;
}

/** Every code of the catalog as a row of `codes`, in catalog order. */
export function codeRows(codes: Readonly<Record<string, CodeEntry>> = CODES): CodeRow[] {
  return Object.entries(codes).map(([code, e]): CodeRow => ({
    code,
    status: e.status,
    retry: e.retry,
    next_step: RETRY_WORDS[e.retry].next_step,
    title: e.title,
    advice: e.advice,
    family: e.family,
    draft: 'draft' in e && e.draft === true,
  }));
}

/** `codes --json`: every code keyed by its name, with every column of the table and the rest of the entry. */
export function codesJson(codes?: Readonly<Record<string, CodeEntry>>): Record<string, Omit<CodeRow, 'code'>> {
  return Object.fromEntries(codeRows(codes).map(({ code, ...row }) => [code, row]));
}

/** The code table as aligned text columns; a draft code's advice ends with its family. */
export function codeTableText(codes?: Readonly<Record<string, CodeEntry>>): string {
  const rows = codeRows(codes).map((row) =>
    CODE_COLUMNS.map(([, key]) => (key === 'advice' && (row.draft || row.family === 'site') ? `${row.advice} [${row.family}${row.draft ? ', draft' : ''}]` : String(row[key]))),
  );
  const all = [CODE_COLUMNS.map(([header]) => header), ...rows];
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
function refRootOption(value: string, previous: string[] = []): string[] {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(value) && !/^https?:\/\//i.test(value)) {
    throw new InvalidArgumentError(`a ref root is a folder or an http or https URL prefix (got "${value}")`);
  }
  if (/^https?:\/\//i.test(value) && !URL.canParse(value)) throw new InvalidArgumentError(`"${value}" is not a URL`);
  return collect(value, previous);
}

/** A "Name: value" header option, collected into a list. */
function headerOption(value: string, previous: [string, string][] = []): [string, string][] {
  const colon = value.indexOf(':');
  if (colon <= 0) throw new InvalidArgumentError(`a header is "Name: value" (got "${value}")`);
  return [...previous, [value.slice(0, colon).trim(), value.slice(colon + 1).trim()]];
}

/** A -s, --status: an HTTP status, 100 to 599; any other number is no response classify can read. */
function statusOption(value: string): number {
  if (!/^\d{3}$/.test(value) || Number(value) < 100 || Number(value) > 599) {
    throw new InvalidArgumentError(`-s, --status takes an HTTP status, a whole number from 100 to 599 such as 429 (got "${value}")`);
  }
  return Number(value);
}

/** A --scale: how long a second takes, a decimal number above 0 and at most 1. */
function scaleOption(value: string): number {
  const n = Number(value);
  // Number() alone would also take "0x1" and " 1 ", which are no decimal a user means.
  if (!/^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i.test(value) || !(n > 0 && n <= 1)) {
    throw new InvalidArgumentError(`--scale takes a decimal number above 0 and at most 1, such as 0.01 (got "${value}")`);
  }
  return n;
}

/** A --site-codes list: codes in the catalog's form (lowercase snake case), comma-separated. */
function siteCodesOption(value: string): string[] {
  const codes = value.split(',').map((c) => c.trim()).filter(Boolean);
  const wrong = codes.find((code) => !CODE_PATTERN.test(code));
  if (wrong !== undefined) throw new InvalidArgumentError(`--site-codes takes codes in lowercase snake case, comma-separated, such as coupon_expired,basket_locked (got "${wrong}" in "${value}")`);
  return codes;
}

/** codegen/extend.js, which needs the CLI's codegen peers; a usage error naming them when one is missing. */
async function codegenModule(): Promise<typeof import('../../codegen/extend.js')> {
  try {
    return await import('../../codegen/extend.js');
  } catch (error) {
    const install = 'npm install -D ajv json-schema-to-typescript jsonc-parser';
    throw new UsageError(`it needs ajv, json-schema-to-typescript and jsonc-parser: ${install} (${(error as Error).message})`);
  }
}

/** The catalog with a site's extension merged in (its codes in the family site), or a usage error naming each problem. */
async function readExtension(file: string): Promise<{ codes: Readonly<Record<string, CodeEntry>> }> {
  const { extendCatalog } = await codegenModule();
  const { CatalogError } = await import('../../codegen/catalog-model.js');
  try {
    return (await extendCatalog(await readFile(file, 'utf8'), file)) as unknown as { codes: Readonly<Record<string, CodeEntry>> };
  } catch (error) {
    throw error instanceof CatalogError ? new UsageError(error.message) : error;
  }
}

/** The output formats of `agent-errors lint`. */
const LINT_FORMATS_OUT = ['text', 'json', 'sarif', 'github', 'junit'] as const;

/** The options of `agent-errors lint`, as commander parses them. */
interface LintOptions {
  extend?: string;
  quiet?: boolean;
  format: (typeof LINT_FORMATS_OUT)[number];
  json?: boolean;
  sarif?: boolean;
  config?: string;
  baseline?: string;
  updateBaseline?: boolean;
  siteCodes?: string[];
  allowRemoteRefs?: boolean;
  allowRefsOutside?: boolean;
  refRoot?: string[];
}

/** What a command leaves for `run`: the exit code it chose, and its name for the messages. */
export interface Outcome {
  code: number;
  command: string;
}

/**
 * Builds the program; `out` and `err` receive all output, `input` stands for standard input (process.stdin
 * when left out, touched only by a command that reads it), and `outcome` gets the exit code a command
 * chose. Exported so a test can walk every command.
 */
export function program(out: Write, err: Write, outcome: Outcome, input?: Input): Command {
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR && out === stdout;
  const bold = (text: string): string => (color ? styleText('bold', text) : text);
  const cli = new Command('agent-errors')
    .description('HTTP errors an autonomous agent can act on: the catalog, the retry experiment, and the checks a team runs in CI.')
    .version(packageVersion(), '-V, --version', `print the version of ${PACKAGE_NAME}`)
    .helpOption('-h, --help', 'print this help')
    .helpCommand('help [command]', 'print the help of a command')
    .addHelpText('after', `\n${EXIT_CODES_HELP}`)
    .configureOutput({ writeOut: out, writeErr: err })
    .exitOverride()
    .showHelpAfterError()
    .hook('preAction', (_program, command) => void (outcome.command = command.name()));

  cli
    .command('codes')
    .description('print the catalog: every code with its status, retry word, next step and advice')
    .option('--json', 'print the same as JSON, keyed by code, with each code\'s title, family and draft flag too')
    .option('--extend <file>', "the site's extension catalog (JSON): its own codes too, in the family site")
    .action(async (options: { json?: boolean; extend?: string }) => {
      const codes = options.extend === undefined ? undefined : (await readExtension(options.extend)).codes;
      out(options.json ? `${JSON.stringify(codesJson(codes), null, 2)}\n` : `${codeTableText(codes)}\n`);
    });

  cli
    .command('demo')
    .description(
      "the retry experiment on a virtual clock: the same failures in each error dialect, met by three retry policies and this package's agent client; " +
        'prints calls made and seconds slept',
    )
    .option('--json', 'print the cells as data')
    .action(async (options: { json?: boolean }) => {
      const { demoTables, formatTables } = await import('./demo.js');
      const tables = await demoTables();
      out(options.json ? `${JSON.stringify(tables, null, 2)}\n` : `${formatTables(tables)}\n`);
    });

  cli
    .command('start')
    .description(
      "the experiment over real HTTP: an example shop on a loopback port, wrapped in this package's site middleware, called by the agent client and the " +
        'retry policies; prints a transcript',
    )
    .option('--scale <factor>', 'how long a second takes, in seconds: above 0 and at most 1', scaleOption, 0.01)
    .option('--json', 'print the same as JSON: the scale, the shop, every table\'s cells (as demo --json does), whether they equal the virtual-clock run, and the transcript')
    .action(async (options: { scale: number; json?: boolean }) => {
      const { runExample } = await import('./example-shop.js');
      const { text, matches, url, tables, transcript } = await runExample({ scale: options.scale });
      out(options.json ? `${JSON.stringify({ scale: options.scale, url, matches, tables, transcript }, null, 2)}\n` : text);
    });

  cli
    .command('classify')
    .description('read any HTTP response as the envelope, and say why')
    .requiredOption('-s, --status <status>', 'the response status', statusOption)
    .option('-H, --header <header>', 'a response header, "Name: value" (repeatable)', headerOption)
    .option(
      '-b, --body <file>',
      `the file that holds the response body; "-" reads standard input, as does no -b when input is piped (at most the first ${MAX_BODY_BYTES / 1024} KiB are read)`,
    )
    .option('--json', 'print the envelope and the reasons as JSON')
    .action(async (options: { status: number; header?: [string, string][]; body?: string; json?: boolean }) => {
      const stdin: Input = input ?? process.stdin;
      // Piped input is the body unless -b names one; a terminal is never read, or classify would wait for typing.
      const piped = options.body === undefined && stdin.isTTY !== true;
      const read = (file: string): Promise<Uint8Array> =>
        readBody(file, stdin).catch((error: unknown) => {
          throw isSystemError(error) ? new UsageError(systemErrorText(error, file)) : error;
        });
      let body = piped ? await read('-') : options.body === undefined ? null : await read(options.body);
      // An empty pipe (</dev/null, a CI step given no input) is no body, as no -b is.
      if (piped && body!.byteLength === 0) body = null;
      const { envelope, because } = explainResponse(options.status, options.header ?? [], body);
      if (options.json) return out(`${JSON.stringify({ ...envelope, because }, null, 2)}\n`);
      out(`${JSON.stringify(envelope, null, 2)}\n\n${bold('why')}:\n${because.map((b) => `  - ${b}`).join('\n')}\n`);
    });

  cli
    .command('lint')
    .description('check that an OpenAPI 3.0 or 3.1 (or Swagger 2.0) document declares errors an agent can act on, in the error format it already has')
    .argument('<spec>', 'the OpenAPI document (YAML or JSON); $refs resolve relative to it')
    .addOption(new Option('-f, --format <format>', 'how to print the findings').choices(LINT_FORMATS_OUT).default('text'))
    // One way to say the format: two that disagree (--json -f sarif) are a usage error, not a silent pick.
    .addOption(new Option('--json', 'the same as --format json').conflicts(['format', 'sarif']))
    .addOption(new Option('--sarif', 'the same as --format sarif').conflicts('format'))
    .option('-c, --config <file>', "the lint config (JSON or YAML): where the error body keeps its parts, retry words for the team's own codes, and a severity or off per rule")
    .option('--baseline <file>', 'fail only on findings that are not in this file; when it does not exist, write today\'s findings to it and pass')
    .option('--update-baseline', 'write the findings of this run to the --baseline file, and pass')
    .option('-q, --quiet', 'print the errors only, not the warnings')
    .option('--extend <file>', "the site's extension catalog (JSON), as codegen --extend reads it: its codes are known, with their status and retry word")
    .option('--site-codes <codes>', "the site's own codes, comma-separated (without their status and word; --extend gives them)", siteCodesOption)
    // A spec may come from an untrusted pull request: by default its $refs load nothing outside its folder.
    .option('--allow-remote-refs', 'fetch http and https $refs on public hosts (by default each is a ref-not-allowed finding)')
    .option('--allow-refs-outside', "read $refs to local files anywhere (by default only the spec's folder tree and this package's generated/)")
    .option('--ref-root <folder-or-url>', 'also allow $refs under this folder or http(s) URL prefix (repeatable)', refRootOption)
    .action(async (spec: string, options: LintOptions) => {
      const { lintOpenApi, formatFindings, LintInputError } = await import('./lint-openapi.js');
      const { readLintConfig } = await import('./lint-config.js');
      const report = await import('./lint-report.js');
      const format = options.json ? 'json' : options.sarif ? 'sarif' : options.format;
      if (options.updateBaseline && options.baseline === undefined) throw new UsageError('--update-baseline needs --baseline <file>: the file to write');
      const roots = options.refRoot ?? [];
      const urls = roots.filter((r) => /^https?:\/\//i.test(r));
      const folders = roots.filter((r) => !urls.includes(r));
      let findings;
      let config;
      let baseline;
      try {
        config = options.config === undefined ? undefined : await readLintConfig(options.config);
        const extended = options.extend === undefined ? undefined : await readExtension(options.extend);
        const siteCatalog = extended && Object.fromEntries(Object.entries(extended.codes).filter(([, e]) => e.family === 'site').map(([code, e]) => [code, { status: e.status, retry: e.retry }]));
        findings = await lintOpenApi(resolve(spec), {
          siteCodes: options.siteCodes ?? [],
          ...(siteCatalog ? { siteCatalog } : {}),
          ...(config ? { config } : {}),
          allowRemoteRefs: options.allowRemoteRefs === true || urls,
          allowRefsOutside: options.allowRefsOutside === true || folders,
        });
        if (options.baseline !== undefined && !options.updateBaseline && existsSync(options.baseline)) {
          let value: unknown;
          try {
            value = JSON.parse(await readFile(options.baseline, 'utf8'));
          } catch (error) {
            throw new LintInputError(`the baseline ${options.baseline} is not JSON: ${(error as Error).message}`);
          }
          baseline = report.checkBaseline(value, `the baseline ${options.baseline}`);
        }
      } catch (error) {
        throw error instanceof LintInputError ? new UsageError(error.message) : error;
      }
      // No baseline yet (or asked to update it): today's findings become the baseline, and the run passes.
      if (options.baseline !== undefined && baseline === undefined) {
        await writeFile(options.baseline, `${JSON.stringify(report.baselineOf(findings), null, 2)}\n`);
        err(`recorded ${findings.length} finding${findings.length === 1 ? '' : 's'} in ${options.baseline}; from now on only new findings fail\n`);
        outcome.code = EXIT.clean;
        return;
      }
      let shown = findings;
      if (baseline !== undefined) {
        const { fresh, known, fixed } = report.compareWithBaseline(findings, baseline);
        shown = fresh;
        err(`${known.length} finding${known.length === 1 ? '' : 's'} in the baseline ${options.baseline} left out${fixed > 0 ? `; ${fixed} of its findings no longer occur (--update-baseline drops them)` : ''}\n`);
      }
      if (options.quiet) shown = shown.filter((f) => f.severity === 'error');
      const source = format === 'sarif' || format === 'github' ? await readFile(spec, 'utf8') : undefined;
      if (format === 'sarif') {
        const { toSarif } = await import('./sarif.js');
        out(`${JSON.stringify(toSarif(shown, { uri: spec, ...(source === undefined ? {} : { source }), ...(config ? { config } : {}) }), null, 2)}\n`);
      } else if (format === 'github') out(report.toGithubAnnotations(shown, { file: spec, ...(source === undefined ? {} : { source }) }));
      else if (format === 'junit') out(report.toJunit(shown, { file: spec }));
      else out(format === 'json' ? `${JSON.stringify(shown, null, 2)}\n` : `${formatFindings(shown, { color })}\n`);
      // Warnings are printed and pass; an error fails the run.
      outcome.code = findingsExit(shown.filter((f) => f.severity === 'error').length);
    });

  cli
    .command('diff')
    .description('the breaking-change review of an error contract: two catalogs, or two OpenAPI documents')
    .argument('<before>', 'the catalog or OpenAPI document before (JSON or YAML)')
    .argument('<after>', 'the same after')
    .option('--closed-enums', 'count an added code or retry word as breaking, for consumers whose enums are closed')
    .option('--json', 'print the changes as JSON')
    .action(async (before: string, after: string, options: { closedEnums?: boolean; json?: boolean }) => {
      const { parse } = await import('yaml');
      const { diffCatalog, formatDiff } = await import('./diff.js');
      const read = async (file: string): Promise<unknown> => {
        const text = await readFile(file, 'utf8');
        try {
          return parse(text) as unknown;
        } catch (error) {
          throw new UsageError(`${file} is not valid JSON or YAML: ${(error as Error).message}`);
        }
      };
      const [beforeDoc, afterDoc] = await Promise.all([read(before), read(after)]);
      let result;
      try {
        result = diffCatalog(beforeDoc, afterDoc, { closedEnums: options.closedEnums === true });
      } catch (error) {
        throw error instanceof TypeError ? new UsageError(error.message) : error;
      }
      out(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatDiff(result)}\n`);
      outcome.code = findingsExit(result.breaking.length);
    });

  cli
    .command('codegen')
    .description("write the package's artifacts (types, validators, OpenAPI components, docs) for the catalog plus a site's own codes")
    .requiredOption('--extend <file>', "the site's extension catalog (JSON)")
    .requiredOption(
      '--out <dir>',
      'the folder to write the artifacts to: a new or empty one, or one that holds only files codegen wrote, which it replaces (and removes those it no longer writes)',
    )
    .option('--check', 'write nothing: exit 1 naming each file in --out that is missing, out of date or no longer written by codegen')
    .option('--json', 'print the files written and removed, or with --check each file out of date, as JSON')
    .action(async (options: { extend: string; out: string; check?: boolean; json?: boolean }) => {
      // The one command that runs codegen: the CLI is a tool, and the build step is what it offers here.
      const codegen = await codegenModule();
      const { CatalogError } = await import('../../codegen/catalog-model.js');
      const { checkOutFolder } = await import('../../codegen/out-folder.js');
      const { ROOT } = await import('../../codegen/paths.js');
      const { compareFolder, foreignFilesError, OutputFolderError, writeOutput } = await import('../../codegen/write.js');
      try {
        // --out names the folder as the user gave it; the folder itself is compared as a path.
        const target = await checkOutFolder(options.out, { extend: options.extend, packageRoot: ROOT });
        const files = await codegen.renderExtended(options.extend, options.out);
        const shown = (path: string): string => `${options.out.replace(/[\\/]+$/, '')}/${path}`;
        if (options.check) {
          const { missing, stale, orphaned, foreign } = await compareFolder(files, target);
          // A file codegen did not write is no finding a rerun fixes (the rerun refuses the folder): a usage error, as when writing.
          if (foreign.foreign.length > 0) throw foreignFilesError(options.out, foreign, `--out ${options.out}`);
          const found = [
            ...missing.map((path) => ({ path, state: 'missing', says: `${shown(path)} is missing` })),
            ...stale.map((path) => ({ path, state: 'stale', says: `${shown(path)} is stale` })),
            ...orphaned.map((path) => ({ path, state: 'orphaned', says: `${shown(path)} is orphaned: codegen no longer writes it` })),
          ];
          const again = codegen.rerunCommand(options.extend, options.out);
          if (options.json) out(`${JSON.stringify({ out: options.out, current: found.length === 0, files: found.map(({ path, state }) => ({ path, state })), again }, null, 2)}\n`);
          else if (found.length === 0) out(`${options.out} is what codegen writes from ${options.extend}\n`);
          else err(`${options.out} does not match ${options.extend}; run ${again}:\n${found.map((f) => `  ${f.says}`).join('\n')}\n`);
          outcome.code = findingsExit(found.length);
          return;
        }
        const { wrote, removed } = await writeOutput(files, target, options.out, `--out ${options.out}`);
        if (options.json) out(`${JSON.stringify({ out: options.out, wrote: [...wrote].sort(), removed: [...removed].sort() }, null, 2)}\n`);
        else {
          const gone = removed.length === 0 ? '' : `, and removed ${removed.length} it no longer writes: ${[...removed].sort().map(shown).join(', ')}`;
          out(`wrote ${wrote.length} files to ${options.out}${gone}\n`);
        }
      } catch (error) {
        throw error instanceof CatalogError || error instanceof OutputFolderError ? new UsageError(error.message) : error;
      }
    });
  return cli;
}

const stdout: Write = (t) => void process.stdout.write(t);
const stderr: Write = (t) => void process.stderr.write(t);

/**
 * Runs the CLI with `argv` (without node and the script), reading standard input from `input` (by default
 * process.stdin); resolves to the exit code. Every command's exit code comes from here, by the rule of EXIT.
 */
export async function run(argv: string[], out: Write = stdout, err: Write = stderr, input?: Input): Promise<number> {
  const outcome: Outcome = { code: EXIT.clean, command: '' };
  if (argv.length === 0) {
    // No command is a usage error: show what there is.
    err(program(out, err, outcome, input).helpInformation());
    return EXIT.usage;
  }
  try {
    await program(out, err, outcome, input).parseAsync(argv, { from: 'user' });
    return outcome.code;
  } catch (error) {
    // Commander has printed the help or the version (its exit code 0), or what was wrong: an unknown command
    // or option, a missing or invalid argument, `help` for a command there is not.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.clean : EXIT.usage;
    const where = outcome.command === '' ? 'agent-errors' : `agent-errors ${outcome.command}`;
    // Input the command cannot use, or a file it cannot read or write: the user's to fix, as a usage error is.
    if (error instanceof UsageError) err(`${where}: ${error.message}\n`);
    else if (isSystemError(error)) err(`${where}: ${systemErrorText(error)}\n`);
    // Anything else is a fault of this tool, with its stack for the report. It found nothing, so it must not exit 1.
    else err(`${where}: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT.usage;
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
