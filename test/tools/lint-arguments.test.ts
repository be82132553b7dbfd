// Every function @agent-index/errors/lint exports, called with arguments and options of the wrong
// type (issue 35, items 3 and 4): each refuses them with a TypeError that names the function and the
// argument or option, what it takes and what it got, and never lets a Node internal error or a raw
// "Cannot read properties of undefined" through, whatever it is given.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as lint from '../../src/tools/lint.js';
import { LintInputError, type LintFinding } from '../../src/tools/lint.js';
import { oneOperation } from '../helpers/openapi.js';

const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const FIXTURES = here('../fixtures/lint/');
const CATALOG = JSON.parse(await readFile(here('../../schema/catalog.json'), 'utf8')) as unknown;

// Awaited here, not in beforeAll: the tables of calls below are read when the tests are collected.
const findings: LintFinding[] = await lint.lintOpenApi(join(FIXTURES, 'faulty-3.1.yaml'));
const source = await readFile(join(FIXTURES, 'faulty-3.1.yaml'), 'utf8');
let dir = '';
let configFile = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lint-arguments-'));
  configFile = join(dir, 'lint.json');
  await writeFile(configFile, JSON.stringify({ rules: { 'error-code': 'warning' } }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Calls of one exported function: arguments it takes, the names of its options (its last argument), and calls it refuses with their messages. */
interface Calls {
  readonly valid: () => unknown[];
  readonly options: readonly string[];
  /** Arguments, and the whole message of the TypeError they get. */
  readonly wrong: () => (readonly [args: unknown[], message: string])[];
}

const doc = (): object => oneOperation({});
const finding = (): LintFinding => findings[0]!;

/** Every function of src/tools/lint.ts: the test below fails when an export is added without its calls here. */
const FUNCTIONS: Record<string, Calls> = {
  lintOpenApi: {
    valid: () => [doc(), { cwd: FIXTURES }],
    options: ['siteCodes', 'siteCatalog', 'config', 'cwd', 'allowRemoteRefs', 'allowRefsOutside'],
    wrong: () => [
      [[doc(), { cwd: 42 }], 'lintOpenApi: cwd must be a folder path (got 42)'],
      // A path resolves from cwd: Node's path.resolve threw its own ERR_INVALID_ARG_TYPE here.
      [['clean-3.1.yaml', { cwd: 42 }], 'lintOpenApi: cwd must be a folder path (got 42)'],
      [[doc(), { cwd: '' }], 'lintOpenApi: cwd must be a folder path (got "")'],
      [[doc(), { allowRemoteRefs: 'yes' }], 'lintOpenApi: allowRemoteRefs must be true, false or a list of http or https URL prefixes (got "yes")'],
      [[doc(), { allowRefsOutside: 1 }], 'lintOpenApi: allowRefsOutside must be true, false or a list of folder paths (got 1)'],
      [[doc(), { allowRefsOutside: ['ok', 2] }], 'lintOpenApi: allowRefsOutside must be true, false or a list of folder paths (got ["ok",2])'],
      [[doc(), { siteCodes: 'sku_gone' }], 'lintOpenApi: siteCodes must be a list of code strings (got "sku_gone")'],
      [[doc(), { siteCatalog: { sku_gone: { status: 410, retry: 'later' } } }], `lintOpenApi: siteCatalog must be a record of the site's codes, each {status: a whole number from 100 to 599, retry: a retry word} (got {"sku_gone":{"status":410,"retry":"later"}})`],
      [[doc(), { config: 'lint.json' }], 'lintOpenApi: config must be a lint config object ({format, retryByCode, rules}) (got "lint.json")'],
      [[doc(), { config: { rules: { 'error-code': 'loud' } } }], 'lintOpenApi: config is not a valid lint config: /rules/error-code must be error, warning, off, not "loud"'],
      [[doc(), { cwdd: FIXTURES }], 'lintOpenApi: unknown option "cwdd" (did you mean "cwd"?)'],
      [[doc(), null], 'lintOpenApi: options must be an object (got null)'],
      [[doc(), 'strict'], 'lintOpenApi: options must be an object (got "strict")'],
      [[null], 'lintOpenApi: input must be a file path or a parsed OpenAPI document object (got null)'],
      [[42], 'lintOpenApi: input must be a file path or a parsed OpenAPI document object (got 42)'],
      [[{ paths: {} }], 'lintOpenApi: input is not an OpenAPI document: it has neither an openapi nor a swagger member'],
    ],
  },
  formatFindings: {
    valid: () => [findings, { color: true, operations: 1 }],
    options: ['color', 'operations'],
    wrong: () => [
      [['x'], 'formatFindings: findings must be an array of lint findings (got "x")'],
      [[null], 'formatFindings: findings must be an array of lint findings (got null)'],
      [[7], 'formatFindings: findings must be an array of lint findings (got 7)'],
      [[{ findings: [] }], 'formatFindings: findings must be an array of lint findings (got {"findings":[]})'],
      [[[{ rule: 'error-code' }]], 'formatFindings: findings[0] must be a lint finding ({rule, severity, pointer, message, fix, operations}) (got {"rule":"error-code"})'],
      [[[{ ...finding(), severity: 'fatal' }]], `formatFindings: findings[0] must be a lint finding ({rule, severity, pointer, message, fix, operations}) (got ${JSON.stringify({ ...finding(), severity: 'fatal' }).slice(0, 119)}…)`],
      [[findings, { color: 'yes' }], 'formatFindings: color must be true or false (got "yes")'],
      [[findings, { operations: -1 }], 'formatFindings: operations must be a whole, non-negative number of operations to name (got -1)'],
      [[findings, { colour: true }], 'formatFindings: unknown option "colour" (did you mean "color"?)'],
    ],
  },
  toSarif: {
    valid: () => [findings, { uri: 'faulty-3.1.yaml', source, config: { rules: { 'error-code': 'warning' } } }],
    options: ['uri', 'source', 'config'],
    wrong: () => [
      [[null, { uri: 'a.yaml' }], 'toSarif: findings must be an array of lint findings (got null)'],
      [['x', { uri: 'a.yaml' }], 'toSarif: findings must be an array of lint findings (got "x")'],
      [[findings], "toSarif: options must be an object with the spec's path as uri (got undefined)"],
      [[findings, {}], "toSarif: uri must be the linted spec's path or URI (got undefined)"],
      [[findings, { uri: 42 }], "toSarif: uri must be the linted spec's path or URI (got 42)"],
      [[findings, { uri: 'a.yaml', source: Buffer.from('x') }], `toSarif: source must be the spec's text (got {"type":"Buffer","data":[120]})`],
      [[findings, { uri: 'a.yaml', config: { rules: { 'no-such-rule': 'off' } } }], expect.stringMatching(/^toSarif: config is not a valid lint config: \/rules\/no-such-rule is not a lint rule/) as unknown as string],
      [[findings, { url: 'a.yaml' }], 'toSarif: unknown option "url" (did you mean "uri"?)'],
    ],
  },
  toGithubAnnotations: {
    valid: () => [findings, { file: 'faulty-3.1.yaml', source }],
    options: ['file', 'source'],
    wrong: () => [
      [[undefined, { file: 'a.yaml' }], 'toGithubAnnotations: findings must be an array of lint findings (got undefined)'],
      [[findings], "toGithubAnnotations: options must be an object with the spec's path as file (got undefined)"],
      [[findings, { source }], "toGithubAnnotations: file must be the linted spec's path (got undefined)"],
      [[findings, { file: ['a.yaml'] }], `toGithubAnnotations: file must be the linted spec's path (got ["a.yaml"])`],
      [[findings, { file: 'a.yaml', path: 'a.yaml' }], 'toGithubAnnotations: unknown option "path"; it takes "file", "source"'],
    ],
  },
  toJunit: {
    valid: () => [findings, { file: 'faulty-3.1.yaml' }],
    options: ['file', 'source'],
    wrong: () => [
      [[{}, { file: 'a.yaml' }], 'toJunit: findings must be an array of lint findings (got {})'],
      [[findings, 'a.yaml'], 'toJunit: options must be an object (got "a.yaml")'],
      [[findings, { file: 3 }], "toJunit: file must be the linted spec's path (got 3)"],
    ],
  },
  baselineOf: {
    valid: () => [findings],
    options: [],
    wrong: () => [
      [[null], 'baselineOf: findings must be an array of lint findings (got null)'],
      [[[1]], 'baselineOf: findings[0] must be a lint finding ({rule, severity, pointer, message, fix, operations}) (got 1)'],
    ],
  },
  checkBaseline: {
    valid: () => [lint.baselineOf(findings), 'the baseline b.json'],
    options: [],
    wrong: () => [[[lint.baselineOf(findings), 42], 'checkBaseline: label must be a string naming where the baseline came from (got 42)']],
  },
  compareWithBaseline: {
    valid: () => [findings, lint.baselineOf(findings.slice(1))],
    options: [],
    wrong: () => [
      [['x', lint.baselineOf([])], 'compareWithBaseline: findings must be an array of lint findings (got "x")'],
      [[findings, null], 'compareWithBaseline: baseline must be a lint baseline, as baselineOf makes (it needs version 1 and a findings list (agent-errors lint --baseline writes one)) (got null)'],
      [[findings, { version: 1, findings: [{ rule: 'x' }] }], 'compareWithBaseline: baseline must be a lint baseline, as baselineOf makes (/findings/0 is {"rule":"x"}, not {rule, pointer, message}) (got {"version":1,"findings":[{"rule":"x"}]})'],
    ],
  },
  checkLintConfig: {
    valid: () => [{ rules: { 'error-code': 'off' } }, 'the config'],
    options: [],
    wrong: () => [[[{}, undefined], 'checkLintConfig: label must be a string naming where the config came from (got undefined)']],
  },
  readLintConfig: {
    valid: () => [configFile],
    options: [],
    wrong: () => [
      // A number would be read as the file descriptor it names.
      [[0], 'readLintConfig: path must be the path of a lint config file (JSON or YAML) (got 0)'],
      [[undefined], 'readLintConfig: path must be the path of a lint config file (JSON or YAML) (got undefined)'],
      [['lint\0.json'], 'readLintConfig: path must be the path of a lint config file (JSON or YAML) (got "lint\\u0000.json")'],
    ],
  },
  violations: {
    valid: () => [[{ name: 'busy', status: 429, headers: { 'retry-after': '30' }, body: { error: 'try again later' } }], { now: 0 }],
    options: ['now'],
    wrong: () => [
      [[null], 'violations: bodies must be a list of {name, status, headers, body} or a record of {status, headers, body} by name (got null)'],
      [['catalog'], 'violations: bodies must be a list of {name, status, headers, body} or a record of {status, headers, body} by name (got "catalog")'],
      [[3], 'violations: bodies must be a list of {name, status, headers, body} or a record of {status, headers, body} by name (got 3)'],
      [[{ busy: 'Service Unavailable' }], 'violations: bodies["busy"] must be an entry {name, status, headers, body} (got "Service Unavailable")'],
      [[[{ body: {} }, null]], 'violations: bodies[1] must be an entry {name, status, headers, body} (got null)'],
      [[[], { now: '2026-01-01' }], 'violations: now must be a time in milliseconds since the epoch, as Date.now() gives (got "2026-01-01")'],
      [[[], { now: Number.NaN }], 'violations: now must be a time in milliseconds since the epoch, as Date.now() gives (got NaN)'],
      [[[], { clock: 0 }], 'violations: unknown option "clock"; it takes "now"'],
    ],
  },
  diffCatalog: {
    valid: () => [CATALOG, CATALOG, { closedEnums: true }],
    options: ['closedEnums'],
    wrong: () => [
      [[null, CATALOG], 'diffCatalog: before must be a parsed error catalog (an object with a `codes` member, like schema/catalog.json) or a parsed OpenAPI 3.0/3.1 document (an object with an `openapi` member) (got null)'],
      [[CATALOG, 'schema/catalog.json'], 'diffCatalog: after must be a parsed error catalog (an object with a `codes` member, like schema/catalog.json) or a parsed OpenAPI 3.0/3.1 document (an object with an `openapi` member), parsed from its JSON or YAML (not its text or its path) (got "schema/catalog.json")'],
      [[CATALOG, CATALOG, { closedEnums: 'yes' }], 'diffCatalog: closedEnums must be true or false (got "yes")'],
      [[CATALOG, CATALOG, { closedEnum: true }], 'diffCatalog: unknown option "closedEnum" (did you mean "closedEnums"?)'],
    ],
  },
  formatDiff: {
    valid: () => [lint.diffCatalog(CATALOG, { codes: {} })],
    options: [],
    wrong: () => [
      [[null], 'formatDiff: result must be what diffCatalog returns ({breaking, nonBreaking}, two lists of changes) (got null)'],
      [[{ breaking: [] }], 'formatDiff: result must be what diffCatalog returns ({breaking, nonBreaking}, two lists of changes) (got {"breaking":[]})'],
      [[{ breaking: [{ rule: 'code-removed' }], nonBreaking: [] }], 'formatDiff: result.breaking[0] must be a change ({rule, pointer, message, fix}), as diffCatalog makes it (got {"rule":"code-removed"})'],
    ],
  },
  validateEnvelope: { valid: () => [{ error: {} }, { received: true }], options: ['received'], wrong: () => [] },
  validateProblem: { valid: () => [{ type: 'about:blank' }, { received: true }], options: ['received'], wrong: () => [] },
};

/** The functions whose documented usage error (a file, or a value read from one, that is wrong) is a LintInputError. */
const READS_CONTENT = new Set(['checkLintConfig', 'checkBaseline', 'readLintConfig']);

const call = (name: string, args: readonly unknown[]): unknown => (lint as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!(...args);

/** What a call did: returned (or resolved), or the error it threw (or rejected with). */
async function settle(name: string, args: readonly unknown[]): Promise<{ error?: unknown }> {
  try {
    await call(name, args);
    return {};
  } catch (error) {
    return { error };
  }
}

/** True for an object that a reader takes for an OpenAPI document: lintOpenApi's usage errors (a $ref, a Swagger 2.0 it cannot convert) may follow. */
const looksLikeOpenApi = (value: unknown): boolean => typeof value === 'object' && value !== null && (Object.hasOwn(value, 'openapi') || Object.hasOwn(value, 'swagger'));

/** Fails unless the outcome is a return or a TypeError whose message starts with the function's name (or a documented LintInputError). */
function expectRefusalOrResult(name: string, args: readonly unknown[], outcome: { error?: unknown }): void {
  if (!('error' in outcome)) return;
  const { error } = outcome;
  if (error instanceof LintInputError && (READS_CONTENT.has(name) || (name === 'lintOpenApi' && looksLikeOpenApi(args[0])))) return;
  expect(error, `${name}(${args.map((a) => typeof a).join(', ')})`).toBeInstanceOf(TypeError);
  expect((error as Error).message.startsWith(`${name}: `), (error as Error).message).toBe(true);
  expect(error).not.toHaveProperty('code'); // Node's internal errors carry one (ERR_INVALID_ARG_TYPE)
}

describe('the exports of @agent-index/errors/lint', () => {
  it('are the functions this file calls, and nothing else callable but LintInputError', () => {
    const functions = Object.entries(lint)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name)
      .sort();
    expect(functions).toEqual([...Object.keys(FUNCTIONS), 'LintInputError'].sort());
  });

  it.each(Object.keys(FUNCTIONS))('%s works with the arguments and every option it takes', async (name) => {
    const { valid, options } = FUNCTIONS[name]!;
    expect(await settle(name, valid())).toEqual({});
    const last = valid().at(-1);
    if (options.length > 0) expect(Object.keys(last as object).every((key) => options.includes(key))).toBe(true);
  });
});

describe('arguments and options of the wrong type', () => {
  const cases = Object.entries(FUNCTIONS).flatMap(([name, calls]) => calls.wrong().map(([args, message], i) => [`${name} #${i}`, name, args, message] as const));

  it.each(cases)('%s is refused with a TypeError naming the function and the argument', async (_, name, args, message) => {
    const { error } = await settle(name, args);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toEqual(message);
  });

  it('lintOpenApi reads a string as a file path, and a file that is not there is a usage error naming it', async () => {
    const { error } = await settle('lintOpenApi', [join(dir, 'missing.yaml')]);
    expect(error).toBeInstanceOf(LintInputError);
    expect((error as Error).message).toMatch(/^cannot read .*missing\.yaml/);
  });

  it('readLintConfig reads the file given, and a file that is not there is a usage error naming it', async () => {
    expect(await lint.readLintConfig(configFile)).toEqual({ rules: { 'error-code': 'warning' } });
    await expect(lint.readLintConfig(join(dir, 'missing.json'))).rejects.toThrow(/^cannot read the lint config .*missing\.json/);
  });
});

describe('whatever it is given', () => {
  // Strings are left out where the function reads them as a path: a random path is not for a test to read.
  // Bigints are left out: see the known failure below.
  const value = fc.anything({ withBigInt: true, withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withMap: true, withSet: true, withDate: true, withTypedArray: true });
  const notPath = (name: string, index: number): fc.Arbitrary<unknown> => ((name === 'lintOpenApi' || name === 'readLintConfig') && index === 0 ? value.filter((v) => typeof v !== 'string') : value);
  /** Options objects with known names and any values, which the random objects above rarely have. */
  const options = (names: readonly string[]): fc.Arbitrary<unknown> => fc.record(Object.fromEntries(names.map((n) => [n, value])), { requiredKeys: [] });

  it('keeps to the words of its own arguments for an object without a prototype', async () => {
    const bare = Object.assign(Object.create(null) as object, { colour: true });
    expect(() => lint.formatFindings(bare as never)).toThrow(/^formatFindings: findings must be an array of lint findings \(got \{"colour":true\}\)$/);
    // And with a bigint inside, which JSON cannot carry: the value is named by its kind.
    expect(() => lint.formatFindings(Object.assign(bare, { n: 1n }) as never)).toThrow('formatFindings: findings must be an array of lint findings (got [object Object])');
  });

  // quote() shows what neither JSON nor String can (a bigint inside an object without a prototype, or
  // with a toString that is no function) by its kind, so checkRules still speaks its own words.
  it.each([
    ['an object without a prototype', Object.assign(Object.create(null) as object, { n: 1n })],
    ['an object whose toString is no function', { toString: 1, n: 1n }],
  ])('refuses an option whose value is %s holding a bigint in its own words (src/core/refuse.ts quote())', (_, color) => {
    expect(() => lint.formatFindings([], { color } as never)).toThrow(/^formatFindings: color must be true or false/);
  });

  it.each(Object.keys(FUNCTIONS))('%s returns normally or throws a TypeError whose message starts with its name', async (name) => {
    const calls = FUNCTIONS[name]!;
    const arity = calls.valid().length;
    // Each argument in turn replaced by anything (the options also by known names with any values), and all of them at once.
    const one = fc
      .tuple(fc.nat(arity - 1), fc.boolean())
      .chain(([index, named]) =>
        (named && index === arity - 1 && calls.options.length > 0 ? options(calls.options) : notPath(name, index)).map((replacement) => {
          const args = calls.valid();
          args[index] = replacement;
          return args;
        }),
      );
    const all = fc.tuple(...Array.from({ length: arity }, (_, i) => notPath(name, i)));
    await fc.assert(
      fc.asyncProperty(fc.oneof(one, all), async (args) => {
        // A cwd of anything is a folder the lint resolves its $refs from: the document here has none to read.
        expectRefusalOrResult(name, args, await settle(name, args));
      }),
      { numRuns: name === 'lintOpenApi' ? 150 : 400 },
    );
  });
});
