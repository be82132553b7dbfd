// codegen --extend on a site catalog that may come from an untrusted pull request (issue 16, part 3):
// text that would inject markup into the generated pages, and a code that would name a path outside
// the output folder, are refused with the field and the problem named, and nothing is written. The
// render-time escaping is tested on its own too, as the second line of defence.
import { access, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError, type Catalog } from '../../codegen/catalog-model.js';
import { codeTable, emitProblemPage } from '../../codegen/emit-docs.js';
import { extendCatalog } from '../../codegen/extend.js';
import { loadCatalog } from '../../codegen/load-catalog.js';
import { ROOT } from '../../codegen/paths.js';
import { run } from '../../src/tools/cli.js';

const fixture = (name: string) => join(ROOT, 'test/fixtures/extend', name);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

/** An extension catalog of one code, `name`, with `edit` applied to an entry that is otherwise valid. */
function extension(name: string, edit: (entry: Record<string, unknown> & { example: Record<string, unknown> }) => void = () => {}): string {
  const entry = { status: 409, retry: 'refetch', title: 'A title', advice: 'Some advice.', example: { message: 'A message', detail: 'A detail.' } };
  edit(entry);
  return JSON.stringify({ codes: { [name]: entry } });
}
const refusal = (text: string): Promise<CatalogError> => extendCatalog(text, 'site.json').then(
  () => {
    throw new Error(`accepted: ${text}`);
  },
  (error: unknown) => {
    expect(error).toBeInstanceOf(CatalogError);
    return error as CatalogError;
  },
);
const exists = (path: string): Promise<boolean> => access(path).then(
  () => true,
  () => false,
);

describe('codegen --extend refuses markup in the text it renders', () => {
  it('names each field that holds markup and what is wrong with its value', async () => {
    const error = (await extendCatalog(await readFile(fixture('injection.json'), 'utf8'), 'injection.json').catch((e: unknown) => e)) as CatalogError;
    expect(error).toBeInstanceOf(CatalogError);
    const said = error.problems.map((p) => [p.pointer, p.reason.replace(/ is refused: it must (not hold |be )?(\S+).*$/, ' $2')]);
    expect(said).toEqual([
      ['/codes/script_title/title', 'the value "<script>alert(1)</script>" <'],
      ['/codes/img_advice/advice', 'the value "See <img src=x onerror=alert(1)>" <'],
      ['/codes/js_link/example/message', 'the value "[click here](javascript:alert(1))" a'],
      ['/codes/js_link/example/message', 'the value "[click here](javascript:alert(1))" a'],
      ['/codes/md_image/example/detail', 'the value "![logo](https://evil.example/x.png)" a'],
      ['/codes/comment_close/advice', 'the value "Done --> <!-- codes:end -->" <'],
      ['/codes/backtick_advice/advice', 'the value "Run `rm -rf /` first" a'],
      ['/codes/newline_advice/advice', 'the value "Line one\\n| injected | row |" one'],
      ['/codes/bidi_title/title', 'the value "abc\\u202edcba" bidirectional'],
      ['/codes/field_markup/example/field', 'the value "<b>sku</b>" <'],
    ]);
    const js = error.problems.filter((p) => p.pointer === '/codes/js_link/example/message').map((p) => p.reason);
    expect(js[0]).toContain('must not hold a Markdown link or image');
    expect(js[1]).toContain('must not hold a javascript: or vbscript: URL');
    expect(error.problems[0]!.reason).toBe(
      'the value "<script>alert(1)</script>" is refused: it must not hold < or >, which would open an HTML tag or close a comment (<script>, <img onerror=...>, -->) in the generated pages.',
    );
  });

  it('exits 2 from the CLI (invalid input) with the file, pointer and reason, and writes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-errors-ext-safety-'));
    dirs.push(dir);
    const out = join(dir, 'generated');
    let err = '';
    expect(await run(['codegen', '--extend', fixture('injection.json'), '--out', out], () => {}, (t) => void (err += t))).toBe(2);
    expect(err).toContain('injection.json#/codes/script_title/title: the value "<script>alert(1)</script>" is refused: it must not hold < or >');
    expect(err).toContain('injection.json#/codes/newline_advice/advice: the value "Line one\\n| injected | row |" is refused: it must be one line');
    expect(await exists(out)).toBe(false);
  });

  it('says "must be string" once for a value that is no string, not once per constraint', async () => {
    const error = await refusal(extension('odd_title', (e) => void (e.title = 5)));
    expect(error.problems).toEqual([{ pointer: '/codes/odd_title/title', reason: 'must be string' }]);
  });

  it('accepts ordinary prose: punctuation, ampersands, quotes, percent signs, brackets without a link, a pipe; not a ">"', async () => {
    const advice = 'Retry in 5 s (at most 3 times); 50% of calls & "quotes" are fine: items[0] | a/b.';
    const prose = (detail: string) => (e: Record<string, unknown>) => Object.assign(e, { advice, title: "It's fine", example: { message: 'm', detail, field: 'items[0].sku' } });
    // ">" is refused even in prose: it would close a comment.
    expect((await refusal(extension('plain_prose', prose('x > y')))).problems.map((p) => p.pointer)).toEqual(['/codes/plain_prose/example/detail']);
    const accepted = await extendCatalog(extension('plain_prose', prose('x &lt; y')), 'site.json');
    expect(accepted.codes.plain_prose!.advice).toBe(advice);
    const row = codeTable(accepted).split('\n').find((l) => l.startsWith('| `plain_prose` |'))!;
    expect(row).toContain('items\\[0\\] \\| a/b.');
    expect(row.split(/(?<!\\)\|/)).toHaveLength(8); // six cells between seven pipes
    expect(emitProblemPage(accepted, 'plain_prose')).toContain('<h1>It&#39;s fine</h1>');
  });
});

describe('codegen --extend refuses a code that names a path outside problems/', () => {
  it.each([['../x'], ['a/b'], ['a\\b'], ['.hidden'], ['x.html'], ['Upper'], ['a b']])('refuses the code %j by the code pattern', async (name) => {
    const error = await refusal(extension(name));
    const reason = `the key ${JSON.stringify(name)} is not allowed here: it must match pattern`;
    expect(error.problems).toEqual([{ pointer: '/codes', reason: expect.stringContaining(reason) }]);
  });

  it('refuses a Windows device name and a code too long for a file name', async () => {
    const device = 'the code "nul" is refused: it must not be a device name on Windows';
    expect((await refusal(extension('nul'))).problems).toEqual([{ pointer: '/codes', reason: expect.stringContaining(device) }]);
    const long = 'is refused: it must be at most 100 characters long';
    expect((await refusal(extension(`a${'_b'.repeat(50)}`))).problems).toEqual([{ pointer: '/codes', reason: expect.stringContaining(long) }]);
    await expect(extendCatalog(extension('console'), 'site.json')).resolves.toBeDefined();
  });
});

describe('text in the generated pages is escaped as it is rendered (the second line of defence)', () => {
  // Characters that mean something to Markdown or HTML, and line breaks.
  const markup = fc.string({ unit: fc.constantFrom(...'<>`|[]()!\\&"\'/-:=*_#\n\r\u2028 aj'.split(''), 'javascript:', '-->', '<script>', '](', 'onerror='), maxLength: 40 });
  let base: Catalog;
  const withText = async (text: string): Promise<Catalog> => {
    base ??= await loadCatalog();
    const entry = { ...base.codes.not_found!, title: text, advice: text, example: { ...base.codes.not_found!.example, message: text, detail: text, field: text } };
    return { ...base, codes: { probe: entry } };
  };
  const md = new MarkdownIt({ html: true, linkify: true });

  it('keeps any advice in its one table cell, as text: no tag, no link, no code, no extra row', async () => {
    await fc.assert(
      fc.asyncProperty(markup, async (text) => {
        const html = md.render(codeTable(await withText(text)));
        expect(html.match(/<tr>/g), text).toHaveLength(2);
        expect(html.match(/<td>/g), text).toHaveLength(6);
        expect(html.match(/<code>/g), text).toHaveLength(3); // the code, the retry word and the next step
        expect(html, text).not.toMatch(/<(?:a|img|script)\b/);
      }),
      { numRuns: 500 },
    );
  });

  it('adds no tag to a problem page, whatever its title, advice and example say', async () => {
    const tags = (page: string): number => page.split('<').length;
    const plain = tags(emitProblemPage(await withText('plain'), 'probe'));
    await fc.assert(
      fc.asyncProperty(markup, async (text) => {
        expect(tags(emitProblemPage(await withText(text), 'probe')), text).toBe(plain);
      }),
      { numRuns: 300 },
    );
  });

  it('accepts from a site only text that has none of it, so the escaping never has to act', async () => {
    await fc.assert(
      fc.asyncProperty(markup.filter((s) => /\S/.test(s)), async (text) => {
        const accepted = await extendCatalog(extension('probe_code', (e) => void (e.advice = text)), 'site.json').then(
          () => true,
          () => false,
        );
        if (accepted) expect(text, text).toMatch(/^[^<>`\n\r\u2028]*$/);
      }),
      { numRuns: 150 },
    );
  });
});
