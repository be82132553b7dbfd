// generated/ERRORS.md, the code table injected into README.md, and generated/problems/<code>.html,
// the page a problem's type URI points at.
import { STATUS_CODES } from 'node:http';
import type { Catalog } from './catalog-model.js';
import { codeExamples } from './examples.js';
import { headerSentence, markupHeader, scriptHeader, type HeaderSentence } from './header.js';
import { constant, type GeneratedModule } from './module.js';

/**
 * Text as one Markdown table cell: on one line, and with every character that could start markup
 * backslash-escaped (a pipe would end the cell; <, >, a backtick and brackets would open HTML, code or
 * a link). extension.schema.json already refuses such text from a site; this is the second line of
 * defence, and leaves the catalog's own text as it is.
 */
const cell = (text: string | number): string =>
  String(text)
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/[\\`|<>[\]]/g, (c) => `\\${c}`);

/** The Markdown code table: one row per code, with its status, retry word, next step and advice. */
export function codeTable(catalog: Catalog): string {
  const rows = Object.entries(catalog.codes).map(([code, e]) => {
    const family = e.draft ? `${e.family} (draft)` : e.family;
    return `| \`${code}\` | ${e.status} | \`${e.retry}\` | \`${catalog.retry_words[e.retry]!.next_step}\` | ${cell(e.advice)} | ${family} |`;
  });
  return ['| code | status | retry | next_step | agent should | family |', '|---|---|---|---|---|---|', ...rows].join('\n');
}

/** The Markdown table of retry words. */
export function retryWordTable(catalog: Catalog): string {
  const rows = Object.entries(catalog.retry_words).map(([word, w]) => {
    const carries = [...w.requires, ...(w.default_retry_after !== undefined ? [`retry_after (default ${w.default_retry_after} s)`] : [])];
    return `| \`${word}\` | \`${w.next_step}\` | ${carries.length ? carries.join(', ') : '-'} | ${cell(w.advice)} |`;
  });
  return ['| retry | next_step | must carry | agent should |', '|---|---|---|---|', ...rows].join('\n');
}

/** The status defaults an agent uses for a response with no code. */
function statusTable(catalog: Catalog): string {
  const rows = Object.entries(catalog.status_defaults).map(([status, code]) => `| ${status} | \`${code}\` |`);
  for (const [range, code] of Object.entries(catalog.status_fallbacks)) rows.push(`| any other ${range} | \`${code}\` |`);
  return ['| status | code |', '|---|---|', ...rows].join('\n');
}

/** The text of generated/ERRORS.md. */
export function emitErrorsMd(catalog: Catalog, header: HeaderSentence = headerSentence): string {
  return [
    markupHeader('schema/catalog.json', header),
    '# Error codes',
    '',
    'Every error carries a stable `code`, the `field` at fault when there is one, and a `retry` word an agent can switch on.',
    `Sites may add their own codes; an agent treats a code it does not know as \`${catalog.unknown_code}\` and advises it as \`${catalog.codes[catalog.unknown_code]!.retry}\`.`,
    '',
    codeTable(catalog),
    '',
    '## Retry words',
    '',
    retryWordTable(catalog),
    '',
    '## Responses that name no code',
    '',
    'An agent reading a response without a code gives it the code of its status:',
    '',
    statusTable(catalog),
    '',
  ].join('\n');
}

/** A page that codegen fills a table into lacks the table's markers. */
export class MarkerError extends Error {
  override name = 'MarkerError';
}

/** Replaces what stands between `<!-- name:start -->` and `<!-- name:end -->` in the text of `page` with a generated table. */
export function injectTable(text: string, name: string, table: string, source: string, page = 'README.md'): string {
  const [startMark, endMark] = [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`];
  const start = text.indexOf(startMark);
  const end = text.indexOf(endMark);
  if (start < 0 || end < start) throw new MarkerError(`${page} has no ${startMark} ... ${endMark} markers for a generated table`);
  return `${text.slice(0, start)}${startMark}\n${markupHeader(source)}\n${table}\n${endMark}${text.slice(end + endMark.length)}`;
}

/** README.md with the code table between its markers replaced. */
export function injectReadme(readme: string, catalog: Catalog): string {
  return injectTable(readme, 'codes', codeTable(catalog), 'schema/catalog.json');
}

/** A header name as HTTP documents write it: retry-after -> Retry-After. */
const titleCase = (name: string): string => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The text of generated/problems/<code>.html: what the code means and what an agent does about it. */
export function emitProblemPage(catalog: Catalog, code: string, header: HeaderSentence = headerSentence): string {
  const e = catalog.codes[code]!;
  const word = catalog.retry_words[e.retry]!;
  const example = codeExamples(catalog, code);
  const json = (value: unknown): string => escapeHtml(JSON.stringify(value, null, 2));
  const rows: [string, string][] = [
    ['Code', `<code>${code}</code>`],
    ['HTTP status', String(e.status)],
    ['Retry', `<code>${e.retry}</code>: ${escapeHtml(word.advice)}`],
    ['Next step', `<code>${word.next_step}</code>`],
    ['Family', escapeHtml(e.draft ? `${e.family} (draft)` : e.family)],
  ];
  return `<!doctype html>
<!-- ${escapeHtml(header('schema/catalog.json'))} -->
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(e.title)} (${code})</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}th{text-align:left;padding-right:1rem;vertical-align:top}pre{background:#f4f4f4;padding:.75rem;overflow-x:auto}</style>
</head>
<body>
<h1>${escapeHtml(e.title)}</h1>
<p>${escapeHtml(e.advice)}</p>
<table>
${rows.map(([k, v]) => `<tr><th>${k}</th><td>${v}</td></tr>`).join('\n')}
</table>
<h2>As problem details</h2>
<pre>HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}
Content-Type: application/problem+json${Object.entries(example.headers).map(([k, v]) => `\n${titleCase(k)}: ${v}`).join('')}

${json(example.problem)}</pre>
<h2>As the JSON envelope</h2>
<pre>${json(example.envelope)}</pre>
</body>
</html>
`;
}

/** generated/problem-pages.ts as a module: the same pages, so a site can serve them without a file system. */
export function emitProblemPagesModule(catalog: Catalog, header: HeaderSentence = headerSentence): GeneratedModule {
  const pages = Object.fromEntries(Object.keys(catalog.codes).map((code) => [code, emitProblemPage(catalog, code, header)]));
  return {
    header: scriptHeader('schema/catalog.json', header),
    parts: [
      constant({
        doc: '/** The documentation page of each code, the HTML its problem type URI dereferences to. */',
        name: 'PROBLEM_PAGES',
        value: pages,
        type: 'Readonly<Record<string, string>>',
      }),
    ],
  };
}
