// Benchmarks that publish a result put it in a Markdown file of this repository between two marker
// comments of their own, `<!-- name:start -->` and `<!-- name:end -->`, so the page shows the
// latest run as it printed: npm run bench's table in docs/benchmarks.md, the peers table in README.md.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** `text` between the `name` markers of `page`; a page without both markers comes back as it was. */
export function injectSection(page: string, name: string, text: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = page.indexOf(start);
  const to = page.indexOf(end);
  if (from < 0 || to < from) return page;
  return `${page.slice(0, from + start.length)}\n${text}\n${page.slice(to)}`;
}

/** Writes `text` between the `name` markers of `file` (a path from the repository's root). */
export function publish(file: string, name: string, text: string): void {
  const path = join(ROOT, file);
  writeFileSync(path, injectSection(readFileSync(path, 'utf8'), name, text));
}
