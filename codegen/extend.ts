// agent-errors codegen --extend site-codes.json --out <dir>: the package's artifacts for its catalog
// plus a site's own codes (seed 000: "Sites may add their own codes").
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { CatalogError, type Catalog, type CatalogProblem, type CodeEntry } from './catalog-model.js';
import { duplicateKeys, exampleProblems, loadCatalog, pointerSegment } from './load-catalog.js';
import { SCHEMA_DIR } from './paths.js';
import { renderGenerated } from './render.js';

type SiteCode = Omit<CodeEntry, 'family' | 'draft' | 'google' | 'stripe'> & { google?: string; stripe?: string };

/** The catalog with a site's extension merged in, or a CatalogError naming every problem with its pointer. */
export async function extendCatalog(text: string, file: string): Promise<Catalog> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(file, [{ pointer: '', reason: `not JSON: ${(error as Error).message}` }]);
  }
  const validate = new Ajv2020({ allErrors: true }).compile((await $RefParser.bundle(join(SCHEMA_DIR, 'extension.schema.json'))) as object);
  const problems: CatalogProblem[] = [...duplicateKeys(text)];
  if (!validate(value)) {
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'propertyNames') continue;
      problems.push({ pointer: e.instancePath, reason: e.propertyName === undefined ? (e.message ?? e.keyword) : `the key "${e.propertyName}" is not allowed here: it ${e.message}` });
    }
  }
  if (problems.length > 0) throw new CatalogError(file, problems);
  const catalog = await loadCatalog();
  const codes = (value as { codes: Record<string, SiteCode> }).codes;
  for (const code of Object.keys(codes)) {
    if (Object.hasOwn(catalog.codes, code)) problems.push({ pointer: `/codes/${pointerSegment(code)}`, reason: `"${code}" is a catalog code already; a site's own code needs a name of its own` });
  }
  problems.push(...exampleProblems(codes, catalog.retry_words));
  if (problems.length > 0) throw new CatalogError(file, problems);
  const merged: Catalog = { ...catalog, codes: { ...catalog.codes } };
  for (const [code, entry] of Object.entries(codes)) {
    // Vendor names default to those of the code the status means on its own.
    const byStatus = catalog.codes[catalog.status_defaults[String(entry.status)] ?? catalog.status_fallbacks[entry.status >= 500 ? '5xx' : '4xx']]!;
    merged.codes[code] = { ...entry, family: 'site', draft: false, google: entry.google ?? byStatus.google, stripe: entry.stripe ?? byStatus.stripe };
  }
  return merged;
}

/** Every artifact for the catalog plus the extension in `file`, keyed by path. */
export async function renderExtended(file: string): Promise<Map<string, string>> {
  return renderGenerated(await extendCatalog(await readFile(file, 'utf8'), file), { rules: false });
}
