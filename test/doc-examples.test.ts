// The extractor test/pack.test.ts checks the documentation's examples with: which fences it takes,
// what each mark does, the page line every module line maps back to, and how a tsc error and an
// uncaught error are recognized. Fast: no pack, no tsc, no child process.
import { describe, expect, it } from 'vitest';
import { docErrors, extractExamples, UNCAUGHT } from './helpers/doc-examples.js';

const page = [
  '# A page', //                                           1
  '', //                                                   2
  '```ts', //                                              3
  "import { lookup } from '@agent-index/errors';", //      4
  "lookup('rate_limited');", //                            5
  '```', //                                                6
  '', //                                                   7
  'Then, a second call:', //                               8
  '', //                                                   9
  '<!-- example: continues -->', //                        10
  '```ts', //                                              11
  "lookup('not_found');", //                               12
  '```', //                                                13
  '', //                                                   14
  '<!-- example: typecheck -->', //                        15
  '```typescript title="remote.ts"', //                    16
  "await fetch('https://api.example.com/');", //           17
  '```', //                                                18
  '', //                                                   19
  '- In a list:', //                                       20
  '', //                                                   21
  '  ```js', //                                            22
  '  console.log(1);', //                                  23
  '  ```', //                                              24
  '', //                                                   25
  '<!-- example: vitest -->', //                           26
  '```mjs', //                                             27
  "import { it } from 'vitest';", //                       28
  "it('works', () => {});", //                             29
  '```', //                                                30
  '', //                                                   31
  '````md', //                                             32
  '```ts', //                                              33
  'not an example: a fence shown inside another', //      34
  '```', //                                                35
  '````', //                                               36
  '', //                                                   37
  '```json', //                                            38
  '{}', //                                                 39
  '```', //                                                40
  '```sh', //                                              41
  'npm test', //                                           42
  '```', //                                                43
].join('\n');

describe('extractExamples', () => {
  const examples = extractExamples('docs/some page.md', page);

  it('takes the ts, typescript, js, javascript and mjs fences, a list\'s too, and no other fence nor one shown inside another', () => {
    expect(examples.map((e) => [e.line, e.language, e.mode, e.file])).toEqual([
      [3, 'ts', 'run', 'docs-some-page-md-L3.mts'],
      [16, 'ts', 'typecheck', 'docs-some-page-md-L16.mts'],
      [22, 'js', 'run', 'docs-some-page-md-L22.mjs'],
      [27, 'js', 'vitest', 'docs-some-page-md-L27.test.mjs'],
    ]);
  });

  it('folds a fence marked continues into the example before it, each line still mapped to its page line', () => {
    const [first] = examples;
    expect(first!.code).toBe("import { lookup } from '@agent-index/errors';\nlookup('rate_limited');\nlookup('not_found');\n");
    expect(first!.lines).toEqual([4, 5, 12]);
  });

  it('keeps a list\'s fence without its indent', () => {
    expect(examples[2]!.code).toBe('console.log(1);\n');
    expect(examples[2]!.lines).toEqual([23]);
  });

  it('refuses a mark it does not know, so that a typo or a "skip" cannot pass unchecked', () => {
    expect(() => extractExamples('README.md', 'Text\n<!-- example: skip -->\n```ts\nx;\n```\n')).toThrow(
      'README.md:2: <!-- example: skip --> is not an example mark; the marks are ' +
        '<!-- example: typecheck -->, <!-- example: vitest -->, <!-- example: continues -->',
    );
    expect(() => extractExamples('README.md', '<!-- example typecheck -->\n```ts\nx;\n```\n')).toThrow('README.md:1:');
  });

  it('refuses a continues with nothing to continue, or in another language', () => {
    const alone = '<!-- example: continues -->\n```ts\nx;\n```\n';
    expect(() => extractExamples('a.md', alone)).toThrow('a.md:2: <!-- example: continues --> with no example before it');
    const mixed = '```ts\nx;\n```\n<!-- example: continues -->\n```js\ny;\n```\n';
    expect(() => extractExamples('a.md', mixed)).toThrow('a.md:5: a js fence cannot continue the ts example of line 1');
  });

  it('takes what an example prints from its // prints: comments, in order, through a continued fence, and no other comment', () => {
    const text = [
      '```ts',
      "console.log(lookup('rate_limited').status); // prints: 429",
      'console.log(1); // a number',
      '```',
      '<!-- example: continues -->',
      '```ts',
      'console.log(JSON.stringify({ a: 1 }));',
      '// prints: {"a":1}',
      '```',
    ].join('\n');
    expect(extractExamples('a.md', text).map((e) => e.prints)).toEqual([['429', '{"a":1}']]);
    expect(examples.every((e) => e.prints.length === 0)).toBe(true);
  });

  it('refuses a // prints: comment in an example that does not run with node, whose output nothing checks', () => {
    expect(() => extractExamples('a.md', '<!-- example: typecheck -->\n```ts\nconsole.log(1); // prints: 1\n```\n')).toThrow(
      'a.md:2: a typecheck example prints nothing the test can check',
    );
  });

  it('ignores any other comment before a fence', () => {
    expect(extractExamples('a.md', '<!-- peers:start -->\n```ts\nx;\n```\n').map((e) => e.mode)).toEqual(['run']);
  });
});

describe('docErrors', () => {
  it('tells an error in an example at its page line, keeps its explanation, and leaves any other error as tsc wrote it', () => {
    const examples = extractExamples('docs/some page.md', page);
    const output = [
      "examples/docs-some-page-md-L3.mts(3,1): error TS2345: Argument of type '\"not_found\"' is not assignable.",
      "  Type 'x' is not assignable to type 'y'.",
      'examples/docs-some-page-md-L16.mts(1,7): error TS2304: Cannot find name \'fetch\'.',
      'node_modules/some-peer/index.d.ts(10,3): error TS2300: Duplicate identifier.',
      'Found 3 errors.',
    ].join('\n');
    expect(docErrors(output, examples)).toEqual([
      "docs/some page.md:12: error TS2345: Argument of type '\"not_found\"' is not assignable.\n  Type 'x' is not assignable to type 'y'.",
      "docs/some page.md:17: error TS2304: Cannot find name 'fetch'.",
      'node_modules/some-peer/index.d.ts(10,3): error TS2300: Duplicate identifier.',
    ]);
    expect(docErrors('', examples)).toEqual([]);
  });
});

describe('UNCAUGHT', () => {
  it('finds what node prints for an uncaught error or rejection, and not a program\'s own output', () => {
    const uncaught = ['file:///x.mjs:2', 'throw new Error("boom");', '^', '', 'Error: boom', '    at file:///x.mjs:2:7', '', 'Node.js v20.20.2'].join('\n');
    expect(UNCAUGHT.test(uncaught)).toBe(true);
    expect(UNCAUGHT.test('TypeError: fetch failed')).toBe(true);
    expect(UNCAUGHT.test('    at ModuleJob.run (node:internal/modules/esm/module_job:325:25)')).toBe(true);
    expect(UNCAUGHT.test('[UnhandledPromiseRejection: This error originated either by throwing inside of an async function]')).toBe(true);
    expect(UNCAUGHT.test('')).toBe(false);
    expect(UNCAUGHT.test('Redis is unreachable: answering from memory until it is back')).toBe(false);
    expect(UNCAUGHT.test('rate_limited after_delay 30 Wait retry_after seconds, then retry.')).toBe(false);
  });
});
