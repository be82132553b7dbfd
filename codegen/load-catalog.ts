// Reads a catalog, refuses it with pointers when it breaks the meta-schema or refers to what does not exist.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { visit } from 'jsonc-parser';
import { CATALOG_FILE, ROOT, SCHEMA_DIR } from './paths.js';
import { CatalogError, type Catalog, type CatalogProblem, type CodeEntry } from './catalog-model.js';
import { loadBodySchemas } from './body-schemas.js';
import { withArticle } from './english.js';

/** Escapes one JSON pointer segment (RFC 6901). */
export function pointerSegment(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Finds keys written twice in one object, which JSON.parse would silently collapse to the last. */
export function duplicateKeys(text: string): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const seen: Set<string>[] = [];
  visit(text, {
    onObjectBegin: () => void seen.push(new Set()),
    onObjectEnd: () => void seen.pop(),
    onObjectProperty: (name, _offset, _length, _line, _column, pathSupplier) => {
      const keys = seen[seen.length - 1]!;
      const pointer = [...pathSupplier(), name].map((s) => `/${pointerSegment(String(s))}`).join('');
      if (keys.has(name)) problems.push({ pointer, reason: `the key "${name}" is written twice; each code and word must be unique` });
      keys.add(name);
    },
  });
  return problems;
}

let metaValidator: Promise<(value: unknown) => CatalogProblem[]> | undefined;

/** Compiles catalog.schema.json (with the files it refers to, bundled) at build time. */
function metaSchema(): Promise<(value: unknown) => CatalogProblem[]> {
  metaValidator ??= (async () => {
    const bundled = await $RefParser.bundle(join(SCHEMA_DIR, 'catalog.schema.json'));
    const ajv = new Ajv2020({ allErrors: true, strict: true });
    const validate = ajv.compile(bundled as object);
    return (value) =>
      validate(value)
        ? []
        : (validate.errors ?? [])
            // Wrapper errors repeat what their inner error already says.
            .filter((e) => e.keyword !== 'if' && e.keyword !== 'propertyNames')
            .map((e) => {
              const reason = `${e.message ?? e.keyword}${e.keyword === 'enum' ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`;
              return {
                pointer: e.instancePath,
                reason: e.propertyName === undefined ? reason : `the key "${e.propertyName}" is not allowed here: it ${reason}`,
              };
            });
  })();
  return metaValidator;
}

/** Examples that lack what their code's retry word requires. */
export function exampleProblems(codes: Record<string, Pick<CodeEntry, 'retry' | 'example'>>, words: Catalog['retry_words']): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  for (const [code, entry] of Object.entries(codes)) {
    const word = words[entry.retry];
    if (!word) continue; // the meta-schema has already named an unknown word
    const at = `/codes/${pointerSegment(code)}/example`;
    if (word.requires.includes('field') && entry.example.field === undefined) {
      problems.push({ pointer: at, reason: `the example of ${withArticle(entry.retry)} code needs a field` });
    }
    if (word.requires.includes('retry_after') && entry.example.retry_after === undefined) {
      problems.push({ pointer: at, reason: `the example of ${withArticle(entry.retry)} code needs a retry_after` });
    }
  }
  return problems;
}

/** The checks JSON Schema cannot state: references between parts of the catalog. */
async function crossReferences(catalog: Catalog): Promise<CatalogProblem[]> {
  const problems: CatalogProblem[] = [];
  const { common } = await loadBodySchemas();
  const words = (common.$defs.RetryWord as { enum: string[] }).enum;
  for (const word of words) {
    if (!(word in catalog.retry_words)) problems.push({ pointer: '/retry_words', reason: `the retry word "${word}" is not described` });
  }
  for (const [word, entry] of Object.entries(catalog.retry_words)) {
    const at = `/retry_words/${pointerSegment(word)}`;
    if (entry.next_step === 'wait' && !entry.requires.includes('retry_after') && entry.default_retry_after === undefined) {
      problems.push({ pointer: at, reason: 'a word whose next step is wait needs either requires: ["retry_after"] or a default_retry_after' });
    }
    if (entry.next_step !== 'wait' && (entry.requires.includes('retry_after') || entry.default_retry_after !== undefined)) {
      problems.push({ pointer: at, reason: 'only a word whose next step is wait can carry a delay' });
    }
  }
  problems.push(...exampleProblems(catalog.codes, catalog.retry_words));
  for (const [status, code] of Object.entries(catalog.status_defaults)) {
    if (!catalog.codes[code]) problems.push({ pointer: `/status_defaults/${status}`, reason: `"${code}" is not a code of this catalog` });
  }
  for (const [table, entries] of Object.entries(catalog.readers)) {
    // next_step's values are retry words and crawler_error_header's header names, which the meta-schema checks.
    if (table === 'next_step' || table === 'crawler_error_header') continue;
    for (const [value, code] of Object.entries(entries)) {
      if (!catalog.codes[code]) problems.push({ pointer: `/readers/${table}/${pointerSegment(value)}`, reason: `"${code}" is not a code of this catalog` });
    }
  }
  if (!catalog.codes[catalog.unknown_code]) {
    problems.push({ pointer: '/unknown_code', reason: `"${catalog.unknown_code}" is not a code of this catalog` });
  }
  for (const [range, code] of Object.entries(catalog.status_fallbacks)) {
    const entry = catalog.codes[code];
    const pointer = `/status_fallbacks/${range}`;
    if (!entry) problems.push({ pointer, reason: `"${code}" is not a code of this catalog` });
    else if (String(entry.status)[0] !== range[0]) problems.push({ pointer, reason: `"${code}" has status ${entry.status}, outside ${range}` });
  }
  return problems;
}

/** Parses and checks a catalog's text; throws a CatalogError naming every problem with its JSON pointer. */
export async function parseCatalog(text: string, file = CATALOG_FILE): Promise<Catalog> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(file, [{ pointer: '', reason: `not JSON: ${(error as Error).message}` }]);
  }
  const problems = [...duplicateKeys(text), ...(await metaSchema())(value)];
  if (problems.length === 0) problems.push(...(await crossReferences(value as Catalog)));
  if (problems.length > 0) throw new CatalogError(file, problems);
  return value as Catalog;
}

/** Reads and checks schema/catalog.json (or another catalog file, relative to the project root). */
export async function loadCatalog(file = CATALOG_FILE): Promise<Catalog> {
  return parseCatalog(await readFile(join(ROOT, file), 'utf8'), file);
}
