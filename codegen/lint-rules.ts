// schema/lint-rules.json -> generated/lint-rules.ts, generated/LINT.md (with the formats table of
// schema/formats.json) and the lint rules tables of docs/tooling.md.
import { FORMATS_SOURCE, formatTable, type FormatEntry } from './formats.js';
import { markupHeader, scriptHeader } from './header.js';
import { constExport, loadRules, markdownTable, ruleFile } from './rules.js';

export interface LintRule {
  id: string;
  severity: 'error' | 'warning';
  in: 'document' | 'operation' | 'responses' | 'schemas';
  summary: string;
  fix: string;
  compare: string;
  bad: string;
  good: string;
}

const NAME = 'lint-rules';

/** Reads and checks schema/lint-rules.json; throws a CatalogError naming each problem. */
export async function loadLintRules(): Promise<LintRule[]> {
  return (await loadRules<{ rules: LintRule[] }>(NAME, 'id')).rules;
}

/** The Markdown table of the rules. */
export function lintRuleTable(rules: readonly LintRule[]): string {
  return markdownTable(['rule', 'severity', 'checks', 'fix', 'compared with other linters'], rules.map((r) => [`\`${r.id}\``, r.severity, r.summary, r.fix, r.compare]));
}

/** Where an entry's parts go, in words. */
const PLACE: Readonly<Record<LintRule['in'], string>> = {
  document: 'a whole document',
  operation: 'an operation',
  responses: "entries of an operation's responses",
  schemas: 'entries of components.schemas',
};

/** Each rule's entry: what it checks, then a part of a document that fails it and the same part fixed. */
export function lintRuleEntries(rules: readonly LintRule[]): string {
  return rules
    .map((r) =>
      [`### \`${r.id}\``, '', `${r.summary} Severity: ${r.severity} unless the lint config says otherwise.`, '', `Fails (${PLACE[r.in]}):`, '', '```yaml', r.bad, '```', '', 'Passes:', '', '```yaml', r.good, '```', '', `Fix: ${r.fix}`].join('\n'),
    )
    .join('\n\n');
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

/** The sources of generated/LINT.md. */
export const LINT_MD_SOURCE = `${ruleFile(NAME)} and ${FORMATS_SOURCE}`;

/** The text of generated/LINT.md: the rules, then the formats the lint recognises by itself. */
export function emitLintMd(rules: readonly LintRule[], formats: readonly FormatEntry[]): string {
  return [
    markupHeader(LINT_MD_SOURCE),
    '# OpenAPI lint rules',
    '',
    '`lintOpenApi(document)` and `agent-errors lint <spec>` check that an API declares errors an agent can act on.',
    '',
    lintRuleTable(rules),
    '',
    '## Error formats recognised',
    '',
    formatTable(formats),
    '',
    '## The rules, one by one',
    '',
    lintRuleEntries(rules),
    '',
  ].join('\n');
}
