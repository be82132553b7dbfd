// The generated OpenAPI components (generated/openapi.json, 3.1, and generated/openapi-3.0.json,
// 3.0.3) checked with real tools: @readme/openapi-parser validates them and the fixture specs under
// test/fixtures/openapi/ that $ref them by relative path, and openapi-typescript turns the fixtures
// into types that must compile under strict TypeScript.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileErrors, dereference, validate, type ValidationResult } from '@readme/openapi-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPIV3, OpenAPIV3_1 } from 'openapi-types';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const file = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url));

type Document = OpenAPIV3.Document | OpenAPIV3_1.Document;

/** The two generated documents with the fixture spec that $refs each one. */
const VERSIONS = [
  { version: '3.1.0', generated: 'generated/openapi.json', fixture: 'test/fixtures/openapi/api-3.1.json' },
  { version: '3.0.3', generated: 'generated/openapi-3.0.json', fixture: 'test/fixtures/openapi/api-3.0.json' },
] as const;

const MISSING_REF_FIXTURE = 'test/fixtures/openapi/api-3.1-missing-ref.json';

async function readDocument(relative: string): Promise<Document> {
  return JSON.parse(await readFile(file(relative), 'utf8')) as Document;
}

/** The validator's own report, so a failing assertion shows what it found and where. */
function report(result: ValidationResult): string {
  return result.valid && result.warnings.length === 0 ? '' : compileErrors(result);
}

/** The value at a path of keys inside a parsed document; a missing step fails with the path so far. */
function at(value: unknown, ...keys: string[]): unknown {
  let here = value;
  for (const [i, key] of keys.entries()) {
    if (here === null || typeof here !== 'object' || !(key in here)) {
      throw new Error(`nothing at ${keys.slice(0, i + 1).join(' > ')}`);
    }
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** The response component of a parsed generated document, for breaking a copy of it. */
function responseOf(doc: Document, name: string): Record<string, unknown> {
  return at(doc, 'components', 'responses', name) as Record<string, unknown>;
}

describe('the generated OpenAPI documents', () => {
  for (const { version, generated } of VERSIONS) {
    it(`${generated} is a valid OpenAPI ${version} document`, async () => {
      const doc = await readDocument(generated);
      expect(doc.openapi).toBe(version);
      const result = await validate(file(generated));
      expect(result.valid, report(result)).toBe(true);
      expect(result.specification).toBe('OpenAPI');
      expect(result.warnings, report(result)).toEqual([]);
    });

    it(`a copy of ${generated} whose TooManyRequests response has no description does not validate`, async () => {
      const doc = await readDocument(generated);
      expect(responseOf(doc, 'TooManyRequests')).toHaveProperty('description');
      delete responseOf(doc, 'TooManyRequests').description;
      const result = await validate(doc);
      expect(result.valid).toBe(false);
      expect(report(result)).toMatch(/must have required property 'description'/);
    });
  }

  it('a copy of the 3.0 document whose schema uses the 3.1-only keyword const does not validate', async () => {
    const doc = await readDocument('generated/openapi-3.0.json');
    (at(doc, 'components', 'schemas', 'Code') as Record<string, unknown>).const = 'rate_limited';
    const result = await validate(doc);
    expect(result.valid).toBe(false);
    expect(report(result)).toMatch(/const is not expected/);
  });
});

describe('a user spec that $refs the generated components by relative path', () => {
  for (const { version, generated, fixture } of VERSIONS) {
    it(`the ${version} fixture validates with its $refs resolved relative to its own file`, async () => {
      const raw = await readFile(file(fixture), 'utf8');
      // The fixture really does lean on the generated document through a relative path.
      expect(raw).toContain(`"../../../${generated}#/components/responses/TooManyRequests"`);
      const result = await validate(file(fixture));
      expect(result.valid, report(result)).toBe(true);
      expect(result.warnings, report(result)).toEqual([]);
    });
  }

  it('a fixture whose $ref names a response the generated document does not declare does not validate', async () => {
    const result = await validate(file(MISSING_REF_FIXTURE));
    expect(result.valid).toBe(false);
    expect(report(result)).toMatch(/EnhanceYourCalm/);
  });

  for (const { version, generated, fixture } of VERSIONS) {
    it(`dereferencing the ${version} fixture puts the Envelope schema under the 429 application/json content and a required Retry-After header on the 429 response`, async () => {
      const spec = await dereference(file(fixture));
      const components = await dereference(file(generated));
      const envelope = at(components, 'components', 'schemas', 'Envelope');
      expect(envelope).toMatchObject({ title: 'Envelope', type: 'object', required: ['error'] });

      for (const [path, method] of [
        ['/orders/{id}', 'get'],
        ['/orders', 'post'],
      ] as const) {
        const tooMany = at(spec, 'paths', path, method, 'responses', '429');
        expect(at(tooMany, 'description')).toMatch(/^429 Too Many Requests: .*rate_limited/);
        expect(at(tooMany, 'content', 'application/json', 'schema')).toEqual(envelope);
        expect(at(tooMany, 'content', 'application/json', 'schema', 'properties', 'error', 'properties')).toHaveProperty('retry_after');
        expect(at(tooMany, 'content', 'application/problem+json', 'schema')).toEqual(at(components, 'components', 'schemas', 'Problem'));
        expect(at(tooMany, 'headers', 'Retry-After')).toMatchObject({ required: true, schema: { type: 'integer', minimum: 0 } });
        // The generated document's own #/components/examples refs resolve inside it, not in the fixture.
        expect(at(tooMany, 'content', 'application/json', 'examples', 'rate_limited', 'value', 'error')).toMatchObject({
          code: 'rate_limited',
          retry: 'after_delay',
        });
      }
    });
  }
});

/** A file that uses the generated types: it compiles only if they say what the components say. */
const USAGE = `import type { components, operations, paths } from './api.js';

type RateLimited = paths['/orders/{id}']['get']['responses'][429];
type EnvelopeBody = RateLimited['content']['application/json'];

export const body: EnvelopeBody = {
  error: { code: 'rate_limited', message: 'Too many requests.', field: null, retry: 'after_delay', retry_after: 30 },
};
export const retryAfter: RateLimited['headers']['Retry-After'] = 30;
export const problem: operations['createOrder']['responses'][429]['content']['application/problem+json'] = {
  type: 'https://example.com/problems/rate_limited',
  title: 'Too many requests',
  status: 429,
  code: 'rate_limited',
  next_step: 'wait',
  retry: 'after_delay',
  retry_after_seconds: 30,
};
export const sameEnvelope: components['schemas']['Envelope'] = body;
// A 404 may come without Retry-After: the header is optional there and required on a 429.
export const notFoundHeaders: paths['/orders/{id}']['get']['responses'][404]['headers'] = {};

// The types are not any or unknown: each line below must be an error.
// @ts-expect-error retry is a RetryWord, not any string.
export const badRetry: EnvelopeBody = { error: { ...body.error, retry: 'later' } };
// @ts-expect-error retry_after is a number or null.
export const badDelay: EnvelopeBody['error']['retry_after'] = '30';
// @ts-expect-error the envelope has no member beside error.
export const extraMember: EnvelopeBody = { error: body.error, detail: 'x' };
// @ts-expect-error the envelope's error is required.
export const noError: EnvelopeBody = {};
`;

describe('openapi-typescript on the fixture specs', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agent-errors-openapi-ts-'));
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const { version, fixture } of VERSIONS) {
    it(`the ${version} fixture becomes types that compile under strict TypeScript and carry the envelope retry_after member`, async () => {
      const out = join(dir, version);
      await mkdir(out);

      const source = astToString(await openapiTS(pathToFileURL(file(fixture))));
      // Not vacuous: the external components came through, with the envelope's members.
      expect(source).toMatch(/\bretry_after: number \| null;/);
      expect(source).toContain('rate_limited');
      expect(source).toMatch(/429: components\["responses"\]\["TooManyRequests"\];/);

      await writeFile(join(out, 'package.json'), '{ "type": "module" }\n');
      await writeFile(join(out, 'api.ts'), source);
      await writeFile(join(out, 'usage.ts'), USAGE);
      const program = ts.createProgram([join(out, 'api.ts'), join(out, 'usage.ts')], {
        strict: true,
        noEmit: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noImplicitOverride: true,
        skipLibCheck: false,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        lib: ['lib.es2022.d.ts'],
        types: [],
      });
      const diagnostics = ts.getPreEmitDiagnostics(program);
      const text = ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => out,
        getNewLine: () => '\n',
      });
      expect(text).toBe('');
      expect(diagnostics).toHaveLength(0);
      // Both files were part of the program, so the zero above covers the usage checks too.
      expect(program.getRootFileNames()).toHaveLength(2);
      expect(program.getSourceFile(join(out, 'usage.ts'))).toBeDefined();
    }, 20_000);
  }
});
