// schema/lint-rules.json -> generated/lint-rules.ts, generated/LINT.md and the lint rules table of docs/tooling.md.
import { markupHeader, scriptHeader } from './header.js';
import { constExport, loadRules, markdownTable, ruleFile } from './rules.js';

export interface LintRule {
  id: string;
  summary: string;
  fix: string;
  compare: string;
}

const NAME = 'lint-rules';

/** Reads and checks schema/lint-rules.json; throws a CatalogError naming each problem. */
export async function loadLintRules(): Promise<LintRule[]> {
  return (await loadRules<{ rules: LintRule[] }>(NAME, 'id')).rules;
}

/** The Markdown table of the rules. */
export function lintRuleTable(rules: readonly LintRule[]): string {
  return markdownTable(['rule', 'checks', 'fix', 'compared with other linters'], rules.map((r) => [`\`${r.id}\``, r.summary, r.fix, r.compare]));
}

/** The text of generated/lint-rules.ts. */
export function emitLintRules(rules: readonly LintRule[]): string {
  return [
    scriptHeader(ruleFile(NAME)),
    constExport('The rules lintOpenApi checks, in the order it reports them.', 'LINT_RULES', rules),
    '/** The id of a lintOpenApi rule. */',
    'export type LintRuleId = (typeof LINT_RULES)[number][\'id\'];',
    '',
  ].join('\n');
}

/** The text of generated/LINT.md. */
export function emitLintMd(rules: readonly LintRule[]): string {
  return [
    markupHeader(ruleFile(NAME)),
    '# OpenAPI lint rules',
    '',
    '`lintOpenApi(document)` and `agent-errors lint <spec>` check that an API declares errors an agent can act on.',
    '',
    lintRuleTable(rules),
    '',
  ].join('\n');
}
