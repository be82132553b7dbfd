// The package as a user meets it: packed by npm, installed from the tarball into a fresh ESM project
// (test/fixtures/pack/) beside the optional peers it uses, type-checked there with node16 and with
// bundler resolution, run with node and vitest, its bin run through npx, linted by publint and
// @arethetypeswrong/cli, and /agent, /site and each adapter weighed as a bundler would load them
// (bench/size.ts). The same consumer then type-checks and runs every fenced example of README.md
// and docs/*.md, as test/helpers/doc-examples.ts extracts them and their marks.
//
// It packs a private copy built into a temporary folder, never dist/: test/package.test.ts builds
// dist/ (and npm start does too), and two builds of one folder at once collide.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { ROOT } from '../codegen/paths.js';
import { BUDGETED, formatSizes, measure } from '../bench/size.js';
import { docErrors, extractExamples, UNCAUGHT, type DocExample } from './helpers/doc-examples.js';


const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
  files: string[];
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
};
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const ATTW = join(ROOT, 'node_modules', '@arethetypeswrong', 'cli', 'dist', 'index.js');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'pack');

/**
 * What a consumer of every subpath installs beside the package: the optional peers its code imports
 * (express, fastify, hono; vitest for the matchers), the clients the documentation's examples plug
 * into (openai, undici, ky, got, axios and axios-retry, redis, the x402 client, the MCP SDK), Koa and NestJS, and the types a strict TypeScript
 * project needs (@types/node for node:http and fetch; @types/express, since Express 5 ships none).
 * Not better-sqlite3, a native module whose install fetches a binary: the disk store's example is
 * type-checked only. And the codegen peers (ajv, json-schema-to-typescript, jsonc-parser), for a
 * site's own codes from `codegen --extend`, which needs no TypeScript. Each at the version this repo
 * tests against, so npm's cache has it.
 */
const CONSUMER_INSTALLS = [
  ...['express', 'fastify', 'hono', 'vitest', '@types/node', '@types/express'],
  ...['openai', 'undici', 'ky', 'got', 'axios', 'axios-retry', 'redis'],
  // The Koa and NestJS adapters' types name their frameworks' (their examples are type-checked only).
  ...['koa', '@types/koa', '@nestjs/common', '@nestjs/core', 'reflect-metadata', 'rxjs'],
  // The x402 client the payment hook's example wires (type-checked only: it pays a real site).
  ...['@x402/fetch', '@x402/evm', '@x402/core', 'viem'],
  ...['ajv', 'json-schema-to-typescript', 'jsonc-parser'],
  // The MCP SDK the MCP server's example wraps (type-checked only), with zod, which it requires.
  ...['@modelcontextprotocol/sdk', 'zod'],
];

/** The pages whose examples are checked: README.md and every page of docs/. */
const DOCS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
/** How long one example may run: they are small, so one that takes longer keeps a server listening or waits on a network. */
const EXAMPLE_TIMEOUT_MS = 20_000;
/**
 * How many examples run at once. Each takes about half a second, mostly node starting up, but one
 * that keeps running costs the whole timeout; two lanes halve that without outnumbering the CPUs of
 * a CI runner, which the consumer's three tsc runs already share. So an example that starts a
 * server of its own listens on port 0, never on a fixed one another example may hold.
 */
const EXAMPLE_LANES = 2;

/** Where a packed file may be: the package.json `files` entries, plus what npm always packs. */
const ALLOWED = [...pkg.files.map((entry) => entry.replace(/\/?$/, '/')), 'package.json', 'README.md'];
/** What must never ship. */
const FORBIDDEN = [/(^|\/)tests?\//, /\.(test|spec)\.[cm]?[jt]sx?$/, /(^|\/)fixtures\//, /(^|\/)bench\//, /(^|\/)scratch\//, /\.map$/, /(^|\/)node_modules\//, /\.tmpl$/, /tsbuildinfo$/];

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** The environment for a child npm or vitest: without what `npm test` and the outer vitest set (npm_config_local_prefix would point npm at this repo). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(npm_|vitest)/i.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  return { ...env, NO_COLOR: '1', FORCE_COLOR: '0' };
}

/** Runs a command to its end; never rejects, so each check can say what failed. */
function run(command: string, args: readonly string[], cwd: string, timeout = 120_000): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: cleanEnv(), encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ code, stdout, stderr: error && code === null ? `${stderr}\n${error.message}` : stderr, ms: Math.round(performance.now() - started) });
    });
  });
}

/** Throws with the output when a setup step fails: a failed step leaves nothing to check. */
function ok(step: string, ran: Ran): Ran {
  if (ran.code !== 0) throw new Error(`${step} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** The `error TS` lines of a tsc run, one per error. */
const tscErrors = (ran: Ran): string[] => `${ran.stdout}\n${ran.stderr}`.split('\n').filter((line) => /error TS\d+/.test(line));

/** The last line of a run's output, parsed as JSON. */
const lastJson = (ran: Ran): Record<string, any> => JSON.parse(ran.stdout.trim().split('\n').at(-1) ?? 'null');

const versionOf = (name: string): string => JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;

// The examples, read when the file is collected so that each one that runs gets a test of its own.
// A page with a mark the extractor refuses fails a test of its own rather than the whole file.
const EXAMPLES: DocExample[] = [];
const MARK_ERRORS: string[] = [];
for (const doc of DOCS) {
  try {
    EXAMPLES.push(...extractExamples(doc, readFileSync(join(ROOT, doc), 'utf8')));
  } catch (error) {
    MARK_ERRORS.push((error as Error).message);
  }
}
const RUN_EXAMPLES = EXAMPLES.filter((example) => example.mode !== 'typecheck');

/** Runs one example in the consumer: its compiled module with node, or its source with the consumer's vitest. */
function runExample(example: DocExample, consumer: string): Promise<Ran> {
  const args =
    example.mode === 'vitest'
      ? [join('node_modules', 'vitest', 'vitest.mjs'), 'run', `examples/${example.file}`]
      : [join('examples', 'out', example.file.replace(/\.m[jt]s$/, '.mjs'))];
  return run(process.execPath, args, consumer, EXAMPLE_TIMEOUT_MS);
}

describe('the packed package, installed from its tarball', () => {
  let tmp: string;
  let tarball: string;
  let packed: string[];
  let consumer: string;
  let installed: string;
  // Started in beforeAll and awaited by the checks, so that independent steps overlap.
  let checkNode16: Promise<Ran>;
  let checkBundler: Promise<Ran>;
  let attw: Promise<Ran>;
  let checkExamples: Promise<Ran>;
  const exampleRuns = new Map<DocExample, Promise<Ran>>();

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'agent-errors-pack-'));
    const clone = join(tmp, 'clone');
    mkdirSync(clone);

    // A fresh clone of the working tree: every file git tracks (or would: untracked and not
    // ignored), nothing built, no dist/; the repo's node_modules linked in place of an install.
    // npm pack there must build dist/ itself (the prepare script), as it does on a clone from git.
    const listed = ok('git ls-files', await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], ROOT)).stdout.split('\0');
    for (const file of listed) {
      if (file === '' || !existsSync(join(ROOT, file))) continue;
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      cpSync(join(ROOT, file), join(clone, file));
    }
    expect(existsSync(join(clone, 'dist'))).toBe(false);
    symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');

    const pack = ok('npm pack', await run('npm', ['pack', '--json', '--pack-destination', tmp], clone, 300_000));
    // The prepare script's own output comes first; npm's JSON is the last thing it prints.
    tarball = join(tmp, (JSON.parse(pack.stdout.slice(pack.stdout.lastIndexOf('\n[') + 1)) as [{ filename: string }])[0].filename);
    packed = ok('tar tzf', await run('tar', ['tzf', tarball], tmp))
      .stdout.split('\n')
      .filter((line) => line !== '' && !line.endsWith('/'))
      .map((line) => line.replace(/^package\//, ''));

    // The consumer: the template copied, its *.tmpl files renamed, the tarball and the peers installed.
    consumer = join(tmp, 'consumer');
    cpSync(FIXTURE, consumer, { recursive: true });
    for (const name of readdirSync(consumer)) if (name.endsWith('.tmpl')) renameSync(join(consumer, name), join(consumer, name.slice(0, -'.tmpl'.length)));
    const install = ok(
      'npm install',
      await run('npm', ['install', tarball, ...CONSUMER_INSTALLS.map((name) => `${name}@${versionOf(name)}`), '--prefer-offline', '--no-audit', '--no-fund'], consumer),
    );
    installed = join(consumer, 'node_modules', ...pkg.name.split('/'));
    console.log(`pack: npm pack of a fresh clone, its build included, ${pack.ms} ms (${packed.length} files), npm install ${install.ms} ms`);

    checkNode16 = run(process.execPath, [TSC, '-p', 'tsconfig.node16.json', '--pretty', 'false'], consumer);
    checkBundler = run(process.execPath, [TSC, '-p', 'tsconfig.bundler.json', '--pretty', 'false'], consumer);
    attw = run(process.execPath, [ATTW, tarball, '--profile', 'esm-only', '--no-definitely-typed', '--format', 'table-flipped', '--no-color', '--no-emoji'], tmp);
    // Keep an early failure from surfacing as an unhandled rejection before its check awaits it.

    // The documentation's examples, one module each, type-checked by one tsc run that also emits
    // them; then each one that runs, once that emit is done, in EXAMPLE_LANES lanes taken in turn.
    mkdirSync(join(consumer, 'examples'));
    for (const example of EXAMPLES) writeFileSync(join(consumer, 'examples', example.file), example.code);
    checkExamples = run(process.execPath, [TSC, '-p', 'tsconfig.examples.json', '--pretty', 'false'], consumer);
    const lanes: Promise<unknown>[] = Array.from({ length: EXAMPLE_LANES }, () => checkExamples);
    RUN_EXAMPLES.forEach((example, i) => {
      const ran = lanes[i % EXAMPLE_LANES]!.then(() => runExample(example, consumer));
      exampleRuns.set(example, ran);
      lanes[i % EXAMPLE_LANES] = ran;
    });
  }, 180_000);

  // The consumer's node_modules, with the examples' peers, can take longer to delete than a hook's default 10 s on a busy machine.
  afterAll(async () => {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }, 60_000);

  describe('the tarball', () => {
    it('holds only the files package.json lists, and nothing of the tests, fixtures, benchmarks or source maps', () => {
      expect(packed.filter((file) => !ALLOWED.some((allowed) => file === allowed || file.startsWith(allowed)))).toEqual([]);
      expect(packed.filter((file) => FORBIDDEN.some((pattern) => pattern.test(file)))).toEqual([]);
      for (const root of ['dist/src/', 'dist/generated/', 'dist/codegen/', 'generated/', 'schema/']) expect(packed.some((file) => file.startsWith(root)), root).toBe(true);
      expect(packed).toEqual(expect.arrayContaining(['package.json', 'README.md', 'dist/generated/validators.js', 'dist/generated/validators.d.ts']));
    });

    it('holds every file the exports map and the bin point at', () => {
      const targets = Object.values(pkg.exports).flatMap((target) => (typeof target === 'string' ? [target] : Object.values(target)));
      for (const target of [...targets, ...Object.values(pkg.bin)]) {
        const file = target.replace(/^\.\//, '');
        if (file.includes('*')) expect(packed.some((p) => p.startsWith(file.slice(0, file.indexOf('*')))), target).toBe(true);
        else expect(packed, target).toContain(file);
      }
    });
  });

  it('weighs /agent at most 33 KB, /site at most 31 KB and each adapter\'s subpath at most 29 KB, minified and gzipped, without the generated validators', async () => {
    const sizes = await measure(installed, 3);
    // Each entry with its largest modules, and what each of the three largest costs of the gzip.
    console.log(formatSizes(sizes, 8));
    expect(sizes.map((s) => s.subpath)).toEqual(BUDGETED.map((b) => b.subpath));
    for (const s of sizes) expect(s.gzip, s.subpath).toBeLessThanOrEqual(s.budget);
  }, 120_000);

  describe('a TypeScript consumer (strict, skipLibCheck false) that imports every subpath', () => {
    it('type-checks with node16 resolution', async () => {
      const ran = await checkNode16;
      console.log(`tsc node16: ${ran.ms} ms`);
      expect(tscErrors(ran)).toEqual([]);
    }, 120_000);

    it('type-checks with bundler resolution', async () => {
      const ran = await checkBundler;
      console.log(`tsc bundler: ${ran.ms} ms`);
      expect(tscErrors(ran)).toEqual([]);
    }, 120_000);
  });

  describe('the consumer at run time', () => {
    it('require()s every subpath, as Node 20.19 and later load ES modules for CommonJS callers (the default condition)', async () => {
      const subpaths = Object.keys(pkg.exports).filter((key) => !key.includes('*') && !key.endsWith('.json'));
      const script = `for (const s of ${JSON.stringify(subpaths)}) { const m = require(${JSON.stringify(pkg.name)} + s.slice(1)); if (Object.keys(m).length === 0) throw new Error('nothing from ' + s); } console.log('required', ${subpaths.length});`;
      const ran = await run(process.execPath, ['-e', script], consumer, 60_000);
      expect(ran.stderr).not.toMatch(/ERR_PACKAGE_PATH_NOT_EXPORTED|ERR_REQUIRE_ESM|Error/);
      expect([ran.code, ran.stdout.trim()]).toEqual([0, `required ${subpaths.length}`]);
    });

    it('runs every subpath with node: the catalog, the site adapters, the agent client, the lint, the JSON files', async () => {
      await checkNode16; // emits out/ (errors or not)
      const ran = await run(process.execPath, [join('out', 'index.js')], consumer, 30_000);
      expect(ran.code, ran.stderr).toBe(0);
      const out = lastJson(ran);
      expect(out.lookup).toEqual({ status: 429, retry: 'after_delay', next_step: 'wait', known: true });
      expect(out.siteCodeKnown).toBe(false);
      expect(out.validEnvelope).toBe(true);
      expect(out.waitWithoutDelay).toBe(false);
      expect(out.agentError).toMatchObject({ status: 429, headers: { 'retry-after': '30' }, envelope: { error: { code: 'rate_limited', retry_after: 30 } }, isAgentError: true });
      expect(out.problem).toEqual({ type: 'https://shop.example/problems/rate_limited', valid: true });
      expect(out.siteError).toMatchObject({ code: 'coupon_expired', retry: 'refetch' });
      expect(out.isAgentRequest).toEqual({ json: true, browser: false });
      expect(out.fetchAdapter).toMatchObject({ status: 404, body: { error: { code: 'not_found', message: 'No such order' } } });
      expect(out.fetchPage).toEqual({ ok: true, stale: false, body: '<title>Item 42</title>' });
      expect(out.agentFetch).toEqual({ status: 404, code: 'not_found', bodyCode: 'not_found' });
      expect(out.client).toEqual({
        missing: { ok: false, code: 'not_found', retry_after: null, remembered: false },
        busy: { ok: false, code: 'rate_limited', retry_after: 120, remembered: false },
        busyAgain: { ok: false, code: 'rate_limited', retry_after: 120, remembered: true },
      });
      expect(out.express).toMatchObject({ status: 404, contentType: expect.stringContaining('application/problem+json'), body: { code: 'not_found', status: 404 } });
      expect(out.fastify).toMatchObject({ status: 503, retryAfter: '60', body: { error: { code: 'temporarily_unavailable', retry_after: 60 } } });
      expect(out.hono).toMatchObject({ status: 404, body: { error: { code: 'not_found' } } });
      expect(out.fromResponse).toMatchObject({ code: 'temporarily_unavailable', message: 'Down for maintenance', retry_after: 120, valid: true });
      expect(out.redisStore).toMatchObject({ code: 'rate_limited' });
      expect(out.diskStore).toBe('createDiskStore needs better-sqlite3: npm install better-sqlite3@12');
      expect(out.loop).toBe('ok 2c 30s');
      expect(out.violations).toContain('promise-without-delay');
      expect(out.lintOpenApi).toEqual([]);
      expect(out.openapi).toMatchObject({ imported: ['3.1.0', '3.0.3'], onDisk: ['3.1.0', '3.0.3'], tooManyRequests: [true, true], sameAsImport: true });
      expect(out.schemaTitle).toBe('Envelope');
      expect(out.packageName).toBe(pkg.name);
    }, 120_000);

    it('runs diffCatalog from /lint, as the README documents it', async () => {
      await checkNode16;
      const ran = await run(process.execPath, [join('out', 'diff.js')], consumer, 30_000);
      expect(ran.code, ran.stderr).toBe(0);
      expect(lastJson(ran)).toEqual({ breaking: 1, same: 0 });
    }, 120_000);

    it('runs the vitest matchers of /vitest under the consumer\'s own vitest', async () => {
      const ran = await run(process.execPath, [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--exclude', 'out/**', '--exclude', 'examples/**'], consumer, 60_000);
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      expect(ran.stdout).toMatch(/1 passed/);
    }, 60_000);

    it('runs the bin through npx: --help, codes, and lint on a spec that $refs the installed components', async () => {
      // `npx --no --` finds the installed bin and never fetches a package of that name; the `--`
      // keeps npm from taking --help for itself.
      const help = await run('npx', ['--no', '--', 'agent-errors', '--help'], consumer);
      expect(help.code, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^Usage: agent-errors/);
      const codes = await run('npx', ['--no', '--', 'agent-errors', 'codes'], consumer);
      expect(codes.code, codes.stderr).toBe(0);
      expect(codes.stdout).toMatch(/^rate_limited\s+429\s+after_delay/m);
      const lint = await run('npx', ['--no', '--', 'agent-errors', 'lint', 'openapi.yaml'], consumer);
      expect(lint.code, `${lint.stdout}\n${lint.stderr}`).toBe(0);
    }, 60_000);

    it("takes a site's own code end to end from codegen --extend: typed under strict tsc, built from the code alone, served at /problems/<code>, linted and listed", async () => {
      const site = join(consumer, 'site');
      mkdirSync(site, { recursive: true });
      const locked = { status: 423, retry: 'once', title: 'Document locked', advice: 'Wait for the other editor to save, then try once more.', example: { message: 'Someone else is editing this document', detail: 'The document is open in another session.' } };
      writeFileSync(join(site, 'site-codes.json'), JSON.stringify({ codes: { document_locked: locked } }));
      const bin = ['--no', '--', 'agent-errors'];
      ok('codegen --extend', await run('npx', [...bin, 'codegen', '--extend', 'site/site-codes.json', '--out', 'site/generated'], consumer));
      // Typed: the code alone, under the consumer's strict tsc; a code neither catalog has is refused.
      writeFileSync(
        join(site, 'typed.ts'),
        [
          "import { agentError } from './generated/errors.js';",
          "const locked = agentError('document_locked');",
          "const limited = agentError('rate_limited', { retryAfter: 30 });",
          '// @ts-expect-error: neither the catalog nor the site has this code',
          "agentError('no_such_code');",
          '// @ts-expect-error: rate_limited waits, so it needs retryAfter',
          "agentError('rate_limited');",
          'export const statuses: number[] = [locked.status, limited.status];',
          '',
        ].join('\n'),
      );
      writeFileSync(join(site, 'tsconfig.json'), JSON.stringify({ extends: '../tsconfig.json', compilerOptions: { module: 'node18', moduleResolution: 'node16', noEmit: true }, include: ['typed.ts'] }));
      const typed = await run(process.execPath, [TSC, '-p', join('site', 'tsconfig.json'), '--pretty', 'false'], consumer);
      expect(tscErrors(typed)).toEqual([]);
      // Built and served: plain JavaScript imports the generated builder; Express serves the page.
      writeFileSync(
        join(site, 'serve.mjs'),
        [
          "import express from 'express';",
          "import { agentFriendlyExpress, agentFriendlyExpressErrorHandler } from '@agent-index/errors/site/express';",
          "import { agentError } from './generated/errors.js';",
          'const app = express();',
          'app.use(agentFriendlyExpress());',
          "app.get('/doc', () => { throw agentError('document_locked', { message: 'Someone else is editing this document' }); });",
          'app.use(agentFriendlyExpressErrorHandler());',
          "const server = app.listen(0, '127.0.0.1', async () => {",
          '  const origin = `http://127.0.0.1:${server.address().port}`;',
          "  const thrown = await fetch(`${origin}/doc`, { headers: { accept: 'application/problem+json' } });",
          '  const problem = await thrown.json();',
          "  const page = await fetch(problem.type, { headers: { accept: 'text/html' } });",
          "  const entry = await fetch(problem.type, { headers: { accept: 'application/json' } });",
          '  console.log(JSON.stringify({ status: thrown.status, title: problem.title, type: problem.type.slice(origin.length), page: page.status, html: (await page.text()).includes(\'Document locked\'), entry: await entry.json() }));',
          '  server.close();',
          '});',
          '',
        ].join('\n'),
      );
      const served = await run(process.execPath, [join('site', 'serve.mjs')], consumer, 30_000);
      expect(served.code, served.stderr).toBe(0);
      expect(lastJson(served)).toEqual({
        status: 423,
        title: 'Document locked',
        type: '/problems/document_locked',
        page: 200,
        html: true,
        entry: { code: 'document_locked', status: 423, retry: 'once', title: 'Document locked', advice: locked.advice },
      });
      // Linted from the extension: an example of the code under another status is a finding.
      const spec = (status: number): string =>
        [
          'openapi: 3.1.0',
          'info: { title: Docs, version: 1.0.0 }',
          'paths:',
          '  /doc:',
          '    put:',
          '      responses:',
          "        '200': { description: Saved. }",
          `        '${status}':`,
          '          description: Locked.',
          '          content:',
          '            application/json:',
          "              schema: { $ref: './generated/openapi.json#/components/schemas/Envelope' }",
          '              example: { error: { code: document_locked, message: Locked., field: null, retry: once, retry_after: 1 } }',
          "        '500': { $ref: './generated/openapi.json#/components/responses/InternalServerError' }",
          '',
        ].join('\n');
      writeFileSync(join(site, 'openapi.yaml'), spec(423));
      writeFileSync(join(site, 'wrong.yaml'), spec(409));
      const clean = await run('npx', [...bin, 'lint', 'site/openapi.yaml', '--extend', 'site/site-codes.json'], consumer);
      expect(clean.code, `${clean.stdout}\n${clean.stderr}`).toBe(0);
      const wrong = await run('npx', [...bin, 'lint', 'site/wrong.yaml', '--extend', 'site/site-codes.json', '--json'], consumer);
      expect(wrong.code, wrong.stderr).toBe(1);
      expect((JSON.parse(wrong.stdout) as { rule: string }[]).map((f) => f.rule)).toEqual(['example-status-matches']);
      const codes = await run('npx', [...bin, 'codes', '--extend', 'site/site-codes.json', '--json'], consumer);
      expect(JSON.parse(codes.stdout).document_locked).toMatchObject({ status: 423, retry: 'once', family: 'site' });
    }, 120_000);

    it('runs `agent-errors start` through npx, as the README\'s quick start does: the example shop over HTTP, its tables and transcript', async () => {
      const start = await run('npx', ['--no', '--', 'agent-errors', 'start'], consumer, 60_000);
      console.log(`agent-errors start: ${start.ms} ms`);
      expect(start.code, `${start.stdout}\n${start.stderr}`).toBe(0);
      expect(start.stdout).toMatch(/^An example shop at http:\/\/127\.0\.0\.1:\d+/);
      // The cells themselves are test/tools/demo.test.ts's; whether each equals the virtual clock's
      // depends on how loaded the machine is, which this test, run beside three tsc, cannot promise.
      const titles = ['a loop that reads the body', 'a loop that reads only the Retry-After header', 'a loop that retries at once', "this package's agent"];
      for (const title of titles) {
        expect(start.stdout).toMatch(new RegExp(`^${title}.*\\n  failure +problem +google +stripe +vague +envelope$`, 'm'));
      }
      expect(start.stdout).toContain('What the agent did and why:');
    }, 60_000);
  });

  describe('the examples in README.md and docs/', () => {
    it('carry only the marks test/helpers/doc-examples.ts knows', () => {
      expect(MARK_ERRORS).toEqual([]);
    });

    it('type-check, all in one strict project (nodenext resolution), each error told at its page line', async () => {
      const ran = await checkExamples;
      const count = (doc: string, mode: string): number => EXAMPLES.filter((e) => e.doc === doc && e.mode === mode).length;
      const perDoc = DOCS.map((doc) => `${doc} ${['run', 'typecheck', 'vitest'].map((mode) => `${count(doc, mode)} ${mode}`).join(', ')}`);
      console.log(`examples: ${EXAMPLES.length}, tsc ${ran.ms} ms\n  ${perDoc.join('\n  ')}`);
      expect(docErrors(`${ran.stdout}\n${ran.stderr}`, EXAMPLES)).toEqual([]);
    }, 120_000);

    const named = RUN_EXAMPLES.map((e) => [`${e.doc}:${e.line} ${e.mode === 'vitest' ? 'passes under vitest' : 'runs with node'}`, e] as const);
    it.each(named)(
      '%s',
      async (where, example) => {
        const ran = await exampleRuns.get(example)!;
        const output = `${ran.stdout}\n${ran.stderr}`.trim();
        const why = ran.code === null ? `still running after ${EXAMPLE_TIMEOUT_MS / 1000} s (a server that keeps listening?)` : `exited ${ran.code}`;
        expect(ran.code, `${where}: ${why}\n${output}`).toBe(0);
        expect(UNCAUGHT.test(ran.stderr) ? ran.stderr : '', `${where}: an error on stderr`).toBe('');
        // What the page says it prints, it prints: each `// prints:` text, a line each, and nothing else.
        if (example.prints.length > 0) expect(ran.stdout.trimEnd().split('\n'), `${where}: its output, as its // prints: comments give it`).toEqual(example.prints);
      },
      120_000,
    );
  });

  describe('package linters', () => {
    it('publint reports no error, warning or suggestion on the tarball', async () => {
      const bytes = readFileSync(tarball);
      const { messages, pkg: linted } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer }, level: 'suggestion' });
      const lines = messages.map((m) => `${m.type}: ${formatMessage(m, linted) ?? m.code}`);
      console.log(`publint: ${lines.length === 0 ? 'all good' : lines.join('\n')}`);
      expect(lines).toEqual([]);
    });

    it('@arethetypeswrong/cli reports no problem for an ESM-only package (node16 from ESM, bundler)', async () => {
      const ran = await attw;
      console.log(`attw --profile esm-only: exit ${ran.code}, ${ran.ms} ms`);
      expect(ran.code, `${ran.stdout}\n${ran.stderr}`).toBe(0);
      // Every entry point resolves, types and JavaScript, in the two columns the profile keeps.
      const rows = ran.stdout.split('\n').filter((line) => line.startsWith('│ "'));
      expect(rows.length).toBe(Object.keys(pkg.exports).length);
      for (const row of rows) {
        const [entry, fromEsm, bundler] = row.split('│').slice(1, 4).map((cell) => cell.trim());
        expect([fromEsm, bundler], entry).toEqual([expect.stringMatching(/^(OK|\(wildcard\))/), expect.stringMatching(/^(OK|\(wildcard\))/)]);
      }
    }, 60_000);
  });
});
