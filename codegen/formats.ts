// schema/formats.json -> generated/formats.ts and generated/error-formats.ts, and the formats table of generated/LINT.md and docs/tooling.md.
import { scriptHeader } from './header.js';
import { checkRules, constExport, markdownTable, readRules, ruleFile } from './rules.js';
import { CatalogError, type Catalog, type CatalogProblem } from './catalog-model.js';

/** One error body format: where it keeps each part, as JSON pointers into the body. */
export interface FormatEntry {
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

const NAME = 'formats';

/** The path of the formats file from the root. */
export const FORMATS_SOURCE = ruleFile(NAME);

/**
 * The formats of `value` (the content of schema/formats.json), checked: against its JSON Schema, no id
 * written twice, and each format's retry_from naming reader tables `catalog` has. Throws a CatalogError
 * naming each problem.
 */
export async function parseFormats(value: unknown, catalog: Catalog): Promise<FormatEntry[]> {
  const { formats } = await checkRules<{ formats: FormatEntry[] }>(NAME, 'id', value);
  const readers: Readonly<Record<string, unknown>> = catalog.readers;
  const problems: CatalogProblem[] = formats.flatMap((f, i) =>
    (f.retry_from ?? []).flatMap((table, j) => (Object.hasOwn(readers, table) ? [] : [{ pointer: `/formats/${i}/retry_from/${j}`, reason: `the catalog has no reader table "${table}"` }])),
  );
  if (problems.length > 0) throw new CatalogError(FORMATS_SOURCE, problems);
  return formats;
}

/** Reads schema/formats.json and checks it against `catalog`, as parseFormats does. */
export async function loadFormats(catalog: Catalog): Promise<FormatEntry[]> {
  return parseFormats(await readRules(NAME), catalog);
}

/** A format's name, linked to where it is defined: a URL (what follows it is a note), a file of this repository, or plain words. */
function formatName(f: FormatEntry): string {
  const [where, ...note] = f.source.split(' ');
  const id = `(\`${f.id}\`)`;
  if (where!.startsWith('https://')) return `[${f.name}](${where}) ${id}${note.length ? ` ${note.join(' ')}` : ''}`;
  if (/^[\w.-]+\/[\w./-]+$/.test(f.source)) return `[${f.name}](../${f.source}) ${id}`;
  return `${f.name} ${id}, ${f.source}`;
}

/** The Markdown table of the formats, in the order they are tried. */
export function formatTable(formats: readonly FormatEntry[]): string {
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

/**
 * The texts of generated/formats.ts, the places of each format (FORMAT_PLACES), which is what a site
 * needs at run time, and generated/error-formats.ts, each format's id, name and source beside its
 * places (ERROR_FORMATS), which the lint and the docs read. Two modules, so that a bundle of the site
 * side never holds the names and sources: a table that spreads another is kept whole by a bundler.
 */
export function emitFormats(formats: readonly FormatEntry[]): { places: string; named: string } {
  const places = formats.map((f) => ({ match: f.match, code: f.code, ...(f.retry ? { retry: f.retry } : {}), message: f.message, delay: f.delay, field: f.field }));
  const named = formats.map((f, i) => {
    const { id, name, source, retry_from } = f;
    const head = JSON.stringify({ id, name, source, ...(retry_from ? { retry_from } : {}) }, null, 2).slice(0, -2);
    return `${head.replace(/\n/g, '\n  ')},\n    ...FORMAT_PLACES[${i}],\n  }`;
  });
  return {
    places: [
      scriptHeader(FORMATS_SOURCE),
      constExport('Where each recognised format keeps each part, in the order they are tried (a format whose codes say what to do has no retry member).', 'FORMAT_PLACES', places),
    ].join('\n'),
    named: [
      scriptHeader(FORMATS_SOURCE),
      "import { FORMAT_PLACES } from './formats.js';",
      '',
      '/** The error body formats this package recognises when none is named, in the order they are tried: each one\'s id, name and source, and its places. */',
      `export const ERROR_FORMATS = [\n  ${named.join(',\n  ')},\n] as const;`,
      '',
      '/** The id of an error body format. */',
      "export type ErrorFormatId = (typeof ERROR_FORMATS)[number]['id'];",
      '',
    ].join('\n'),
  };
}
