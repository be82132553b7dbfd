// The fenced code examples of the documentation, as test/pack.test.ts checks them against the packed
// package: each one written as a module of its own into the consumer project, type-checked there by
// one tsc run, and run with node (or with vitest), so that an example a reader copies compiles and
// works as written.
//
// Which fences are examples: those whose info string is ts, typescript, js, javascript or mjs
// (found by markdown-it, so a fence inside a list or inside another fence counts as GitHub renders
// it). A TypeScript fence becomes a .mts file, a JavaScript one a .mjs file type-checked with checkJs.
//
// How one is checked: by an HTML comment on the line right before its fence, which GitHub does not
// show. The marks, kept few on purpose:
//
//   (none)                          run: compiled, then run with node; it must exit 0 within the
//                                   test's timeout, with nothing on stderr that looks like an
//                                   uncaught error.
//   <!-- example: typecheck -->     type-checked only, for an example that needs what the test
//                                   machine has not: a real remote site, a Redis, a native peer, a
//                                   server that keeps listening.
//   <!-- example: vitest -->        a vitest test file: run with the consumer's `vitest run`.
//   <!-- example: continues -->     the fence goes on from the previous example of the same page
//                                   (a page that builds an example up in steps, or shows a second
//                                   call of what it just imported); the two are one module, checked
//                                   as the first one's mark says.
//
// There is no mark that skips an example: every example at least type-checks. An unknown mark is
// an error, so a typo cannot turn a check off.
//
// What an example prints: a line that ends in a `// prints: <text>` comment says what it writes to
// standard output. An example that runs and has such lines must print exactly those texts, one line
// each, in page order, and nothing else; a comment that only describes the output (`// a line per
// finding`) is not checked. `prints` on an example that does not run with node is an error.
import MarkdownIt from 'markdown-it';

/** The info strings of the fences that are examples, and whether each is JavaScript. */
const LANGUAGES: Readonly<Record<string, 'ts' | 'js'>> = { ts: 'ts', typescript: 'ts', js: 'js', javascript: 'js', mjs: 'js' };

/** What a mark asks for; `continues` is not a mode, since a continued example keeps its first fence's. */
export type ExampleMode = 'run' | 'typecheck' | 'vitest';
const MARKS = ['typecheck', 'vitest', 'continues'] as const;
type Mark = (typeof MARKS)[number];

/** A comment that means to be a mark, well formed or not: anything after `<!-- example`. */
const MARK_COMMENT = /^\s*<!--\s*example\b(.*)-->\s*$/;

export interface DocExample {
  /** The page, as given (README.md, docs/agent.md). */
  readonly doc: string;
  /** The 1-based line of the page that opens the example's first fence. */
  readonly line: number;
  readonly mode: ExampleMode;
  readonly language: 'ts' | 'js';
  /** The module's file name, after the page and the line: docs-agent-md-L25.mts, a vitest one as *.test.mts. */
  readonly file: string;
  /** The module's source: the fence's content, and every fence that continues it, in page order. */
  readonly code: string;
  /** The page's line of each line of `code`: lines[0] is the page line of the module's line 1. */
  readonly lines: readonly number[];
  /** What it prints, a line each, from its `// prints:` comments; empty when it shows no output. */
  readonly prints: readonly string[];
}

/** A `// prints: <text>` comment at the end of a line: the text is what the line writes to standard output. */
const PRINTS = /\/\/ prints: (.*?)\s*$/;

/** The texts of a module's `// prints:` comments, in order. */
const printsOf = (code: string): string[] => code.split('\n').flatMap((line) => PRINTS.exec(line)?.[1] ?? []);

const md = new MarkdownIt();

/** The mark on the line before a fence, or null for none; throws for a comment that is not a known mark. */
function markOf(doc: string, line: number, before: string | undefined): Mark | null {
  const comment = before === undefined ? null : MARK_COMMENT.exec(before);
  if (!comment) return null;
  const mark = /^:\s*([a-z-]+)\s*$/.exec(comment[1]!)?.[1];
  if (mark === undefined || !(MARKS as readonly string[]).includes(mark)) {
    throw new Error(`${doc}:${line - 1}: ${before!.trim()} is not an example mark; the marks are ${MARKS.map((m) => `<!-- example: ${m} -->`).join(', ')}`);
  }
  return mark as Mark;
}

/** The module file name of an example: the page's path and the line, in the characters a file name keeps anywhere. */
function fileName(doc: string, line: number, mode: ExampleMode, language: 'ts' | 'js'): string {
  const base = `${doc.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}-L${line}`;
  return `${base}${mode === 'vitest' ? '.test' : ''}.${language === 'ts' ? 'mts' : 'mjs'}`;
}

/**
 * Every example of one page, in page order, with the fences that continue one folded into it.
 * `doc` names the page in file names and messages; `text` is its Markdown. Throws for an unknown
 * mark, and for a `continues` with nothing before it to continue or in another language.
 */
export function extractExamples(doc: string, text: string): DocExample[] {
  const source = text.split('\n');
  const examples: DocExample[] = [];
  for (const token of md.parse(text, {})) {
    if (token.type !== 'fence' || !token.map) continue;
    const language = LANGUAGES[token.info.trim().split(/\s+/, 1)[0]!.toLowerCase()];
    if (language === undefined) continue;
    const line = token.map[0] + 1;
    const mark = markOf(doc, line, source[line - 2]);
    // The content is the fence's lines less the fence lines themselves (and less a list's indent).
    const code = token.content;
    const lines = Array.from({ length: code.split('\n').length - 1 }, (_, i) => line + 1 + i);
    if (mark === 'continues') {
      const previous = examples.pop();
      if (!previous) throw new Error(`${doc}:${line}: <!-- example: continues --> with no example before it on the page`);
      if (previous.language !== language) {
        throw new Error(`${doc}:${line}: a ${language} fence cannot continue the ${previous.language} example of line ${previous.line}`);
      }
      examples.push({ ...previous, code: previous.code + code, lines: [...previous.lines, ...lines], prints: printsOf(previous.code + code) });
      continue;
    }
    const mode: ExampleMode = mark ?? 'run';
    examples.push({ doc, line, mode, language, file: fileName(doc, line, mode, language), code, lines, prints: printsOf(code) });
  }
  for (const example of examples) {
    if (example.prints.length > 0 && example.mode !== 'run') throw new Error(`${doc}:${example.line}: a ${example.mode} example prints nothing the test can check; only an example that runs with node may say what it prints`);
  }
  return examples;
}

/**
 * tsc's output (--pretty false) with each error in an example module told at its page line:
 * `examples/docs-agent-md-L25.mts(3,7): error TS2304: ...` becomes `docs/agent.md:27: error TS2304: ...`.
 * An error elsewhere (a declaration file) is kept as tsc wrote it. Each error keeps the indented
 * lines that explain it, joined to it, so that one error is one string.
 */
export function docErrors(output: string, examples: readonly DocExample[], folder = 'examples'): string[] {
  const byFile = new Map(examples.map((example) => [`${folder}/${example.file}`, example]));
  const errors: string[] = [];
  for (const line of output.split('\n')) {
    if (/^\s/.test(line) && errors.length > 0 && line.trim() !== '') {
      errors[errors.length - 1] += `\n${line}`;
      continue;
    }
    const at = /^(.+?)\((\d+),\d+\): (error TS\d+: .*)$/.exec(line);
    if (!at) {
      if (/error TS\d+/.test(line)) errors.push(line);
      continue;
    }
    const example = byFile.get(at[1]!.replace(/\\/g, '/'));
    errors.push(example ? `${example.doc}:${example.lines[Number(at[2]) - 1] ?? example.line}: ${at[3]}` : line);
  }
  return errors;
}

/** Stderr that tells of an uncaught error or rejection: a stack frame, an `Error:` line, or Node's own words for one. */
export const UNCAUGHT = /^(?:\s+at .+:\d+:\d+\)?|\w*Error(?: \[\w+\])?: .*|Uncaught .*|.*\bUnhandled(?:PromiseRejection| promise rejection).*)$/m;
