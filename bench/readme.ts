// Benchmarks that publish a result put it in README.md between two marker comments of their own,
// `<!-- name:start -->` and `<!-- name:end -->`, so the README shows the latest run as it printed.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const README = join(dirname(fileURLToPath(import.meta.url)), '..', 'README.md');

/** `text` between the `name` markers of `readme`; a README without both markers comes back as it was. */
export function injectSection(readme: string, name: string, text: string): string {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return readme;
  return `${readme.slice(0, from + start.length)}\n${text}\n${readme.slice(to)}`;
}

/** Writes `text` between the `name` markers of this repository's README.md. */
export function publish(name: string, text: string): void {
  writeFileSync(README, injectSection(readFileSync(README, 'utf8'), name, text));
}
