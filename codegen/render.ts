// Renders every generated file in memory, so writing and checking compare the same bytes.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Catalog } from './catalog-model.js';
import { emitCatalog } from './emit-catalog.js';
import { emitErrorsMd, emitProblemPage, emitProblemPagesModule, injectReadme, injectTable } from './emit-docs.js';
import { emitLintMd, emitLintRules, lintRuleTable, loadLintRules } from './lint-rules.js';
import { openApi30, openApi31 } from './emit-openapi.js';
import { emitTypes } from './emit-types.js';
import { emitValidators, emitValidatorTypes } from './emit-validators.js';
import { ROOT } from './paths.js';

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** Every file under generated/, keyed by its path relative to generated/. A site's extended catalog gets all but the lint rules, which are the package's own. */
export async function renderGenerated(catalog: Catalog, options: { lintRules?: boolean } = {}): Promise<Map<string, string>> {
  const { version } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const doc31 = await openApi31(catalog, version);
  const files = new Map<string, string>([
    ['types.ts', await emitTypes(catalog)],
    ['catalog.ts', emitCatalog(catalog)],
    ['validators.js', await emitValidators(catalog)],
    ['validators.d.ts', emitValidatorTypes()],
    ['openapi.json', json(doc31)],
    ['openapi-3.0.json', json(openApi30(doc31))],
    ['ERRORS.md', emitErrorsMd(catalog)],
  ]);
  for (const code of Object.keys(catalog.codes)) files.set(`problems/${code}.html`, emitProblemPage(catalog, code));
  files.set('problem-pages.ts', emitProblemPagesModule(catalog));
  if (options.lintRules !== false) {
    const rules = await loadLintRules();
    files.set('lint-rules.ts', emitLintRules(rules));
    files.set('LINT.md', emitLintMd(rules));
  }
  return files;
}

/** README.md as codegen would leave it. */
export async function renderReadme(catalog: Catalog): Promise<string> {
  const readme = injectReadme(await readFile(join(ROOT, 'README.md'), 'utf8'), catalog);
  return injectTable(readme, 'lint-rules', lintRuleTable(await loadLintRules()), 'schema/lint-rules.json');
}
