// schema/violation-rules.json -> generated/violation-rules.ts and the violation rules table of docs/tooling.md.
// A rule's text names the catalog's lists of retry words and next steps as {name}; they are written
// in here, from schema/catalog.json and schema/common.schema.json, so the text follows the catalog.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogError, type Catalog, type CatalogProblem, type RetryWordEntry } from './catalog-model.js';
import { scriptHeader } from './header.js';
import { SCHEMA_DIR } from './paths.js';
import { checkRules, constExport, markdownTable, readRules, ruleFile } from './rules.js';

export interface ViolationRule {
  rule: string;
  summary: string;
  fix: string;
}

const NAME = 'violation-rules';
/** What the rules' text is generated from: the rule file, and the catalog that fills in its lists. */
export const VIOLATION_RULES_SOURCE = `${ruleFile(NAME)} and schema/catalog.json`;
const PLACEHOLDER = /\{([^{}]*)\}/g;

/** The lists a rule's text may name as {name}, each as the words joined with commas. */
export async function catalogLists(catalog: Catalog): Promise<Record<string, string>> {
  const common = JSON.parse(await readFile(join(SCHEMA_DIR, 'common.schema.json'), 'utf8')) as { $defs: { NextStep: { enum: string[] } } };
  const words = (test: (entry: RetryWordEntry) => boolean): string =>
    Object.entries(catalog.retry_words)
      .filter(([, entry]) => test(entry))
      .map(([word]) => word)
      .join(', ');
  return {
    // The retry words that wait for a delay the error must carry.
    wait_words: words((e) => e.next_step === 'wait' && e.requires.includes('retry_after')),
    // The retry words with a catalog default delay.
    default_delay_words: words((e) => e.default_retry_after !== undefined),
    // The retry words that ask for a change to one field.
    field_words: words((e) => e.requires.includes('field')),
    retry_words: words(() => true),
    next_steps: common.$defs.NextStep.enum.join(', '),
  };
}

/** The rules of `value` (the content of schema/violation-rules.json) with every {name} written out; throws a CatalogError naming each problem, an unknown name among them. */
export async function parseViolationRules(value: unknown, catalog: Catalog): Promise<ViolationRule[]> {
  const { rules } = await checkRules<{ rules: ViolationRule[] }>(NAME, 'rule', value);
  const lists = await catalogLists(catalog);
  const problems: CatalogProblem[] = [];
  const fill = (text: string, pointer: string): string =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      if (Object.hasOwn(lists, name)) return lists[name]!;
      problems.push({ pointer, reason: `${whole} names no list of the catalog; a rule's text may name ${Object.keys(lists).map((n) => `{${n}}`).join(', ')}` });
      return whole;
    });
  const filled = rules.map((r, i) => ({ rule: r.rule, summary: fill(r.summary, `/rules/${i}/summary`), fix: fill(r.fix, `/rules/${i}/fix`) }));
  if (problems.length > 0) throw new CatalogError(ruleFile(NAME), problems);
  return filled;
}

/** Reads schema/violation-rules.json and writes the catalog's lists into it, as parseViolationRules does. */
export async function loadViolationRules(catalog: Catalog): Promise<ViolationRule[]> {
  return parseViolationRules(await readRules(NAME), catalog);
}

/** The Markdown table of the rules. */
export function violationRuleTable(rules: readonly ViolationRule[]): string {
  return markdownTable(['rule', 'checks', 'fix'], rules.map((r) => [`\`${r.rule}\``, r.summary, r.fix]));
}

/** The text of generated/violation-rules.ts. */
export function emitViolationRules(rules: readonly ViolationRule[]): string {
  return [
    scriptHeader(VIOLATION_RULES_SOURCE),
    constExport('Every rule of violations(), in the order the findings on one body are listed.', 'VIOLATION_RULES', rules),
    '/** The id of one rule of violations(). */',
    "export type ViolationRule = (typeof VIOLATION_RULES)[number]['rule'];",
    '',
  ].join('\n');
}
