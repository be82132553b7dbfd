// npm run codegen: schema/ -> generated/, the code table of README.md and the rule tables of docs/tooling.md.
// npm run codegen -- --check: writes nothing; exits 1 naming every stale, missing or orphaned file, any file in generated/ that codegen did not write, and every stale table.
import { parseArgs } from 'node:util';
import { CatalogError } from './catalog-model.js';
import { MarkerError } from './emit-docs.js';
import { loadCatalog } from './load-catalog.js';
import { renderGenerated, renderPages } from './render.js';
import { GENERATED_DIR } from './paths.js';
import { OutputFolderError, staleFiles, writeOutput, writePages } from './write.js';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  let files: Map<string, string>;
  let pages: Map<string, string>;
  try {
    const catalog = await loadCatalog();
    files = await renderGenerated(catalog);
    pages = await renderPages(catalog);
  } catch (error) {
    if (error instanceof CatalogError || error instanceof MarkerError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  if (values.check) {
    const stale = await staleFiles(files, pages);
    if (stale.length === 0) return 0;
    console.error(`generated/ does not match the schemas; run npm run codegen:\n${stale.map((s) => `  ${s}`).join('\n')}`);
    return 1;
  }
  try {
    await writeOutput(files, GENERATED_DIR, 'generated');
  } catch (error) {
    if (!(error instanceof OutputFolderError)) throw error;
    console.error(error.message);
    return 1;
  }
  const written = await writePages(pages);
  console.log(`wrote ${files.size} files to generated/${written.length > 0 ? ` and the tables of ${written.join(', ')}` : ''}`);
  return 0;
}

process.exitCode = await main();
