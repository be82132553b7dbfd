// schema/lint-rules.json -> generated/lint-rules.ts and the rules table of generated/LINT.md and the README.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CatalogError } from './catalog-model.js';
import { markupHeader, scriptHeader } from './header.js';
import { ROOT, SCHEMA_DIR } from './paths.js';

export interface LintRule {
  id: string;
  summary: string;
  fix: string;
  compare: string;
}

const FILE = 'schema/lint-rules.json';

/** Reads and checks schema/lint-rules.json; throws a CatalogError naming each problem. */
export async function loadLintRules(): Promise<LintRule[]> {
  const value = JSON.parse(await readFile(join(ROOT, FILE), 'utf8')) as { rules: LintRule[] };
  const validate = new Ajv2020({ allErrors: true }).compile((await $RefParser.bundle(join(SCHEMA_DIR, 'lint-rules.schema.json'))) as object);
  const problems = validate(value) ? [] : (validate.errors ?? []).map((e) => ({ pointer: e.instancePath, reason: e.message ?? e.keyword }));
  const seen = new Set<string>();
  value.rules?.forEach((rule, i) => {
    if (seen.has(rule.id)) problems.push({ pointer: `/rules/${i}/id`, reason: `the rule id "${rule.id}" is written twice` });
    seen.add(rule.id);
  });
  if (problems.length > 0) throw new CatalogError(FILE, problems);
  return value.rules;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** The Markdown table of the rules. */
export function lintRuleTable(rules: readonly LintRule[]): string {
  return ['| rule | checks | fix | compared with other linters |', '|---|---|---|---|', ...rules.map((r) => `| \`${r.id}\` | ${cell(r.summary)} | ${cell(r.fix)} | ${cell(r.compare)} |`)].join('\n');
}

/** The text of generated/lint-rules.ts. */
export function emitLintRules(rules: readonly LintRule[]): string {
  return [
    scriptHeader(FILE),
    '/** The rules lintOpenApi checks, in the order it reports them. */',
    `export const LINT_RULES = ${JSON.stringify(rules, null, 2)} as const;`,
    '',
    '/** The id of a lintOpenApi rule. */',
    'export type LintRuleId = (typeof LINT_RULES)[number][\'id\'];',
    '',
  ].join('\n');
}

/** The text of generated/LINT.md. */
export function emitLintMd(rules: readonly LintRule[]): string {
  return [
    markupHeader(FILE),
    '# OpenAPI lint rules',
    '',
    '`lintOpenApi(document)` and `agent-errors lint <spec>` check that an API declares errors an agent can act on.',
    '',
    lintRuleTable(rules),
    '',
  ].join('\n');
}
