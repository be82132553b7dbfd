// npm run codegen: schema/ -> generated/ (and the README's code table).
// npm run codegen -- --check: writes nothing; exits 1 naming every stale, missing or orphaned file.
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { CatalogError } from './catalog-model.js';
import { loadCatalog } from './load-catalog.js';
import { README } from './paths.js';
import { renderGenerated, renderReadme } from './render.js';
import { staleFiles, writeGenerated } from './write.js';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  let files: Map<string, string>;
  let readme: string;
  try {
    const catalog = await loadCatalog();
    files = await renderGenerated(catalog);
    readme = await renderReadme(catalog);
  } catch (error) {
    if (error instanceof CatalogError) {
      console.error(error.message);
      return 1;
    }
    throw error;
  }
  if (values.check) {
    const stale = await staleFiles(files, readme);
    if (stale.length === 0) return 0;
    console.error(`generated/ does not match the catalog; run npm run codegen:\n${stale.map((s) => `  ${s}`).join('\n')}`);
    return 1;
  }
  await writeGenerated(files);
  await writeFile(README, readme);
  console.log(`wrote ${files.size} files to generated/ and the code table in README.md`);
  return 0;
}

process.exitCode = await main();
