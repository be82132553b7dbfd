// agent-errors codegen --extend site-codes.json --out <dir>: the package's artifacts for its catalog
// plus a site's own codes (seed 000: "Sites may add their own codes").
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import { CatalogError, type Catalog, type CatalogProblem, type CodeEntry } from './catalog-model.js';
import { duplicateKeys, exampleProblems, loadCatalog, pointerSegment } from './load-catalog.js';
import { extendedCommand, extendedHeaderSentence, scriptHeader, type HeaderSentence } from './header.js';
import { commandPath } from './out-folder.js';
import { SCHEMA_DIR } from './paths.js';
import { renderGenerated } from './render.js';

type SiteCode = Omit<CodeEntry, 'family' | 'draft' | 'google' | 'stripe'> & { google?: string; stripe?: string };

/**
 * A value as an error message quotes it: JSON, with C1 and bidirectional controls escaped too, so that
 * a line break, an ANSI sequence or a reordering mark shows as its escape and not as its effect.
 */
const show = (value: unknown): string => {
  const escape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  const json = (JSON.stringify(value) ?? String(value)).replace(/[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, escape);
  return json.length > 80 ? `${json.slice(0, 79)}…` : json;
};

/**
 * What a SiteText or SiteCodeName constraint of extension.schema.json refuses, from its description
 * (lowercased to follow "is refused: "), or undefined for any other error, which Ajv's message says well.
 */
function refusal(e: ErrorObject): string | undefined {
  if (!/\/\$defs\/Site(?:Text|CodeName)\/allOf\/\d+\/(?:pattern|not|maxLength)$/.test(e.schemaPath)) return undefined;
  const description = (e.parentSchema as { description?: unknown } | undefined)?.description;
  return typeof description === 'string' ? description.charAt(0).toLowerCase() + description.slice(1) : undefined;
}

/** The catalog with a site's extension merged in, or a CatalogError naming every problem with its pointer. */
export async function extendCatalog(text: string, file: string): Promise<Catalog> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CatalogError(file, [{ pointer: '', reason: `not JSON: ${(error as Error).message}` }]);
  }
  // verbose: each error carries its schema, whose description says what a site-text or code-name constraint refuses.
  const validate = new Ajv2020({ allErrors: true, verbose: true }).compile((await $RefParser.bundle(join(SCHEMA_DIR, 'extension.schema.json'))) as object);
  const problems: CatalogProblem[] = [...duplicateKeys(text)];
  // Each constraint of a site text states its type, so a value that is no string would be told so once per constraint.
  const said = new Set<string>();
  const add = (problem: CatalogProblem): void => {
    const key = `${problem.pointer}\n${problem.reason}`;
    if (!said.has(key)) problems.push(problem);
    said.add(key);
  };
  if (!validate(value)) {
    for (const e of validate.errors ?? []) {
      if (e.keyword === 'propertyNames') continue;
      const refused = refusal(e);
      if (refused !== undefined) {
        const what = e.propertyName === undefined ? `the value ${show(e.data)}` : `the code ${show(e.propertyName)}`;
        add({ pointer: e.instancePath, reason: `${what} is refused: ${refused}` });
      } else {
        const reason = e.propertyName === undefined ? (e.message ?? e.keyword) : `the key ${show(e.propertyName)} is not allowed here: it ${e.message}`;
        add({ pointer: e.instancePath, reason });
      }
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

/**
 * Every artifact for the catalog plus the extension in `file`, keyed by path, for the folder `out`:
 * the modules as JavaScript with their declarations, which codegen writes itself. The headers name the
 * command that writes the files again, with both paths relative to the working directory, so that
 * however a path is spelled (./generated, generated/, its absolute path) the files are the same.
 */
export async function renderExtended(file: string, out: string): Promise<Map<string, string>> {
  const header = extendedHeaderSentence(commandPath(file), commandPath(out));
  const files = await renderGenerated(await extendCatalog(await readFile(file, 'utf8'), file), { rules: false, header, form: 'js' });
  files.set('errors.js', emitSiteErrors(header));
  files.set('errors.d.ts', emitSiteErrorTypes(header));
  return files;
}

/** The command that writes the artifacts of `file` to `out` again, as the headers name it. */
export function rerunCommand(file: string, out: string): string {
  return extendedCommand(commandPath(file), commandPath(out));
}

/**
 * errors.js: the builder that knows the site's own codes. Importing it registers them (defineSiteCodes),
 * so every adapter serves their /problems/<code> pages and titles them as the catalog's own.
 */
function emitSiteErrors(header: HeaderSentence): string {
  return [
    scriptHeader('the extension catalog', header),
    "import { defineSiteCodes } from '@agent-index/errors/site';",
    "import { CODES } from './catalog.js';",
    "import { PROBLEM_PAGES } from './problem-pages.js';",
    '',
    "const SITE_CODES = Object.fromEntries(Object.entries(CODES).filter(([, entry]) => entry.family === 'site'));",
    'const site = defineSiteCodes(SITE_CODES, PROBLEM_PAGES);',
    '',
    '/** Builds the error for a code of the catalog or one of the site\'s own: status, retry word and title come from the catalogs. */',
    'export function agentError(code, options) {',
    '  return site.agentError(code, options);',
    '}',
    '',
  ].join('\n');
}

/** errors.d.ts: the builder typed over the catalog's codes and the site's, each with what its word requires. */
function emitSiteErrorTypes(header: HeaderSentence): string {
  return [
    scriptHeader('the extension catalog', header),
    "import type { AgentError, AgentErrorBaseOptions } from '@agent-index/errors/site';",
    "import type { CODES } from './catalog.js';",
    "import type { Code, CodeRequirements } from './types.js';",
    '',
    '/** The site\'s own codes: those of this catalog that @agent-index/errors does not have. */',
    "export type SiteCode = { [C in Code]: (typeof CODES)[C]['family'] extends 'site' ? C : never }[Code];",
    '',
    '/** The options of a code: what its retry word requires is required. */',
    'type Args<C extends Code> = keyof CodeRequirements[C] extends never ? [options?: AgentErrorBaseOptions & CodeRequirements[C]] : [options: AgentErrorBaseOptions & CodeRequirements[C]];',
    '',
    '/** Builds the error for a code of the catalog or one of the site\'s own: status, retry word and title come from the catalogs. */',
    'export declare function agentError<C extends Code>(code: C, ...options: Args<C>): AgentError<C>;',
    '',
  ].join('\n');
}
