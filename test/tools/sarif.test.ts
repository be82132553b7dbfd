import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../generated/lint-rules.js';
import { lintOpenApi, SARIF_SCHEMA_URI, toSarif, type LintFinding, type SarifLog } from '../../src/tools/lint.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/lint/${name}`, import.meta.url));

/**
 * The SARIF 2.1.0 JSON schema as @microsoft/jest-sarif ships it (lib/schemas/sarif-2.1.0-rtm.5.json,
 * SchemaStore's copy; rtm.5 is the 2.1.0 release candidate the OASIS standard kept). It is written
 * in draft-04, whose only keyword here that draft-07 spells differently is the root `id`; it is
 * dropped with `$schema` so ajv's draft-07 compiles it. Its three formats get checks of their own,
 * and its patterns compile without the u flag (the `language` pattern is not a valid unicode regex).
 */
async function sarifValidator(): Promise<ValidateFunction> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve('@microsoft/jest-sarif/package.json'));
  const schema = JSON.parse(await readFile(join(root, 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'), 'utf8')) as Record<string, unknown>;
  expect(schema.title).toMatch(/SARIF\) Version 2\.1\.0/);
  delete schema.$schema;
  delete schema.id;
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  ajv.addFormat('uri', (value: string) => /^[a-z][a-z\d+.-]*:/i.test(value) && URL.canParse(value));
  ajv.addFormat('uri-reference', (value: string) => !/[\s\\]/.test(value) && URL.canParse(value, 'https://base.invalid/'));
  ajv.addFormat('date-time', (value: string) => !Number.isNaN(Date.parse(value)));
  return ajv.compile(schema);
}

const valid = (validate: ValidateFunction, log: SarifLog): void => {
  const ok = validate(JSON.parse(JSON.stringify(log)));
  expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
  expect(ok).toBe(true);
};

describe('toSarif', () => {
  let validate: ValidateFunction;
  let findings: LintFinding[];
  beforeAll(async () => {
    validate = await sarifValidator();
    findings = await lintOpenApi(fixture('faulty-3.1.yaml'));
  });

  it('writes the faulty spec as a log that validates against the SARIF 2.1.0 schema', () => {
    const log = toSarif(findings, { uri: 'test/fixtures/lint/faulty-3.1.yaml' });
    valid(validate, log);
    expect(log.version).toBe('2.1.0');
    expect(log.$schema).toBe(SARIF_SCHEMA_URI);
    expect(log.runs).toHaveLength(1);
  });

  it('is checked by a schema that refuses a broken log', () => {
    const log = JSON.parse(JSON.stringify(toSarif(findings, { uri: 'openapi.yaml' }))) as { version: string; runs: { results: { message?: unknown }[] }[] };
    delete log.runs[0]!.results[0]!.message;
    expect(validate(log)).toBe(false);
    expect(validate({ ...log, version: '2.0.0' })).toBe(false);
  });

  it('declares the tool agent-errors with the rules of LINT_RULES', () => {
    const { driver } = toSarif(findings, { uri: 'openapi.yaml' }).runs[0].tool;
    expect(driver.name).toBe('agent-errors');
    expect(driver.informationUri).toMatch(/^https:\/\//);
    expect(driver.rules.map((r) => [r.id, r.shortDescription.text, r.help.text])).toEqual(LINT_RULES.map((r) => [r.id, r.summary, r.fix]));
  });

  it('gives one result per finding at its severity, naming the spec, the JSON pointer and the operations that use the place', () => {
    const { results, tool } = toSarif(findings, { uri: 'api/openapi.yaml' }).runs[0];
    expect(results).toHaveLength(findings.length);
    results.forEach((result, i) => {
      const f = findings[i]!;
      expect(result.ruleId).toBe(f.rule);
      expect(tool.driver.rules[result.ruleIndex]!.id).toBe(f.rule);
      expect(result.level).toBe(f.severity);
      expect(result.message.text).toBe(`${f.message} (used by ${f.operations.join(', ')})`);
      expect(result.locations[0].physicalLocation.artifactLocation.uri).toBe('api/openapi.yaml');
      expect(result.locations[0].physicalLocation.region).toBeUndefined();
      expect(result.locations[0].logicalLocations[0].fullyQualifiedName).toBe(f.pointer);
    });
  });

  it('adds the line of each pointed member when given the YAML or JSON source', async () => {
    for (const name of ['faulty-3.1.yaml', 'faulty-3.1.json']) {
      const source = await readFile(fixture(name), 'utf8');
      const lines = source.split('\n');
      const log = toSarif(await lintOpenApi(fixture(name)), { uri: name, source });
      valid(validate, log);
      for (const result of log.runs[0].results) {
        const region = result.locations[0].physicalLocation.region!;
        const pointer = result.locations[0].logicalLocations[0].fullyQualifiedName;
        const last = pointer.slice(pointer.lastIndexOf('/') + 1).replace(/~1/g, '/').replace(/~0/g, '~');
        expect(lines[region.startLine - 1], `${name} ${pointer}`).toContain(last);
        expect(region.startColumn).toBeGreaterThanOrEqual(1);
      }
    }
  });

  it('writes a clean spec as a valid log with no results', async () => {
    const log = toSarif(await lintOpenApi(fixture('clean-3.1.yaml')), { uri: 'clean-3.1.yaml' });
    valid(validate, log);
    expect(log.runs[0].results).toEqual([]);
    expect(log.runs[0].tool.driver.rules).toHaveLength(LINT_RULES.length);
  });

  it('writes a file path as a URI reference: forward slashes, spaces and hashes escaped', () => {
    const uri = (path: string) => toSarif(findings, { uri: path }).runs[0].results[0]!.locations[0].physicalLocation.artifactLocation.uri;
    expect(uri('specs\\my api#2.yaml')).toBe('specs/my%20api%232.yaml');
    expect(uri('C:\\work\\openapi.yaml')).toBe('file:///C:/work/openapi.yaml');
    expect(uri('https://example.com/openapi.yaml')).toBe('https://example.com/openapi.yaml');
    valid(validate, toSarif(findings, { uri: 'specs\\my api#2.yaml' }));
  });
});
