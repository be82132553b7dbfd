// lintOpenApi as a team with an API that already exists adopts it (issue 28, items 1 to 3): its own
// error format, recognised or named in a config; one finding per place; severities, rules turned off,
// a baseline; the CI formats; Swagger 2.0, multi-file documents and $refs that lead nowhere; and the
// real published documents of test/fixtures/specs.
import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parseXml } from '@rgrove/parse-xml';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ERROR_FORMATS } from '../../generated/error-formats.js';
import { LINT_RULES } from '../../generated/lint-rules.js';
import { checkLintConfig } from '../../src/tools/lint-config.js';
import { baselineOf, checkBaseline, compareWithBaseline, toGithubAnnotations, toJunit } from '../../src/tools/lint-report.js';
import { formatFindings, lintOpenApi, LintInputError, type LintFinding } from '../../src/tools/lint.js';
import { specFile } from '../helpers/specs.js';
import { at } from '../helpers/pointer.js';
import { oneOperation } from '../helpers/openapi.js';

const run = promisify(execFile);
const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const LINT = here('../fixtures/lint/');
const CLI = here('../../src/tools/cli.ts');
const TSX = here('../../node_modules/.bin/tsx');
const pairs = (findings: readonly LintFinding[]): [string, string][] => findings.map((f) => [f.rule, f.pointer]);
const errors = (findings: readonly LintFinding[]): LintFinding[] => findings.filter((f) => f.severity === 'error');

/** A document whose one operation answers with `body` (its schema) under 400 and 500. */
const withBody = (schema: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> =>
  oneOperation({ '400': { description: 'bad', content: { 'application/json': { schema } } }, '500': { description: 'down', content: { 'application/json': { schema } } } }, { extra });

describe('a team’s own error format', () => {
  it('passes with the four fields at the top of the body beside its own members, and inside its error member beside type and doc_url', async () => {
    expect(await lintOpenApi(join(LINT, 'team/top-level.yaml'))).toEqual([]);
    expect(await lintOpenApi(join(LINT, 'team/error-member.yaml'))).toEqual([]);
  });

  it('recognises each format of ERROR_FORMATS by itself, and says what a body lacks in the words of its format, never "not the Envelope"', async () => {
    const google = { type: 'object', properties: { error: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' }, status: { type: 'string' }, details: { type: 'array' } } } } };
    const stripe = { type: 'object', properties: { error: { type: 'object', properties: { type: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, param: { type: 'string' } } } } };
    const rfc9457 = { type: 'object', properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, errors: { type: 'array' } } };
    const bare = { type: 'object', properties: { message: { type: 'string' } } };
    // google.rpc.Status and Stripe: their codes map to the catalog's, so they say what to do next.
    expect(await lintOpenApi(withBody(google))).toEqual([]);
    expect(await lintOpenApi(withBody(stripe))).toEqual([]);
    // Plain problem details: a type to branch on, but nothing says what to do next.
    expect(pairs(await lintOpenApi(withBody(rfc9457)))).toEqual([['error-retry', '/paths/~1a/get/responses/400/content/application~1json/schema'], ['error-retry', '/paths/~1a/get/responses/500/content/application~1json/schema']]);
    const found = await lintOpenApi(withBody({ $ref: '#/components/schemas/E' }, { components: { schemas: { E: bare } } }));
    expect(pairs(found)).toEqual([
      ['error-code', '/components/schemas/E'],
      ['error-retry', '/components/schemas/E'],
      ['fix-input-field', '/components/schemas/E'],
    ]);
    expect(found[0]!.message).toBe('the error body (top-level format) has no code member (/code, /error_code, /errorCode, /type, /reason): an agent cannot tell one error from another');
    for (const f of found) expect(f.message).not.toMatch(/Envelope|not a member/);
    expect(ERROR_FORMATS.map((f) => f.id)).toEqual(['envelope', 'problem', 'google', 'stripe', 'jsonapi', 'errors-list', 'error-member', 'top-level']);
  });

  it('takes codes that are all the catalog’s as saying what to do next, as fromResponse reads them', async () => {
    const schema = { type: 'object', properties: { code: { type: 'string', enum: ['rate_limited', 'not_found'] }, message: { type: 'string' }, field: { type: 'string' } } };
    expect(await lintOpenApi(withBody(schema))).toEqual([]);
    const own = { ...schema, properties: { ...schema.properties, code: { type: 'string', enum: ['rate_limited', 'sku_gone'] } } };
    expect(pairs(await lintOpenApi(withBody(own))).map(([rule]) => rule)).toEqual(['error-retry', 'error-retry']);
    expect(await lintOpenApi(withBody(own), { siteCodes: ['sku_gone'] })).toEqual([]);
  });

  it('reads the parts where the config (or the spec’s x-agent-errors) says, with retry words for the team’s own codes', async () => {
    const findings = await lintOpenApi(join(LINT, 'team/own-codes.yaml'));
    expect(pairs(findings)).toEqual([
      ['error-example-valid', '/components/responses/Error/content/application~1json/examples/archived/value'],
      ['error-retry', '/components/schemas/Error'],
    ]);
    expect(findings[1]!.message).toBe('the error body allows codes with no retry word in the config\'s retryByCode: "quota_gone"');
    expect(findings[1]!.operations).toEqual(['PUT /docs/{id}']);
    // The config option wins over the spec's member by member: a word for quota_gone clears that finding.
    const document = parseYaml(await readFile(join(LINT, 'team/own-codes.yaml'), 'utf8')) as Record<string, unknown>;
    const config = { retryByCode: { doc_locked: 'once', doc_missing: 'no', bad_title: 'fix_input', quota_gone: 'ask_human', archived: 'no' } } as const;
    expect(await lintOpenApi(document, { cwd: join(LINT, 'team'), config })).toEqual([]);
    // A format that names a member the body does not have is said in the config's words.
    const named = await lintOpenApi(withBody({ type: 'object', properties: { msg: { type: 'string' } } }), { config: { format: { code: '/kind', message: '/msg', retry: '/next' } } });
    expect(named.map((f) => f.message)).toContain("the error body has no /kind (where the lint config's format keeps the code): an agent cannot tell one error from another");
  });

  it('refuses a config that is wrong, naming each member at fault, and never throws anything else', async () => {
    const bad = { format: { code: 'error.code', colour: '/x' }, retryByCode: { a: 'later' }, rules: { 'error-code': 'loud', 'no-such-rule': 'off' }, extra: 1 };
    // As an option, a wrong config is an argument of the wrong type; in the spec's x-agent-errors, a usage error of the spec.
    await expect(lintOpenApi(withBody({}), { config: bad as never })).rejects.toThrow(/^lintOpenApi: config is not a valid lint config: .*\/format\/code must be a JSON pointer/);
    await expect(lintOpenApi(withBody({}), { config: bad as never })).rejects.toBeInstanceOf(TypeError);
    await expect(lintOpenApi(withBody({}, { 'x-agent-errors': bad }))).rejects.toThrow(LintInputError);
    await expect(lintOpenApi(withBody({}, { 'x-agent-errors': bad }))).rejects.toThrow(/^the spec's x-agent-errors is not a valid lint config: /);
    try {
      checkLintConfig(bad, 'the config');
    } catch (error) {
      const text = (error as Error).message;
      for (const part of ['/format/code must be a JSON pointer', '/format/colour is not a part', '/retryByCode/a must be a retry word', '/rules/error-code must be error, warning, off', '/rules/no-such-rule is not a lint rule', '/extra is not a config member']) expect(text).toContain(part);
    }
    fc.assert(
      fc.property(fc.anything(), (value) => {
        try {
          checkLintConfig(value, 'x');
        } catch (error) {
          expect(error).toBeInstanceOf(LintInputError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('adoption on a legacy spec', () => {
  it('gives each rule its severity, lets the config change it or turn it off, and fails only on errors', async () => {
    const file = join(LINT, 'faulty-3.1.yaml');
    const plain = await lintOpenApi(file);
    for (const f of plain) expect(f.severity).toBe(LINT_RULES.find((r) => r.id === f.rule)!.severity);
    const tuned = await lintOpenApi(file, { config: { rules: { 'error-responses-declared': 'error', 'retry-after-declared': 'warning', 'error-code': 'off' } } });
    expect(tuned.find((f) => f.rule === 'error-responses-declared')!.severity).toBe('error');
    expect(tuned.filter((f) => f.rule === 'retry-after-declared').map((f) => f.severity)).toEqual(['warning', 'warning']);
    expect(tuned.some((f) => f.rule === 'error-code')).toBe(false);
    expect(tuned).toHaveLength(plain.length - 1);
  });

  it('has an entry per rule in the docs, whose failing part fails that rule and whose fixed part does not, linted where the entry says it goes', async () => {
    const docs = await readFile(here('../../docs/tooling.md'), 'utf8');
    /** A document every rule passes: a team's own top-level format, and the envelope and problem shapes by their required members. */
    const base = (): Record<string, any> =>
      oneOperation(
        {
          '400': { description: 'Bad request', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
          default: { $ref: '#/components/responses/Error' },
        },
        {
          path: '/orders',
          method: 'post',
          extra: {
            components: {
              responses: { Error: { description: 'Any error', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } },
              schemas: {
                Error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' }, retry: { type: 'string' }, field: { type: 'string' } } },
                Envelope: { type: 'object', required: ['error'], properties: { error: { type: 'object', required: ['code', 'message', 'retry'], properties: { field: {}, retry_after: {} } } } },
                Problem: { type: 'object', required: ['type', 'title', 'status', 'code', 'retry'], properties: { next_step: {}, detail: {}, param: {} } },
              },
            },
          },
        },
      );
    const embed = (where: string, part: string): Record<string, any> => {
      const value = parseYaml(part) as Record<string, any>;
      const document = base();
      if (where === 'document') return value;
      if (where === 'operation') document.paths['/orders'].post = value;
      if (where === 'responses') Object.assign(document.paths['/orders'].post.responses, value);
      if (where === 'schemas') Object.assign(document.components.schemas, value);
      return document;
    };
    expect(await lintOpenApi(base(), { cwd: LINT })).toEqual([]);
    for (const rule of LINT_RULES) {
      expect(docs).toContain(`### \`${rule.id}\``);
      expect(docs).toContain(rule.bad);
      expect(docs).toContain(rule.good);
      const rules = async (part: string): Promise<string[]> => (await lintOpenApi(embed(rule.in, part), { cwd: LINT })).map((f) => f.rule);
      expect(await rules(rule.bad), `${rule.id}: its failing part`).toContain(rule.id);
      expect(await rules(rule.good), `${rule.id}: its fixed part`).not.toContain(rule.id);
    }
  });

  it('a baseline excuses today’s findings one for one, and only a new one is fresh', async () => {
    const findings = await lintOpenApi(join(LINT, 'faulty-3.1.yaml'));
    const baseline = checkBaseline(JSON.parse(JSON.stringify(baselineOf(findings))), 'b');
    expect(compareWithBaseline(findings, baseline)).toEqual({ fresh: [], known: findings, fixed: 0 });
    fc.assert(
      fc.property(fc.subarray(findings), fc.subarray(findings), (kept, added) => {
        const now = [...kept, ...added];
        const { fresh, known, fixed } = compareWithBaseline(now, baselineOf(kept));
        expect(known.length + fresh.length).toBe(now.length);
        expect(fresh.length).toBe(added.length);
        expect(fixed).toBe(0);
      }),
    );
    expect(() => checkBaseline({ version: 2, findings: [] }, 'the baseline b.json')).toThrow(/the baseline b\.json is not a lint baseline/);
    expect(() => checkBaseline({ version: 1, findings: [{ rule: 'x' }] }, 'b')).toThrow(/\/findings\/0/);
  });

  describe('the CLI on Stripe’s spec with a baseline', () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'lint-baseline-'));
      await copyFile(specFile('stripe/spec3.json'), join(dir, 'spec3.json'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });
    const cli = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
      try {
        const { stdout, stderr } = await run(TSX, [CLI, 'lint', ...args], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code: number; stdout: string; stderr: string };
        return { code: e.code, stdout: e.stdout, stderr: e.stderr };
      }
    };

    it('records today’s findings and passes, then fails only on a newly added bad response', async () => {
      const made = await cli('spec3.json', '--baseline', 'lint-baseline.json', '--config', 'strict.json').catch((e: unknown) => e as never);
      expect(made.code).toBe(2); // no such config file: a usage error, and nothing is written
      await writeFile(join(dir, 'strict.json'), JSON.stringify({ rules: { 'error-responses-declared': 'error' } }));
      const first = await cli('spec3.json', '--baseline', 'lint-baseline.json', '--config', 'strict.json');
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/^recorded \d+ findings in lint-baseline\.json; from now on only new findings fail\n$/);
      const again = await cli('spec3.json', '--baseline', 'lint-baseline.json', '--config', 'strict.json');
      expect(again.code).toBe(0);
      const spec = JSON.parse(await readFile(join(dir, 'spec3.json'), 'utf8')) as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      spec.paths['/v1/charges']!.post!.responses['429'] = { description: 'Too many requests.', content: { 'application/json': { schema: { $ref: '#/components/schemas/error' } } } };
      await writeFile(join(dir, 'spec3.json'), JSON.stringify(spec));
      const fresh = await cli('spec3.json', '--baseline', 'lint-baseline.json', '--config', 'strict.json', '--format', 'json');
      expect(fresh.code).toBe(1);
      expect(pairs(JSON.parse(fresh.stdout) as LintFinding[])).toEqual([['retry-after-declared', '/paths/~1v1~1charges/post/responses/429']]);
      // The new 429 also gives POST /v1/charges the 4xx it lacked: that finding of the baseline is fixed.
      expect(fresh.stderr).toBe(`${JSON.parse(await readFile(join(dir, 'lint-baseline.json'), 'utf8')).findings.length - 1} findings in the baseline lint-baseline.json left out; 1 of its findings no longer occur (--update-baseline drops them)\n`);
    });
  });
});

describe('CI formats', () => {
  it('prints one GitHub Actions workflow command per finding, with the line of its member, whatever the message holds', async () => {
    const file = join(LINT, 'faulty-3.1.yaml');
    const source = await readFile(file, 'utf8');
    const findings = await lintOpenApi(file);
    const lines = toGithubAnnotations(findings, { file: 'api/faulty-3.1.yaml', source }).split('\n').slice(0, -1);
    expect(lines).toHaveLength(findings.length);
    lines.forEach((line, i) => {
      const f = findings[i]!;
      expect(line).toMatch(new RegExp(`^::${f.severity} file=api/faulty-3\\.1\\.yaml,line=\\d+,col=\\d+,title=${f.rule} at .*::`));
      const lineNo = Number(/line=(\d+)/.exec(line)![1]);
      const last = f.pointer.slice(f.pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
      expect(source.split('\n')[lineNo - 1]).toContain(last);
    });
    fc.assert(
      fc.property(fc.string(), fc.string(), (message, pointer) => {
        const text = toGithubAnnotations([{ ...findings[0]!, message, pointer }], { file: 'a,b:c.yaml' });
        expect(text.split('\n')).toHaveLength(2);
        expect(text).toContain('file=a%2Cb%3Ac.yaml');
      }),
    );
  });

  it('writes JUnit XML that parses, with a failure per error and the warnings passed with their text', async () => {
    const findings = await lintOpenApi(join(LINT, 'faulty-3.1.yaml'));
    const doc = parseXml(toJunit(findings, { file: 'faulty-3.1.yaml' }));
    const suites = doc.root!;
    expect(suites.name).toBe('testsuites');
    expect(suites.attributes).toMatchObject({ tests: String(findings.length), failures: String(errors(findings).length) });
    expect(toJunit([], { file: 'x.yaml' })).toContain('<testcase classname="x.yaml" name="agent-errors lint"/>');
    fc.assert(
      fc.property(fc.string(), fc.string(), (message, file) => {
        expect(() => parseXml(toJunit([{ ...findings[0]!, message }], { file }))).not.toThrow();
      }),
    );
  });
});

describe('documents as they are', () => {
  it('reads Swagger 2.0 (Docker’s Engine API) and points every finding into the 2.0 document', async () => {
    const file = specFile('swagger2/swagger.yaml');
    const document = parseYaml(await readFile(file, 'utf8')) as unknown;
    const findings = await lintOpenApi(file);
    for (const f of findings) expect(at(document, f.pointer), `${f.rule} ${f.pointer}`).toBeDefined();
    const shared = findings.filter((f) => f.pointer === '/definitions/ErrorResponse');
    expect(shared.map((f) => f.rule)).toEqual(['error-code', 'error-retry', 'fix-input-field']);
    expect(shared[0]!.operations.length).toBeGreaterThan(90);
    // Docker's 503s (a swarm node that is not a manager) declare no Retry-After.
    expect(findings.filter((f) => f.rule === 'retry-after-declared').length).toBeGreaterThan(20);
    expect(findings.some((f) => f.rule === 'ref-unresolved' || f.rule === 'openapi-document')).toBe(false);
  });

  it('resolves a multi-file document’s relative $refs inside its folder (Redocly’s openapi-starter)', async () => {
    const findings = await lintOpenApi(specFile('multifile/openapi/openapi.yaml'));
    expect(findings.filter((f) => f.rule.startsWith('ref-'))).toEqual([]);
    // Its Problem schema keeps a type and a title but says nothing of what to do next.
    expect(findings.filter((f) => f.rule === 'error-retry').length).toBeGreaterThan(0);
    expect(await lintOpenApi(specFile('openapi31/webhook-example.yaml'))).toEqual([]);
  });

  it('reports each $ref that cannot be read or points to nothing once, at its place, and lints the rest', async () => {
    const findings = await lintOpenApi(join(LINT, 'broken/openapi.yaml'));
    expect(pairs(findings)).toEqual([
      ['ref-unresolved', '/paths/~1trips/get/responses/400/content/application~1problem+json/schema'],
      ['ref-unresolved', '/paths/~1trips/get/responses/404/content/application~1problem+json/schema'],
      ['retry-after-declared', '/paths/~1trips/get/responses/429'],
      ['ref-unresolved', '/x-topics/0/content'],
    ]);
    expect(findings[0]!.message).toBe('the $ref "#/components/schemas/Prblem" points to nothing: #/components/schemas/Prblem does not exist');
    expect(findings[1]!.message).toMatch(/^the \$ref "\.\/schemas\/not-yaml\.yaml" names schemas\/not-yaml\.yaml, which is not valid JSON or YAML: /);
    expect(findings[3]!.message).toBe('the $ref "./docs/getting-started.md" names docs/getting-started.md, which does not exist');
  });

  it('says a document without info is not valid OpenAPI, at its root, and lints the rest', async () => {
    const findings = await lintOpenApi(join(LINT, 'no-info.yaml'));
    expect(pairs(errors(findings))).toEqual([
      ['openapi-document', ''],
      ['retry-after-declared', '/paths/~1ping/get/responses/503'],
    ]);
    expect(findings[0]!.message).toBe('the document has no info member: OpenAPI requires info, with a title and a version');
  });
});

describe('the published specs of Stripe, GitHub and Cloudflare', () => {
  it('reads Stripe’s error object as a format that says what to do next: no error, one warning per operation without a 4xx', async () => {
    const findings = await lintOpenApi(specFile('stripe/spec3.json'));
    expect(errors(findings)).toEqual([]);
    expect(new Set(findings.map((f) => f.rule))).toEqual(new Set(['error-responses-declared']));
  });

  it('groups GitHub’s findings per schema: basic-error has no code, one finding listing its operations', async () => {
    const findings = await lintOpenApi(specFile('github/api.github.com.json'));
    const basic = findings.filter((f) => f.pointer === '/components/schemas/basic-error');
    expect(basic.map((f) => f.rule)).toEqual(['error-code', 'error-retry', 'fix-input-field']);
    expect(basic[0]!.operations.length).toBeGreaterThan(500);
    expect(findings.filter((f) => f.rule === 'error-code').length).toBeLessThan(60);
    // The findings an agent needs most: a 429 or 503 without Retry-After.
    expect(findings.filter((f) => f.rule === 'retry-after-declared').length).toBeGreaterThan(0);
    for (const f of findings) expect(f.message).not.toMatch(/not the Envelope|is not a member of this body/);
    expect(formatFindings(basic)).toContain(`used by ${basic[0]!.operations.length} operations: `);
  });

  it('reads Cloudflare’s errors list, and puts a schema shared through allOf under the component that holds the code', async () => {
    const findings = await lintOpenApi(specFile('cloudflare/openapi.json'));
    // GET /accounts answers 4XX with an inline allOf of two $refs; the finding is on the component.
    expect(findings.some((f) => f.pointer.startsWith('/paths/~1accounts/get/responses/4XX'))).toBe(false);
    const shared = findings.filter((f) => f.rule === 'error-retry' && f.operations.includes('GET /accounts'));
    expect(shared.map((f) => f.pointer)).toEqual(['/components/schemas/iam_response_collection']);
    expect(shared[0]!.message).toContain('(errors-list format)');
    expect(shared[0]!.operations.length).toBeGreaterThan(5);
  });
});
