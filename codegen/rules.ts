// What the table files of schema/ (lint-rules.json, violation-rules.json, diff-rules.json, formats.json)
// share: each is checked against its own JSON Schema and for an id written twice, and each becomes a
// constant module under generated/ and a Markdown table of the docs.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CatalogError, type CatalogProblem } from './catalog-model.js';
import { ROOT, SCHEMA_DIR } from './paths.js';

/** The path of the rule file `name` from the root: schema/<name>.json. */
export const ruleFile = (name: string): string => `schema/${name}.json`;

/**
 * Checks `value` as the content of schema/<name>.json: against schema/<name>.schema.json, and that no
 * rule's `idKey` is written twice across all its lists. Throws a CatalogError naming each problem.
 */
export async function checkRules<T>(name: string, idKey: string, value: unknown): Promise<T> {
  const validate = new Ajv2020({ allErrors: true }).compile((await $RefParser.bundle(join(SCHEMA_DIR, `${name}.schema.json`))) as object);
  const problems: CatalogProblem[] = validate(value) ? [] : (validate.errors ?? []).map((e) => ({ pointer: e.instancePath, reason: e.message ?? e.keyword }));
  const seen = new Set<string>();
  for (const [list, rules] of Object.entries(typeof value === 'object' && value !== null ? value : {})) {
    if (!Array.isArray(rules)) continue;
    rules.forEach((rule: Record<string, unknown> | null, i) => {
      const id = rule?.[idKey];
      if (typeof id !== 'string') return;
      if (seen.has(id)) problems.push({ pointer: `/${list}/${i}/${idKey}`, reason: `the rule id "${id}" is written twice` });
      seen.add(id);
    });
  }
  if (problems.length > 0) throw new CatalogError(ruleFile(name), problems);
  return value as T;
}

/** The parsed content of schema/<name>.json, unchecked. */
export async function readRules(name: string): Promise<unknown> {
  return JSON.parse(await readFile(join(ROOT, ruleFile(name)), 'utf8'));
}

/** Reads schema/<name>.json and checks it as checkRules does. */
export async function loadRules<T>(name: string, idKey: string): Promise<T> {
  return checkRules<T>(name, idKey, await readRules(name));
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** A Markdown table with the header `head` and one row per item of `rows`; a | inside a cell is escaped. */
export function markdownTable(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
  return [line(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(line)].join('\n');
}

/** An exported constant of a generated module: its doc comment, then the value as literal types (`as const`). */
export function constExport(doc: string, name: string, value: unknown): string {
  return `/** ${doc} */\nexport const ${name} = ${JSON.stringify(value, null, 2)} as const;\n`;
}
