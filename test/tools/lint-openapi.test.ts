import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { LINT_RULES } from '../../generated/lint-rules.js';
import { formatFindings, lintOpenApi, LintInputError, type LintFinding } from '../../src/tools/lint.js';
import { at } from '../helpers/pointer.js';
import { oneOperation } from '../helpers/openapi.js';

const here = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));
const FIXTURES = here('../fixtures/lint/');
const fixture = (name: string): string => join(FIXTURES, name);
const GENERATED = here('../../generated/');

/** The seeded faults of faulty-3.1.yaml (listed in its header comment), as lintOpenApi sorts them. */
const FAULTS: readonly (readonly [string, string])[] = [
  ['example-code-known', '/components/responses/NotFoundLocal/content/application~1json/example'],
  ['error-responses-declared', '/paths/~1orders/get/responses'],
  ['error-code', '/paths/~1orders/post/responses/400/content/application~1json/schema'],
  ['error-retry', '/paths/~1orders/post/responses/400/content/application~1json/schema'],
  ['fix-input-field', '/paths/~1orders/post/responses/400/content/application~1json/schema'],
  ['retry-after-declared', '/paths/~1orders/post/responses/429'],
  ['error-example-valid', '/paths/~1orders/post/responses/429/content/application~1json/example'],
  ['retry-after-declared', '/paths/~1orders/post/responses/503'],
  ['error-example-review', '/paths/~1orders~1{id}/get/responses/403/content/application~1problem+json/examples/busy/value'],
  ['example-status-matches', '/paths/~1orders~1{id}/get/responses/409/content/application~1json/examples/gone'],
];

const pairs = (findings: readonly LintFinding[]): [string, string][] => findings.map((f) => [f.rule, f.pointer]);
const loadYaml = async (name: string): Promise<Record<string, unknown>> => parseYaml(await readFile(fixture(name), 'utf8')) as Record<string, unknown>;

/** A minimal OpenAPI 3.1 document around one operation's responses, with $refs resolving from the fixtures. */
const withResponses = (responses: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> => oneOperation(responses, { path: '/things', extra });
const GEN = '../../../generated/openapi.json#/components';
const generated = (name: string): { $ref: string } => ({ $ref: `${GEN}/responses/${name}` });
const ENVELOPE = { $ref: `${GEN}/schemas/Envelope` };
const PROBLEM = { $ref: `${GEN}/schemas/Problem` };
const lintObject = (document: object, siteCodes?: string[]): Promise<LintFinding[]> => lintOpenApi(document, { cwd: FIXTURES, ...(siteCodes ? { siteCodes } : {}) });

describe('lintOpenApi on clean specs', () => {
  it('finds nothing in a 3.1 spec that $refs the generated components by relative path', async () => {
    expect(await lintOpenApi(fixture('clean-3.1.yaml'))).toEqual([]);
  });

  it('finds nothing in a 3.0 spec that $refs the 3.0 components by relative path', async () => {
    expect(await lintOpenApi(fixture('clean-3.0.yaml'))).toEqual([]);
  });

  describe('a spec that $refs the components through node_modules (in a directory whose name needs escaping in a URL)', () => {
    let dir = '';
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'lint openapi #1 '));
      await copyFile(fixture('clean-node-modules.yaml'), join(dir, 'openapi.yaml'));
      await mkdir(join(dir, 'node_modules', '@agent-index', 'errors'), { recursive: true });
      await symlink(GENERATED, join(dir, 'node_modules', '@agent-index', 'errors', 'generated'), 'dir');
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it('finds nothing when given the file path', async () => {
      expect(await lintOpenApi(join(dir, 'openapi.yaml'))).toEqual([]);
    });

    it('finds nothing when given a path relative to the cwd option', async () => {
      expect(await lintOpenApi('openapi.yaml', { cwd: dir })).toEqual([]);
    });

    it('finds nothing when given the parsed document with the cwd option', async () => {
      const document = parseYaml(await readFile(join(dir, 'openapi.yaml'), 'utf8')) as object;
      expect(await lintOpenApi(document, { cwd: dir })).toEqual([]);
    });
  });
});

describe('lintOpenApi on a spec with seeded faults', () => {
  it('finds exactly the seeded faults of the 3.1 YAML spec, by rule and pointer', async () => {
    expect(pairs(await lintOpenApi(fixture('faulty-3.1.yaml')))).toEqual(FAULTS);
  });

  it('finds exactly the same faults in the 3.0 spec', async () => {
    expect(pairs(await lintOpenApi(fixture('faulty-3.0.yaml')))).toEqual(FAULTS);
  });

  it('reads a JSON spec and finds the same findings as in the YAML one', async () => {
    const yaml = await lintOpenApi(fixture('faulty-3.1.yaml'));
    expect(await lintOpenApi(fixture('faulty-3.1.json'))).toEqual(yaml);
  });

  it('lints a parsed document, resolving its $refs from the cwd option, as it lints the file', async () => {
    const document = await loadYaml('faulty-3.1.yaml');
    expect(await lintObject(document)).toEqual(await lintOpenApi(fixture('faulty-3.1.yaml')));
  });

  it('gives every finding the fix of its rule from LINT_RULES and a message of its own', async () => {
    for (const f of await lintOpenApi(fixture('faulty-3.1.yaml'))) {
      expect(f.fix).toBe(LINT_RULES.find((r) => r.id === f.rule)!.fix);
      expect(f.message).not.toBe('');
      expect(LINT_RULES.map((r) => r.summary)).not.toContain(f.message);
    }
  });

  it('points every finding at a member of the document as written, before any $ref is followed', async () => {
    const document = await loadYaml('faulty-3.1.yaml');
    for (const f of await lintOpenApi(fixture('faulty-3.1.yaml'))) expect(at(document, f.pointer), f.pointer).toBeDefined();
  });

  it('points at the $ref site for a fault in another file, and says in the message where in that file', async () => {
    const found = (await lintOpenApi(fixture('faulty-3.1.yaml'))).find((f) => f.rule === 'example-status-matches')!;
    expect(found.pointer).toBe('/paths/~1orders~1{id}/get/responses/409/content/application~1json/examples/gone');
    expect(found.message).toContain('"not_found"');
    expect(found.message).toContain('../../../generated/openapi.json#/components/examples/not_found_envelope/value');
  });

  it('names the validator issue of an invalid example and the violations rule of a reviewed one', async () => {
    const findings = await lintOpenApi(fixture('faulty-3.1.yaml'));
    expect(findings.find((f) => f.rule === 'error-example-valid')!.message).toContain('/error/retry_after');
    expect(findings.find((f) => f.rule === 'error-example-review')!.message).toContain('promise-without-delay');
  });

  it('leaves the parsed document it is given as it was', async () => {
    const document = await loadYaml('faulty-3.1.yaml');
    const before = structuredClone(document);
    await lintObject(document);
    expect(document).toEqual(before);
  });

  it('accepts a site code declared with siteCodes', async () => {
    const findings = await lintOpenApi(fixture('faulty-3.1.yaml'), { siteCodes: ['order_missing'] });
    expect(pairs(findings)).toEqual(FAULTS.filter(([rule]) => rule !== 'example-code-known'));
  });
});

describe('lintOpenApi rule by rule', () => {
  it('asks an operation for a 4xx and for a 5xx or default, and accepts the 4XX and 5XX ranges', async () => {
    const doc = (responses: Record<string, unknown>) => withResponses(responses);
    const rules = async (responses: Record<string, unknown>) => pairs(await lintObject(doc(responses)));
    expect(await rules({})).toEqual([['error-responses-declared', '/paths/~1things/get/responses']]);
    const [missing] = await lintObject(doc({}));
    expect(missing!.message).toBe('the operation declares no 4xx response, and no 5xx response and no default');
    expect(missing!.operations).toEqual(['GET /things']);
    expect(missing!.severity).toBe('warning');
    expect(await rules({ '404': generated('NotFound') })).toEqual([['error-responses-declared', '/paths/~1things/get/responses']]);
    expect(await rules({ '404': generated('NotFound'), default: generated('InternalServerError') })).toEqual([]);
    expect(await rules({ '4XX': generated('BadRequest'), '5XX': generated('InternalServerError') })).toEqual([]);
  });

  it('reports an operation with no responses at the operation', async () => {
    const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { post: { summary: 'no responses' } } } };
    expect(pairs(await lintObject(document))).toEqual([['error-responses-declared', '/paths/~1a/post']]);
  });

  it('finds Retry-After whatever the case of its name, through a $ref to a header', async () => {
    const body = { content: { 'application/json': { schema: ENVELOPE } } };
    const document = withResponses(
      {
        '404': generated('NotFound'),
        '429': { description: 'slow', headers: { 'retry-after': { $ref: '#/components/headers/Wait' } }, ...body },
        '503': { $ref: '#/components/responses/Down' },
      },
      {
        components: {
          headers: { Wait: { schema: { type: 'integer' } } },
          responses: { Down: { description: 'down', headers: { 'RETRY-AFTER': { schema: { type: 'integer' } } }, ...body } },
        },
      },
    );
    expect(await lintObject(document)).toEqual([]);
  });

  it('reports a 429 or 503 without Retry-After at the response, inside a component when the response is one', async () => {
    const body = { content: { 'application/json': { schema: ENVELOPE } } };
    const document = withResponses(
      { '404': generated('NotFound'), '429': { $ref: '#/components/responses/Busy' }, '503': { description: 'down', ...body } },
      { components: { responses: { Busy: { description: 'busy', ...body } } } },
    );
    expect(pairs(await lintObject(document))).toEqual([
      ['retry-after-declared', '/components/responses/Busy'],
      ['retry-after-declared', '/paths/~1things/get/responses/503'],
    ]);
  });

  it('reports a shared component once, however many operations use it', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 300; i += 1) {
      paths[`/things/${i}`] = { get: { responses: { '404': generated('NotFound'), '429': { $ref: '#/components/responses/Busy' }, '500': generated('InternalServerError') } } };
    }
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths,
      components: { responses: { Busy: { description: 'busy', content: { 'application/json': { schema: ENVELOPE } } } } },
    };
    expect(pairs(await lintObject(document))).toEqual([['retry-after-declared', '/components/responses/Busy']]);
  });

  it('repeats a fault of a response in another file at each $ref site that reaches it', async () => {
    const local = { $ref: 'faulty-3.1.yaml#/components/responses/NotFoundLocal' };
    const operation = { responses: { '404': local, default: generated('InternalServerError') } };
    const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: { '/a': { get: operation }, '/b': { get: operation } } };
    const findings = await lintObject(document);
    expect(pairs(findings)).toEqual([
      ['example-code-known', '/paths/~1a/get/responses/404'],
      ['example-code-known', '/paths/~1b/get/responses/404'],
    ]);
    for (const f of findings) expect(f.message).toContain('(in faulty-3.1.yaml#/components/responses/NotFoundLocal/content/application~1json/example)');
  });

  it('reads any JSON media type, and asks every error response for a JSON body with a schema', async () => {
    const document = withResponses({
      '400': { description: 'a', content: { 'application/*': { schema: ENVELOPE } } },
      '404': { description: 'b', content: { 'application/vnd.api+json': { schema: ENVELOPE }, '*/*': { schema: ENVELOPE } } },
      '409': { description: 'c', content: { 'text/html': {} } },
      '410': { description: 'd', content: { 'application/json': {} } },
      '500': { description: 'no body' },
    });
    const findings = await lintObject(document);
    expect(pairs(findings)).toEqual([
      ['error-body-readable', '/paths/~1things/get/responses/400/content'],
      ['error-body-readable', '/paths/~1things/get/responses/409/content'],
      ['error-body-readable', '/paths/~1things/get/responses/410/content/application~1json'],
      ['error-body-readable', '/paths/~1things/get/responses/500'],
    ]);
    expect(findings[1]!.message).toBe('the 409 response declares only text/html: an agent reads no code from it');
    expect(findings[3]!.message).toBe('the 500 response declares no body: an agent reads no code from it');
  });

  it('reads the format from the schema, whatever the media type: the parts it requires count as much as the parts it describes', async () => {
    const envelopeByShape = {
      type: 'object',
      required: ['error'],
      properties: { error: { allOf: [{ type: 'object', required: ['code', 'message'] }, { required: ['retry'] }] } },
    };
    const problemByShape = { allOf: [{ required: ['type', 'title', 'status'] }, { required: ['code', 'next_step'] }] };
    const ok = withResponses({
      '400': {
        description: 'a',
        content: {
          'application/json; charset=utf-8': { schema: { ...envelopeByShape, properties: { error: { ...envelopeByShape.properties.error, properties: { field: { type: 'string' } } } } } },
          'application/problem+json': { schema: { ...problemByShape, properties: { param: { type: 'string' } } } },
        },
      },
      '404': { description: 'b', content: { 'application/json': { schema: PROBLEM }, 'application/problem+json': { schema: envelopeByShape } } },
      default: generated('InternalServerError'),
    });
    expect(await lintObject(ok)).toEqual([]);
  });

  it('checks the examples under a default response but not their status', async () => {
    const document = withResponses({
      '400': generated('BadRequest'),
      default: {
        description: 'any error',
        content: { 'application/json': { schema: ENVELOPE, examples: { gone: { $ref: `${GEN}/examples/not_found_envelope` }, odd: { value: { error: 'x' } } } } },
      },
    });
    expect(pairs(await lintObject(document))).toEqual([['error-example-valid', '/paths/~1things/get/responses/default/content/application~1json/examples/odd/value']]);
  });

  it('checks a problem example of a site code against the status it sits under', async () => {
    const problem = { type: 'https://x.example/p/order_locked', title: 'Locked', status: 423, code: 'order_locked', next_step: 'give_up' };
    const document = withResponses({ '409': { description: 'c', content: { 'application/problem+json': { schema: PROBLEM, example: problem } } }, default: generated('InternalServerError') });
    const findings = await lintObject(document, ['order_locked']);
    expect(pairs(findings)).toEqual([['error-example-valid', '/paths/~1things/get/responses/409/content/application~1problem+json/example']]);
    expect(findings[0]!.message).toContain('423');
  });

  it('checks an example against the Retry-After example its response declares', async () => {
    const document = await loadYaml('clean-3.1.yaml');
    const components = document.components as { headers: { RetryAfter120: { example: number } } };
    components.headers.RetryAfter120.example = 60;
    const findings = await lintObject(document);
    expect(pairs(findings)).toEqual([
      ['error-example-review', '/paths/~1orders/post/responses/503/content/application~1json/example'],
      ['error-example-review', '/paths/~1orders/post/responses/503/content/application~1problem+json/examples/maintenance/value'],
    ]);
    for (const f of findings) expect(f.message).toMatch(/Retry-After "60" asks for 60 s.*\(retry-after-disagrees\)$/);
  });

  it('reports a review finding of a valid example that the validators cannot see', async () => {
    // A site code whose next step is fix_request and that names no param: valid, but violations() flags it.
    const problem = { type: 'https://x.example/p/bad_sku', title: 'Bad SKU', status: 400, code: 'bad_sku', next_step: 'fix_request' };
    const document = withResponses({ '400': { description: 'b', content: { 'application/problem+json': { schema: PROBLEM, example: problem } } }, default: generated('InternalServerError') });
    const findings = await lintObject(document, ['bad_sku']);
    expect(pairs(findings)).toEqual([['error-example-review', '/paths/~1things/get/responses/400/content/application~1problem+json/example']]);
    expect(findings[0]!.message).toContain('(fix-without-param)');
  });
});

describe('lintOpenApi reading files, and its usage errors', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lint-openapi-usage-'));
    await writeFile(join(dir, 'broken.yaml'), 'openapi: 3.1.0\npaths: {\n  /a: [\n');
    await writeFile(join(dir, 'broken.json'), '{"openapi": "3.1.0",');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const rejects = async (promise: Promise<unknown>, pattern: RegExp): Promise<void> => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LintInputError);
    expect((error as Error).message).toMatch(pattern);
  };

  it('reads the YAML merge keys a spec uses to share responses', async () => {
    const text = [
      'openapi: 3.1.0',
      'info: { title: t, version: "1" }',
      'x-busy: &busy',
      '  description: busy',
      `  content: { application/json: { schema: { $ref: "${join(GENERATED, 'openapi.json')}#/components/schemas/Envelope" } } }`,
      'paths:',
      '  /a:',
      '    get:',
      '      responses:',
      '        "429": { <<: *busy, headers: { Retry-After: { schema: { type: integer } } } }',
      '        "503": *busy',
    ].join('\n');
    await writeFile(join(dir, 'merge.yaml'), text);
    expect(pairs(await lintOpenApi(join(dir, 'merge.yaml')))).toEqual([['retry-after-declared', '/paths/~1a/get/responses/503']]);
  });

  it('refuses a file of another OpenAPI or Swagger version, or of no OpenAPI, as a usage error naming the file', async () => {
    const file = async (name: string, text: string): Promise<string> => {
      await writeFile(join(dir, name), text);
      return join(dir, name);
    };
    await rejects(lintOpenApi(await file('swagger12.yaml', 'swagger: "1.2"\npaths: {}\n')), /swagger12\.yaml declares swagger "1\.2"; only Swagger 2\.0 and OpenAPI 3\.0 and 3\.1 are read/);
    await rejects(lintOpenApi(await file('openapi32.json', '{"openapi": "3.2.0", "paths": {}}')), /openapi32\.json declares openapi "3\.2\.0"; only OpenAPI 3\.0\.x and 3\.1\.x \(and Swagger 2\.0\) are read/);
    await rejects(lintOpenApi(await file('list.yaml', '- openapi: 3.1.0\n')), /list\.yaml is not an OpenAPI document: it is an array/);
  });

  it('refuses a document object of another version, or that is no OpenAPI document, with a TypeError naming lintOpenApi and its input', async () => {
    const refused = async (input: unknown, pattern: RegExp): Promise<void> => {
      const error = await lintOpenApi(input as object).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(pattern);
    };
    await refused({ swagger: '1.2', paths: {} }, /^lintOpenApi: input declares swagger "1\.2"; only Swagger 2\.0 and OpenAPI 3\.0 and 3\.1 are read$/);
    await refused({ openapi: '3.2.0', paths: {} }, /^lintOpenApi: input declares openapi "3\.2\.0"; only OpenAPI 3\.0\.x and 3\.1\.x \(and Swagger 2\.0\) are read$/);
    await refused({ info: {} }, /^lintOpenApi: input is not an OpenAPI document: it has neither an openapi nor a swagger member$/);
    await refused([], /^lintOpenApi: input is not an OpenAPI document: it is an array, not an object$/);
    await refused(42, /^lintOpenApi: input must be a file path or a parsed OpenAPI document object \(got 42\)$/);
    await refused(null, /^lintOpenApi: input must be a file path or a parsed OpenAPI document object \(got null\)$/);
    await refused('', /^lintOpenApi: input must be a file path or a parsed OpenAPI document object \(got ""\)$/);
    await refused('a\0b.yaml', /^lintOpenApi: input must be a file path /);
  });

  it('refuses a file it cannot read or parse, naming the file', async () => {
    await rejects(lintOpenApi(join(dir, 'missing.yaml')), /cannot read .*missing\.yaml/);
    await rejects(lintOpenApi(join(dir, 'broken.yaml')), /broken\.yaml is not valid YAML/);
    await rejects(lintOpenApi(join(dir, 'broken.json')), /broken\.json is not valid JSON/);
  });

  it('reports a $ref to a missing file, to nothing or in a loop as one ref-unresolved finding at its place, and lints the rest', async () => {
    const unresolved = async (responses: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<LintFinding[]> =>
      (await lintObject(withResponses({ ...responses, '429': { description: 'no Retry-After', content: { 'application/json': { schema: ENVELOPE } } } }, extra))).filter(
        (f) => f.rule !== 'error-responses-declared',
      );
    const missing = await unresolved({ '404': { $ref: './nowhere.json#/x' } });
    expect(pairs(missing)).toEqual([
      ['ref-unresolved', '/paths/~1things/get/responses/404'],
      ['retry-after-declared', '/paths/~1things/get/responses/429'],
    ]);
    expect(missing[0]!.message).toBe('the $ref "./nowhere.json#/x" names nowhere.json, which does not exist');
    const nothing = await unresolved({ '404': generated('EnhanceYourCalm') });
    expect(nothing[0]!.message).toMatch(/^the \$ref ".*EnhanceYourCalm" points to nothing: .*generated\/openapi.json#\/components\/responses\/EnhanceYourCalm does not exist$/);
    const selfLoop = await unresolved({ '404': { $ref: '#/components/responses/A' } }, { components: { responses: { A: { $ref: '#/components/responses/A' } } } });
    expect(selfLoop[0]!.message).toMatch(/is circular$/);
    // A loop through $refs met on the way to a target (A/x goes through B, B/x through A).
    const loop = { responses: { A: { $ref: '#/components/responses/B/x' }, B: { $ref: '#/components/responses/A/x' } } };
    expect((await unresolved({ '404': { $ref: '#/components/responses/A/x' } }, { components: loop }))[0]!.rule).toBe('ref-unresolved');
  });
});

describe('lintOpenApi on arbitrary documents', () => {
  const KEYS = ['get', 'post', 'head', 'responses', '200', '404', '429', '503', '4XX', 'default', 'headers', 'Retry-After', 'content', 'application/json', 'application/problem+json', 'text/html', 'schema', 'example', 'examples', 'value', 'required', 'properties', 'allOf', 'error', 'code', 'status', 'retry'];
  // $ref is left out: a $ref that leads nowhere is a usage error (LintInputError) by design.
  const key = fc.oneof(fc.constantFrom(...KEYS), fc.string({ maxLength: 6 }).filter((k) => k !== '$ref'));
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.string({ maxLength: 8 }),
      fc.constantFrom(...KEYS, 'not_found', 'rate_limited', 'after_delay', 'try again later'),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  }));
  const paths = fc.dictionary(fc.oneof(fc.constantFrom('/a', '/b/{id}', 'x-ext'), key), value, { maxKeys: 4 });

  it('never throws on an object with openapi 3.1.0 and random paths', async () => {
    await fc.assert(
      fc.asyncProperty(paths, async (randomPaths) => {
        const findings = await lintOpenApi({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: randomPaths }, { cwd: FIXTURES });
        for (const f of findings) expect(LINT_RULES.map((r) => r.id)).toContain(f.rule);
      }),
      { numRuns: 300 },
    );
  });
});

describe('formatFindings', () => {
  it('prints one line per finding, the operations that use its place and its fix indented below, and a summary', async () => {
    const findings = await lintOpenApi(fixture('faulty-3.1.yaml'));
    const lines = formatFindings(findings).split('\n');
    expect(lines).toHaveLength(findings.length * 3 + 2);
    expect(lines[0]).toBe(`${findings[0]!.pointer}  ${findings[0]!.severity} ${findings[0]!.rule}  ${findings[0]!.message}`);
    expect(lines[1]).toBe('    used by GET /orders/{id}');
    expect(lines[2]).toBe(`    fix: ${findings[0]!.fix}`);
    expect(lines.at(-1)).toBe(
      '8 errors, 2 warnings: 1 error-responses-declared, 1 error-code, 1 error-retry, 1 fix-input-field, 2 retry-after-declared, 1 error-example-valid, 1 error-example-review, 1 example-code-known, 1 example-status-matches',
    );
  });

  it('says so when there is nothing to report, and colours only when asked', () => {
    expect(formatFindings([])).toBe(`No findings: the document passes all ${LINT_RULES.length} rules.`);
    expect(formatFindings([])).not.toContain('\u001b[');
    expect(formatFindings([], { color: true })).toContain('\u001b[');
  });
});
