// schema/diff-rules.json -> generated/diff-rules.ts and the catalog diff rules table of docs/tooling.md.
import { scriptHeader } from './header.js';
import { constExport, loadRules, markdownTable, ruleFile } from './rules.js';

export interface DiffRule {
  rule: string;
  summary: string;
  fix: string;
}

export interface DiffRules {
  breaking: DiffRule[];
  non_breaking: DiffRule[];
}

const NAME = 'diff-rules';

/** Reads and checks schema/diff-rules.json (a rule id is in one list only); throws a CatalogError naming each problem. */
export async function loadDiffRules(): Promise<DiffRules> {
  const { breaking, non_breaking } = await loadRules<DiffRules>(NAME, 'rule');
  return { breaking, non_breaking };
}

/** The Markdown table of the rules, breaking ones first. */
export function diffRuleTable(rules: DiffRules): string {
  const rows = (list: readonly DiffRule[], breaking: string): string[][] => list.map((r) => [`\`${r.rule}\``, breaking, r.summary, r.fix]);
  return markdownTable(['rule', 'breaking', 'checks', 'fix'], [...rows(rules.breaking, 'yes'), ...rows(rules.non_breaking, 'no')]);
}

/** The text of generated/diff-rules.ts. */
export function emitDiffRules(rules: DiffRules): string {
  return [
    scriptHeader(ruleFile(NAME)),
    constExport('Changes that break consumers or sites of the contract.', 'BREAKING_RULES', rules.breaking),
    constExport('Changes that are reported but break nobody, unless `closedEnums` says otherwise.', 'NON_BREAKING_RULES', rules.non_breaking),
    '/** Every rule id of diffCatalog(). */',
    "export type DiffRule = (typeof BREAKING_RULES)[number]['rule'] | (typeof NON_BREAKING_RULES)[number]['rule'];",
    '',
  ].join('\n');
}
