// Renders every generated file, and the pages codegen fills tables into, in memory, so writing and
// checking compare the same bytes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalog } from './catalog-model.js';
import { loadBodySchemas } from './body-schemas.js';
import { diffRuleTable, emitDiffRules, loadDiffRules } from './diff-rules.js';
import { emitCatalog } from './emit-catalog.js';
import { emitErrorsMd, emitProblemPage, emitProblemPagesModule, injectReadme, injectTable } from './emit-docs.js';
import { emitOutputSchemaModule } from './emit-output-schema.js';
import { emitFormats, FORMATS_SOURCE, formatTable, loadFormats } from './formats.js';
import { emitLintMd, emitLintRules, lintRuleEntries, lintRuleTable, loadLintRules } from './lint-rules.js';
import { openApi30, openApi31 } from './emit-openapi.js';
import { emitTypes } from './emit-types.js';
import { emitValidators, emitValidatorTypes } from './emit-validators.js';
import { headerSentence, type HeaderSentence } from './header.js';
import { moduleDts, moduleJs, moduleTs, type GeneratedModule } from './module.js';
import { ROOT } from './paths.js';
import { ruleFile } from './rules.js';
import { emitViolationRules, loadViolationRules, VIOLATION_RULES_SOURCE, violationRuleTable } from './violation-rules.js';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The page that holds the rule tables, from the root. */
export const TOOLING_PAGE = 'docs/tooling.md';

/** The form generated modules take: TypeScript for the package's own generated/, JavaScript with declarations for a site. */
export type ModuleForm = 'ts' | 'js';

/** The modules codegen writes for a catalog, keyed by their name without extension, before they take a form. */
export async function renderModules(catalog: Catalog, header: HeaderSentence = headerSentence): Promise<Map<string, GeneratedModule>> {
  const { common } = await loadBodySchemas();
  const codePattern = (common.$defs.Code as { pattern: string }).pattern;
  return new Map([
    ['types', await emitTypes(catalog, header)],
    ['catalog', emitCatalog(catalog, codePattern, header)],
    ['envelope-output-schema', await emitOutputSchemaModule(header)],
    ['problem-pages', emitProblemPagesModule(catalog, header)],
  ]);
}

/** A module's files in `form`: name.ts, or name.js and name.d.ts. */
function moduleFiles(name: string, module: GeneratedModule, form: ModuleForm): [string, string][] {
  return form === 'ts' ? [[`${name}.ts`, moduleTs(module)]] : [[`${name}.js`, moduleJs(module)], [`${name}.d.ts`, moduleDts(module)]];
}

/**
 * Every file under generated/, keyed by its path relative to generated/. A site's extended catalog gets
 * all but the rule tables and the formats table, which are the package's own, its modules as JavaScript with declarations
 * (`form: 'js'`), and a `header` that names the command that writes them again in the site's project.
 */
export async function renderGenerated(catalog: Catalog, options: { rules?: boolean; header?: HeaderSentence; form?: ModuleForm } = {}): Promise<Map<string, string>> {
  const header = options.header ?? headerSentence;
  const form = options.form ?? 'ts';
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const doc31 = await openApi31(catalog, version, header);
  const modules = await renderModules(catalog, header);
  const files = new Map<string, string>([
    ...moduleFiles('types', modules.get('types')!, form),
    ...moduleFiles('catalog', modules.get('catalog')!, form),
    ['validators.js', await emitValidators(catalog, header)],
    ['validators.d.ts', emitValidatorTypes(header)],
    ['openapi.json', json(doc31)],
    ['openapi-3.0.json', json(openApi30(doc31))],
    ['ERRORS.md', emitErrorsMd(catalog, header)],
    ...moduleFiles('envelope-output-schema', modules.get('envelope-output-schema')!, form),
  ]);
  for (const code of Object.keys(catalog.codes)) files.set(`problems/${code}.html`, emitProblemPage(catalog, code, header));
  for (const [path, text] of moduleFiles('problem-pages', modules.get('problem-pages')!, form)) files.set(path, text);
  if (options.rules !== false) {
    const [rules, formats] = [await loadLintRules(), await loadFormats(catalog)];
    const { places, named } = emitFormats(formats);
    files.set('formats.ts', places);
    files.set('error-formats.ts', named);
    files.set('lint-rules.ts', emitLintRules(rules));
    files.set('LINT.md', emitLintMd(rules, formats));
    files.set('violation-rules.ts', emitViolationRules(await loadViolationRules(catalog)));
    files.set('diff-rules.ts', emitDiffRules(await loadDiffRules()));
  }
  return files;
}

/** The tables of docs/tooling.md: the name of each one's markers, the schema file it comes from, and the table. */
async function ruleTables(catalog: Catalog): Promise<[name: string, source: string, table: string][]> {
  const rules = await loadLintRules();
  return [
    ['lint-rules', ruleFile('lint-rules'), lintRuleTable(rules)],
    ['lint-formats', FORMATS_SOURCE, formatTable(await loadFormats(catalog))],
    ['lint-rule-entries', ruleFile('lint-rules'), lintRuleEntries(rules)],
    ['violation-rules', VIOLATION_RULES_SOURCE, violationRuleTable(await loadViolationRules(catalog))],
    ['diff-rules', ruleFile('diff-rules'), diffRuleTable(await loadDiffRules())],
  ];
}

/** The pages outside generated/ that hold generated tables, as codegen would leave them, keyed by their path from the root: README.md gets the code table, docs/tooling.md the rule tables. */
export async function renderPages(catalog: Catalog): Promise<Map<string, string>> {
  const page = (path: string): Promise<string> => readFile(join(ROOT, path), 'utf8');
  let tooling = await page(TOOLING_PAGE);
  for (const [name, source, table] of await ruleTables(catalog)) tooling = injectTable(tooling, name, table, source, TOOLING_PAGE);
  return new Map([
    ['README.md', injectReadme(await page('README.md'), catalog)],
    [TOOLING_PAGE, tooling],
  ]);
}
