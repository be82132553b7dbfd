// Every relative link and image in README.md and docs/*.md leads somewhere: a file or folder of the
// repository, and, for a `#anchor`, a heading of the target page with that GitHub slug. Links are
// found by markdown-it, a CommonMark parser, so links in tables, lists and reference definitions
// count as GitHub renders them; anchors are made by github-slugger, as GitHub makes them.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../codegen/paths.js';

/** The most bytes README.md may have: a front page read in ten minutes. */
const README_MAX_BYTES = 12 * 1024;

const md = new MarkdownIt();

/** Schemes a link leaves the repository by; the test does not follow them. */
const ABSOLUTE = /^(?:https?|mailto):/i;
/** Any scheme at all, to refuse one the test does not know rather than read it as a path. */
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
/** GitHub's line anchors on a file that is not Markdown: #L10, #L10-L20. */
const LINE_ANCHOR = /^L\d+(?:-L\d+)?$/;

/** Every token, the inline children of each block token included, in document order. */
function* tokensOf(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    if (token.children) yield* tokensOf(token.children);
  }
}

/** Every link target and image source of a Markdown text, with the line it is on. */
function linksOf(text: string): { target: string; line: number }[] {
  const found: { target: string; line: number }[] = [];
  let line = 0;
  for (const token of tokensOf(md.parse(text, {}))) {
    if (token.map) line = token.map[0] + 1;
    const target = token.type === 'link_open' ? token.attrGet('href') : token.type === 'image' ? token.attrGet('src') : null;
    if (target !== null) found.push({ target: String(target), line });
  }
  return found;
}

/** The text of a heading as GitHub slugs it: its words and its code spans, without the markup. */
function headingText(inline: Token | undefined): string {
  let text = '';
  for (const token of tokensOf(inline?.children ?? [])) {
    if (token.type === 'text' || token.type === 'code_inline') text += token.content;
    else if (token.type === 'softbreak' || token.type === 'hardbreak') text += ' ';
  }
  return text;
}

/** The anchors of a Markdown text's headings, as GitHub makes them (a repeated heading gets -1, -2, ...). */
function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const tokens = md.parse(text, {});
  const anchors = new Set<string>();
  tokens.forEach((token, i) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(headingText(tokens[i + 1])));
  });
  return anchors;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(file: string): Set<string> {
  let anchors = anchorCache.get(file);
  if (!anchors) {
    anchors = anchorsOf(readFileSync(file, 'utf8'));
    anchorCache.set(file, anchors);
  }
  return anchors;
}

/** What is wrong with each relative link of a Markdown file, as `line: target: reason`; empty when nothing is. */
function brokenLinks(file: string, root: string): string[] {
  const broken: string[] = [];
  for (const { target, line } of linksOf(readFileSync(file, 'utf8'))) {
    const fail = (reason: string): void => void broken.push(`${relative(root, file)}:${line}: ${target}: ${reason}`);
    if (ABSOLUTE.test(target)) continue;
    if (SCHEME.test(target)) {
      fail('a scheme this test does not follow');
      continue;
    }
    const hash = target.indexOf('#');
    const rawPath = (hash < 0 ? target : target.slice(0, hash)).split('?', 1)[0]!;
    let path: string;
    let anchor: string | null;
    try {
      // markdown-it percent-encodes what it normalizes (a space is %20); the file system wants it back.
      path = decodeURIComponent(rawPath);
      anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    } catch {
      fail('not a valid URI');
      continue;
    }
    // A path from the root of the repository (/docs/x.md) or from the page's own folder; none is the page itself.
    const resolved = path === '' ? file : path.startsWith('/') ? join(root, path) : resolve(dirname(file), path);
    if (relative(root, resolved).startsWith('..')) {
      fail('leaves the repository');
      continue;
    }
    if (!existsSync(resolved)) {
      fail(`no such file (${relative(root, resolved)})`);
      continue;
    }
    if (anchor === null || anchor === '') continue;
    if (statSync(resolved).isDirectory()) fail('an anchor on a folder');
    else if (!/\.md$/i.test(resolved)) {
      if (!LINE_ANCHOR.test(anchor)) fail(`an anchor on a file that is not Markdown (${relative(root, resolved)})`);
    } else if (!anchorsOfFile(resolved).has(anchor)) {
      fail(`no heading with the anchor #${anchor} in ${relative(root, resolved)}`);
    }
  }
  return broken;
}

const DOCS = join(ROOT, 'docs');
const PAGES = [
  join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(DOCS, name)),
];

describe('the documentation', () => {
  it(`keeps README.md at most ${README_MAX_BYTES} bytes`, () => {
    expect(statSync(join(ROOT, 'README.md')).size).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it.each(PAGES.map((page) => [relative(ROOT, page), page]))('%s: every relative link resolves, anchors included', (_name, page) => {
    expect(brokenLinks(page, ROOT)).toEqual([]);
  });

  it('links every docs page from README.md', () => {
    const linked = new Set(linksOf(readFileSync(join(ROOT, 'README.md'), 'utf8')).map(({ target }) => target.split('#', 1)[0]));
    const unlinked = PAGES.slice(1)
      .map((page) => relative(ROOT, page))
      .filter((page) => !linked.has(page));
    expect(unlinked).toEqual([]);
  });
});

describe('the link check', () => {
  it('finds a broken link or anchor wherever Markdown puts one, and passes what GitHub resolves', () => {
    const root = mkdtempSync(join(tmpdir(), 'docs-links-'));
    try {
      writeFileSync(join(root, 'other.md'), '# Other\n\n## Set `up`: step 1\n\n## Twice\n\n## Twice\n');
      writeFileSync(join(root, 'code.ts'), 'export {};\n');
      writeFileSync(
        join(root, 'page.md'),
        [
          '# Page',
          '',
          'Fine: [a](other.md), [b](other.md#set-up-step-1), [c](other.md#twice-1), [d](#page), [e](./code.ts#L1),',
          '[f](https://example.com/missing.md), [g](mailto:someone@example.com), ![h](code.ts).',
          '',
          '| broken in a table |',
          '| --- |',
          '| [x](missing.md) |',
          '',
          'Broken anchor, by reference: [y][ref]. Broken image: ![z](missing.svg). Duplicate not made: [w](other.md#twice-2).',
          '',
          '[ref]: other.md#nowhere',
        ].join('\n'),
      );
      expect(brokenLinks(join(root, 'page.md'), root)).toEqual([
        'page.md:8: missing.md: no such file (missing.md)',
        'page.md:10: other.md#nowhere: no heading with the anchor #nowhere in other.md',
        'page.md:10: missing.svg: no such file (missing.svg)',
        'page.md:10: other.md#twice-2: no heading with the anchor #twice-2 in other.md',
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
