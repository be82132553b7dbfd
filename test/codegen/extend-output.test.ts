// codegen --extend writes only into what is its own (issue 35, item 1): a folder that holds anything
// it did not write, the working directory, a folder above it, its input's folder and the package's own
// are refused with exit 2 and left as they were; a second run replaces its own files and removes those
// it no longer writes; and a run killed half way, a real child process sent SIGKILL, leaves the old
// output whole.
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, lstat, mkdir, mkdtemp, readdir, readFile, readlink, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderExtended } from '../../codegen/extend.js';
import { extendedHeaderSentence, isGeneratedText, markupHeader, scriptHeader } from '../../codegen/header.js';
import { loadCatalog } from '../../codegen/load-catalog.js';
import { checkOutFolder, commandPath } from '../../codegen/out-folder.js';
import { GENERATED_DIR, ROOT } from '../../codegen/paths.js';
import { renderGenerated } from '../../codegen/render.js';
import { OutputFolderError, writeOutput } from '../../codegen/write.js';
import { run } from '../../src/tools/cli.js';

const SITE_CODES = join(ROOT, 'test/fixtures/extend/site-codes.json');
const CLI = join(ROOT, 'src/tools/cli.ts');
const TSX = pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
const PAUSE = pathToFileURL(join(ROOT, 'test/codegen/pause-codegen.mjs')).href;

let base = '';
beforeAll(async () => void (base = await realpath(await mkdtemp(join(tmpdir(), 'agent-errors-out-')))));
afterAll(async () => rm(base, { recursive: true, force: true }));

let made = 0;
/** A new folder of its own under the test's temporary folder. */
const fresh = async (): Promise<string> => {
  const dir = join(base, `case-${++made}`);
  await mkdir(dir);
  return dir;
};

/** Every entry under `dir`, with a file's bytes, a link's target, or "folder": what a refused run must leave as it was. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const name of (await readdir(folder)).sort()) {
      const path = join(folder, name);
      const key = relative(dir, path);
      const stats = await lstat(path);
      if (stats.isSymbolicLink()) out[key] = `link to ${await readlink(path)}`;
      else if (stats.isDirectory()) {
        out[key] = 'folder';
        await walk(path);
      } else out[key] = (await readFile(path)).toString('base64');
    }
  };
  await walk(dir);
  return out;
}

/** The CLI in this process. */
async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, (t) => void (out += t), (t) => void (err += t));
  return { code, out, err };
}

/** The CLI (or another `script`) from the source as a child process in `cwd`, with `env` added; `done` resolves when it exits. */
function child(
  cwd: string,
  argv: string[],
  options: { env?: Record<string, string>; preload?: string | undefined; script?: string } = {},
): { process: ChildProcess; done: Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }> } {
  const preload = options.preload === undefined ? [] : ['--import', options.preload];
  const proc = spawn(process.execPath, ['--import', TSX, ...preload, options.script ?? CLI, ...argv], { cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (c: Buffer) => void (out += c.toString()));
  proc.stderr!.on('data', (c: Buffer) => void (err += c.toString()));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    proc.on('exit', (code, signal) => setImmediate(() => resolve({ code, signal, out, err }))),
  );
  return { process: proc, done };
}

/** An extension of the fixture's codes, or only some of them. */
async function extension(dir: string, name: string, keep?: string[]): Promise<string> {
  const all = JSON.parse(await readFile(SITE_CODES, 'utf8')) as { codes: Record<string, unknown> };
  const codes = keep === undefined ? all.codes : Object.fromEntries(Object.entries(all.codes).filter(([code]) => keep.includes(code)));
  const file = join(dir, name);
  await writeFile(file, JSON.stringify({ codes }));
  return file;
}

describe('codegen --extend writes only into a folder of its own', () => {
  it('refuses a folder that holds anything it did not write (exit 2), naming the folder and each such thing, and changes nothing', async () => {
    const dir = await fresh();
    const keep = join(dir, 'keep');
    await mkdir(join(keep, 'sub'), { recursive: true });
    await mkdir(join(keep, 'empty'));
    await writeFile(join(keep, 'notes.txt'), 'mine');
    await writeFile(join(keep, 'sub', 'deep.md'), '# mine too');
    // A file of the user's that bears the name of one codegen writes: still the user's.
    await writeFile(join(keep, 'catalog.js'), 'export const mine = 1;\n');
    await symlink(join(dir, 'elsewhere'), join(keep, 'link'));
    const before = await snapshot(dir);
    const refused = await cli('codegen', '--extend', SITE_CODES, '--out', keep);
    expect(refused.code).toBe(2);
    expect(refused.out).toBe('');
    expect(refused.err).toContain(`agent-errors codegen: --out ${keep} holds files codegen did not write, so it writes nothing there`);
    for (const path of ['catalog.js', 'empty/', 'link', 'notes.txt', 'sub/deep.md']) expect(refused.err).toContain(`\n  ${keep}/${path}`);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('writes into a folder that does not exist (with its parents), and into an empty one', async () => {
    const dir = await fresh();
    const files = await renderExtended(SITE_CODES, join(dir, 'a', 'b', 'generated'));
    expect(await cli('codegen', '--extend', SITE_CODES, '--out', join(dir, 'a', 'b', 'generated'))).toMatchObject({ code: 0, out: `wrote ${files.size} files to ${join(dir, 'a', 'b', 'generated')}\n` });
    const written = await snapshot(join(dir, 'a', 'b', 'generated'));
    expect(Object.keys(written).filter((p) => written[p] !== 'folder').sort()).toEqual([...files.keys()].sort());
    await mkdir(join(dir, 'empty'));
    expect((await cli('codegen', '--extend', SITE_CODES, '--out', join(dir, 'empty'))).code).toBe(0);
    // Nothing is left beside the folders: the temporary ones are gone.
    expect((await readdir(dir)).sort()).toEqual(['a', 'empty']);
    expect(await readdir(join(dir, 'a'))).toEqual(['b']);
  });

  it('on a second run replaces its own files, removes those it no longer writes, and leaves nothing else', async () => {
    const dir = await fresh();
    const out = join(dir, 'generated');
    const three = await extension(dir, 'three.json');
    const one = await extension(dir, 'one.json', ['coupon_expired']);
    expect((await cli('codegen', '--extend', three, '--out', out)).code).toBe(0);
    // Edited below the header: still codegen's, and replaced.
    await writeFile(join(out, 'ERRORS.md'), `${await readFile(join(out, 'ERRORS.md'), 'utf8')}a note by hand\n`);
    const second = await cli('codegen', '--extend', one, '--out', out, '--json');
    expect(second.code).toBe(0);
    const expected = await renderExtended(one, out);
    expect(JSON.parse(second.out)).toEqual({
      out,
      wrote: [...expected.keys()].sort(),
      removed: ['problems/basket_locked.html', 'problems/gift_note_too_long.html'],
    });
    const onDisk = await snapshot(out);
    expect(Object.keys(onDisk).filter((p) => onDisk[p] !== 'folder').sort()).toEqual([...expected.keys()].sort());
    for (const [path, text] of expected) expect(Buffer.from(onDisk[path]!, 'base64').toString('utf8'), path).toBe(text);
    expect((await readdir(dir)).sort()).toEqual(['generated', 'one.json', 'three.json']);
    const text = await cli('codegen', '--extend', three, '--out', out);
    expect(text).toMatchObject({ code: 0, out: `wrote ${(await renderExtended(three, out)).size} files to ${out}\n` });
    expect((await cli('codegen', '--extend', one, '--out', out)).out).toBe(
      `wrote ${expected.size} files to ${out}, and removed 2 it no longer writes: ${out}/problems/basket_locked.html, ${out}/problems/gift_note_too_long.html\n`,
    );
  });

  it("refuses the folder when the user has put a file of their own (no codegen header) where a generated one was: it is theirs now", async () => {
    const dir = await fresh();
    const out = join(dir, 'generated');
    expect((await cli('codegen', '--extend', SITE_CODES, '--out', out)).code).toBe(0);
    await writeFile(join(out, 'ERRORS.md'), '# Our error codes, by hand\n');
    const before = await snapshot(dir);
    const refused = await cli('codegen', '--extend', SITE_CODES, '--out', out);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining(`\n  ${out}/ERRORS.md`) });
    expect(await snapshot(dir)).toEqual(before);
  });

  it('refuses the working directory, a folder above it, and the folder of its input or above it, whatever they hold, and changes nothing', async () => {
    const project = await fresh();
    await mkdir(join(project, 'src'));
    await mkdir(join(project, 'site'));
    await writeFile(join(project, 'app.js'), 'console.log("the app");\n');
    await writeFile(join(project, 'src', 'index.js'), 'export {};\n');
    await writeFile(join(project, 'site-codes.json'), await readFile(SITE_CODES));
    await writeFile(join(project, 'site', 'site-codes.json'), await readFile(SITE_CODES));
    const before = await snapshot(project);
    const cases: [extend: string, out: string, says: string][] = [
      ['site-codes.json', '.', '--out . is the working directory.'],
      ['site-codes.json', './', '--out ./ is the working directory.'],
      ['site-codes.json', project, `--out ${project} is the working directory.`],
      ['site-codes.json', 'src/..', '--out src/.. is the working directory.'],
      ['site-codes.json', '..', `--out .. is ${base}, a folder above the working directory.`],
      ['site/site-codes.json', 'site', `--out site is ${join(project, 'site')}, which holds the --extend file site/site-codes.json.`],
      ['site/site-codes.json', 'site/', `--out site/ is ${join(project, 'site')}, which holds the --extend file site/site-codes.json.`],
    ];
    const runs = await Promise.all(cases.map(([extend, out]) => child(project, ['codegen', '--extend', extend, '--out', out]).done));
    cases.forEach(([, out, says], i) => {
      const { code, err } = runs[i]!;
      expect(code, `--out ${out}\n${err}`).toBe(2);
      expect(err, out).toContain(`agent-errors codegen: ${says}`);
      expect(err, out).not.toMatch(/\n\s+at /);
    });
    // It names what it would have replaced.
    expect(runs[0]!.err).toMatch(/would have replaced:\n {2}\.\/app\.js\n {2}\.\/site-codes\.json\n {2}\.\/site\/\n {2}\.\/src\/\n/);
    expect(await snapshot(project)).toEqual(before);
    // The same project writes to a folder of its own, beside the input, spelled any way.
    const ok = await child(project, ['codegen', '--extend', 'site/site-codes.json', '--out', 'site/generated/']).done;
    expect(ok.code, ok.err).toBe(0);
    // An empty working directory is refused too: the rule is where a folder is, not what it holds.
    const empty = await fresh();
    const inEmpty = await child(empty, ['codegen', '--extend', SITE_CODES, '--out', '.']).done;
    expect(inEmpty).toMatchObject({ code: 2, err: 'agent-errors codegen: --out . is the working directory. Codegen replaces its output folder whole, so it never writes to the working directory or a folder above it, the folder of its --extend file or above it, or this package\'s own folder. Choose a folder of its own, such as --out generated.\n' });
    expect(await readdir(empty)).toEqual([]);
  }, 60_000);

  it("refuses the package's own folder, a folder inside it and one above it", async () => {
    const dir = await fresh();
    const pkg = join(dir, 'node_modules', '@agent-index', 'errors');
    await mkdir(join(pkg, 'generated'), { recursive: true });
    const elsewhere = join(dir, 'work');
    await mkdir(elsewhere);
    const check = (out: string) => checkOutFolder(out, { extend: join(dir, 'site-codes.json'), packageRoot: pkg, cwd: elsewhere });
    for (const out of [pkg, join(pkg, 'generated'), join(pkg, 'generated', 'deeper'), join(dir, 'node_modules')]) {
      const error = await check(out).catch((e: unknown) => e);
      expect(error, out).toBeInstanceOf(OutputFolderError);
      expect((error as Error).message, out).toContain('inside or above the @agent-index/errors package itself');
    }
    expect(await check(join(elsewhere, 'generated'))).toBe(join(elsewhere, 'generated'));
    // And through the CLI, this package's own folder (which holds much else besides, so it is refused twice over).
    const refused = await cli('codegen', '--extend', SITE_CODES, '--out', ROOT);
    expect(refused).toMatchObject({ code: 2, err: expect.stringContaining(`agent-errors codegen: --out ${ROOT} is `) });
  });

  it('refuses a file as --out', async () => {
    const dir = await fresh();
    await writeFile(join(dir, 'file'), 'x');
    expect(await cli('codegen', '--extend', SITE_CODES, '--out', join(dir, 'file'))).toMatchObject({ code: 2, err: `agent-errors codegen: --out ${join(dir, 'file')} is a file, not a folder.\n` });
    expect(await readFile(join(dir, 'file'), 'utf8')).toBe('x');
  });

  it('npm run codegen (codegen/main.ts, in a copy of the repo) rewrites generated/ byte for byte, and refuses it once it holds a file of someone else', async () => {
    const repo = join(await fresh(), 'repo');
    for (const path of ['codegen', 'schema', 'generated', 'package.json', 'README.md', 'docs/tooling.md']) await cp(join(ROOT, path), join(repo, path), { recursive: true });
    await symlink(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
    const before = await snapshot(join(repo, 'generated'));
    const main = () => child(repo, [], { script: join(repo, 'codegen/main.ts') }).done;
    const wrote = await main();
    expect(wrote.code, wrote.err).toBe(0);
    expect(wrote.out).toMatch(/^wrote \d+ files to generated\//);
    expect(await snapshot(join(repo, 'generated'))).toEqual(before);
    expect((await readdir(repo)).sort()).toEqual(['README.md', 'codegen', 'docs', 'generated', 'node_modules', 'package.json', 'schema']);
    await writeFile(join(repo, 'generated', 'notes.md'), 'mine');
    const refused = await main();
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('generated holds files codegen did not write');
    expect(refused.err).toContain('  generated/notes.md');
    expect(await readFile(join(repo, 'generated', 'notes.md'), 'utf8')).toBe('mine');
    const check = await child(repo, ['--check'], { script: join(repo, 'codegen/main.ts') }).done;
    expect(check).toMatchObject({ code: 1, err: expect.stringContaining('generated/notes.md was not written by codegen') });
  }, 60_000);

  it("rewrites the package's own generated/ (a copy of it) as it is: every file there is codegen's, and none changes", async () => {
    const copy = join(await fresh(), 'generated');
    await cp(GENERATED_DIR, copy, { recursive: true });
    const before = await snapshot(copy);
    const result = await writeOutput(await renderGenerated(await loadCatalog()), copy, 'generated');
    expect(result.removed).toEqual([]);
    expect(await snapshot(copy)).toEqual(before);
  });
});

describe('a codegen run killed half way', () => {
  /** Writes with `extend`, then runs again with `next` in a child paused at `at` and killed there. */
  async function killedAt(at: string): Promise<{ dir: string; out: string; before: Record<string, string>; one: string }> {
    const dir = await fresh();
    const out = join(dir, 'generated');
    const three = await extension(dir, 'three.json');
    const one = await extension(dir, 'one.json', ['coupon_expired']);
    expect((await cli('codegen', '--extend', three, '--out', out)).code).toBe(0);
    const before = await snapshot(out);
    const run = child(dir, ['codegen', '--extend', one, '--out', out], { preload: PAUSE, env: { CODEGEN_PAUSE_AT: at } });
    // True once it has paused; what it said on standard error if it ended first.
    const paused = await new Promise<true | string>((resolve) => {
      run.process.stderr!.on('data', (chunk: Buffer) => chunk.toString().includes('codegen paused') && resolve(true));
      void run.done.then(({ err }) => resolve(err));
    });
    expect(paused, `the child ended before it paused at ${at}`).toBe(true);
    run.process.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    return { dir, out, before, one };
  }

  /** The temporary folders a run leaves beside --out. */
  const leftovers = async (dir: string): Promise<string[]> => (await readdir(dir)).filter((name) => /\.codegen-\d+-[0-9a-f]{8}\.(?:next|old)$/.test(name));

  it('while it writes: the old output is whole, and a rerun writes the new one and clears the temporary folder', async () => {
    const { dir, out, before, one } = await killedAt('write:12');
    expect(await snapshot(out)).toEqual(before);
    expect(await leftovers(dir)).toHaveLength(1);
    const rerun = await cli('codegen', '--extend', one, '--out', out, '--json');
    expect(rerun.code, rerun.err).toBe(0);
    expect(JSON.parse(rerun.out).removed).toEqual(['problems/basket_locked.html', 'problems/gift_note_too_long.html']);
    expect(await leftovers(dir)).toEqual([]);
    expect((await cli('codegen', '--extend', one, '--out', out, '--check')).code).toBe(0);
  }, 60_000);

  it('between its two renames: the old output is whole beside --out, and a rerun writes the new one and clears both temporary folders', async () => {
    const { dir, out, before, one } = await killedAt('swap');
    const left = await leftovers(dir);
    expect(left.map((name) => name.slice(name.lastIndexOf('.'))).sort()).toEqual(['.next', '.old']);
    expect(await snapshot(join(dir, left.find((name) => name.endsWith('.old'))!))).toEqual(before);
    expect((await cli('codegen', '--extend', one, '--out', out)).code).toBe(0);
    expect(await leftovers(dir)).toEqual([]);
    expect((await cli('codegen', '--extend', one, '--out', out, '--check')).code).toBe(0);
  }, 60_000);

  it('leaves a temporary folder of a run still going alone', async () => {
    const dir = await fresh();
    const out = join(dir, 'generated');
    // This process's own id: a run that is still going.
    const busy = join(dir, `.generated.codegen-${process.pid}-0123abcd.next`);
    await mkdir(busy);
    await writeFile(join(busy, 'catalog.js'), scriptHeader('x', extendedHeaderSentence('a.json', 'generated')));
    expect((await cli('codegen', '--extend', SITE_CODES, '--out', out)).code).toBe(0);
    expect(await readdir(busy)).toEqual(['catalog.js']);
  });
});

describe('what codegen takes for its own, and paths as paths', () => {
  const text = fc.string({ unit: 'binary', maxLength: 40 });

  it('knows its header in every place it writes one, whatever the --extend and --out arguments', () => {
    fc.assert(
      fc.property(text, text, (extend, out) => {
        const sentence = extendedHeaderSentence(extend, out);
        expect(isGeneratedText(scriptHeader('x', sentence))).toBe(true);
        expect(isGeneratedText(`<!doctype html>\n${markupHeader('x', sentence)}<html>`)).toBe(true);
        const json = JSON.stringify({ openapi: '3.1.0', info: { title: 't', version: '1' }, 'x-generated': sentence('x') }, null, 2);
        expect(isGeneratedText(json)).toBe(true);
      }),
    );
  });

  it('takes no other text for its own: a file must open with the header where codegen writes it', () => {
    const sentence = extendedHeaderSentence('site-codes.json', 'generated')('x');
    expect(isGeneratedText(`# Notes\n\nOur files say: ${sentence}\n`)).toBe(false);
    expect(isGeneratedText(`/* ${sentence} */`)).toBe(false);
    expect(isGeneratedText(JSON.stringify({ info: { 'x-generated': sentence } }, null, 2))).toBe(false);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (body) => {
        expect(isGeneratedText(body.replaceAll('Generated by', ''))).toBe(false);
      }),
    );
  });

  it('refuses any folder that holds a file it did not write, and leaves every byte of it', async () => {
    const files = await renderExtended(SITE_CODES, 'generated');
    // Files and folders named apart (f-..., d-...), so that no entry's file stands where another's folder must.
    const name = (prefix: string) => fc.stringMatching(/^[a-zA-Z0-9_.-]{0,11}$/).map((n) => `${prefix}${n}`);
    const entry = fc.record({ folder: fc.option(name('d-'), { nil: undefined }), name: name('f-'), body: fc.string({ maxLength: 300 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 4 }), async (entries) => {
        const dir = await fresh();
        const out = join(dir, 'out');
        await mkdir(out);
        for (const { folder, name: file, body } of entries) {
          const at = folder === undefined ? out : join(out, folder);
          await mkdir(at, { recursive: true });
          await writeFile(join(at, file), body.replaceAll('Generated by', ''));
        }
        const before = await snapshot(dir);
        const error = await writeOutput(files, out, out).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(OutputFolderError);
        expect(await snapshot(dir)).toEqual(before);
      }),
      { numRuns: 25 },
    );
  });

  it('names one path one way in the headers, however it is spelled', () => {
    const segment = fc.stringMatching(/^[a-z0-9_-]{1,8}$/);
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), (parts) => {
        const plain = parts.join('/');
        const spellings = [plain, `./${plain}`, `${plain}/`, `${plain}//`, parts.join('//'), `${parts[0]}/../${plain}`, join(process.cwd(), plain)];
        for (const spelled of spellings) expect(commandPath(spelled), spelled).toBe(plain);
      }),
    );
    expect(commandPath(join(tmpdir(), 'x'), tmpdir())).toBe('x');
  });
});
