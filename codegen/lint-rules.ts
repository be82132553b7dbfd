// schema/lint-rules.json -> generated/lint-rules.ts, generated/LINT.md and the lint rules table of docs/tooling.md.
import { markupHeader, scriptHeader } from './header.js';
import { constExport, loadRules, markdownTable, ruleFile } from './rules.js';
import { CatalogError } from './catalog-model.js';
import { loadCatalog } from './load-catalog.js';

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

export interface LintFormat {
  id: string;
  name: string;
  source: string;
  match: string[];
  code: string[];
  retry?: string[];
  retry_from?: string[];
  message: string[];
  delay: string[];
  field: string[];
}

const NAME = 'lint-rules';

/** Reads and checks schema/lint-rules.json; throws a CatalogError naming each problem. */
export async function loadLintRules(): Promise<LintRule[]> {
  return (await loadLint()).rules;
}

/** The rules and the formats; a format's retry_from must name reader tables the catalog has. */
export async function loadLint(): Promise<{ rules: LintRule[]; formats: LintFormat[] }> {
  const lint = await loadRules<{ rules: LintRule[]; formats: LintFormat[] }>(NAME, 'id');
  const readers = (await loadCatalog()).readers as Record<string, unknown>;
  const problems = lint.formats.flatMap((f, i) =>
    (f.retry_from ?? []).flatMap((table, j) => (Object.hasOwn(readers, table) ? [] : [{ pointer: `/formats/${i}/retry_from/${j}`, reason: `the catalog has no reader table "${table}"` }])),
  );
  if (problems.length > 0) throw new CatalogError(ruleFile(NAME), problems);
  return lint;
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

/** A format's name, linked to where it is defined: a URL (what follows it is a note), a file of this repository, or plain words. */
function formatName(f: LintFormat): string {
  const [where, ...note] = f.source.split(' ');
  const id = `(\`${f.id}\`)`;
  if (where!.startsWith('https://')) return `[${f.name}](${where}) ${id}${note.length ? ` ${note.join(' ')}` : ''}`;
  if (/^[\w.-]+\/[\w./-]+$/.test(f.source)) return `[${f.name}](../${f.source}) ${id}`;
  return `${f.name} ${id}, ${f.source}`;
}

/** The Markdown table of the formats the lint recognises by itself. */
export function lintFormatTable(formats: readonly LintFormat[]): string {
  const list = (places: readonly string[] | undefined): string => (places?.length ? places.map((p) => `\`${p}\``).join(', ') : '(none)');
  return markdownTable(
    ['format', 'recognised by', 'code', 'what to do next', 'message', 'field'],
    formats.map((f) => [
      formatName(f),
      f.match.length ? list(f.match) : 'any body (the last resort)',
      list(f.code),
      f.retry_from ? `its code, through the catalog's ${f.retry_from.map((t) => `\`readers.${t}\``).join(' and ')}` : list(f.retry),
      list(f.message),
      list(f.field),
    ]),
  );
}

/** The text of generated/lint-rules.ts. */
export function emitLintRules(rules: readonly LintRule[], formats: readonly LintFormat[]): string {
  return [
    scriptHeader(ruleFile(NAME)),
    constExport('The rules lintOpenApi checks, in the order it reports them.', 'LINT_RULES', rules),
    '/** The id of a lintOpenApi rule. */',
    'export type LintRuleId = (typeof LINT_RULES)[number][\'id\'];',
    '',
    constExport('The error body formats lintOpenApi recognises when the config names none, in the order it tries them.', 'LINT_FORMATS', formats),
  ].join('\n');
}

/** The text of generated/LINT.md. */
export function emitLintMd(rules: readonly LintRule[], formats: readonly LintFormat[]): string {
  return [
    markupHeader(ruleFile(NAME)),
    '# OpenAPI lint rules',
    '',
    '`lintOpenApi(document)` and `agent-errors lint <spec>` check that an API declares errors an agent can act on.',
    '',
    lintRuleTable(rules),
    '',
    '## Error formats recognised',
    '',
    lintFormatTable(formats),
    '',
    '## The rules, one by one',
    '',
    lintRuleEntries(rules),
    '',
  ].join('\n');
}
