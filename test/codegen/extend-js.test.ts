// What `codegen --extend` writes is JavaScript with declarations that codegen writes itself, with no
// TypeScript installed (issue 35, item 2): the JavaScript runs in Node with the package resolvable, the
// declarations type-check under TypeScript 5 (this repo's devDependency) and state exactly the types
// the package's own TypeScript form of the same modules has, and literalType gives any JSON value the
// type `as const` gives it.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extendCatalog } from '../../codegen/extend.js';
import { extendedHeaderSentence } from '../../codegen/header.js';
import { constant, literalType, moduleDts, moduleJs, moduleTs, type GeneratedModule } from '../../codegen/module.js';
import { commandPath } from '../../codegen/out-folder.js';
import { ROOT } from '../../codegen/paths.js';
import { renderGenerated, renderModules } from '../../codegen/render.js';
import { run } from '../../src/tools/cli.js';

const SITE_CODES = join(ROOT, 'test/fixtures/extend/site-codes.json');

let dir = '';
let out = '';
/** The modules of the extended catalog, as codegen describes them before they take a form. */
let modules: Map<string, GeneratedModule>;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'agent-errors-js-')));
  out = join(dir, 'out');
  expect(await run(['codegen', '--extend', SITE_CODES, '--out', out], () => {}, () => {})).toBe(0);
  const catalog = await extendCatalog(await readFile(SITE_CODES, 'utf8'), SITE_CODES);
  const header = extendedHeaderSentence(commandPath(SITE_CODES), commandPath(out));
  modules = await renderModules(catalog, header);
  // The same modules as the package's own generated/ has them, TypeScript, to compare the declarations with.
  for (const [path, text] of await renderGenerated(catalog, { rules: false, header, form: 'ts' })) {
    await mkdir(dirname(join(dir, 'ts', path)), { recursive: true });
    await writeFile(join(dir, 'ts', path), text);
  }
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'a-site', private: true, type: 'module' }));
}, 60_000);
afterAll(async () => rm(dir, { recursive: true, force: true }));

/**
 * Type-checks `files` (name to text, written into `folder` under the test's folder) with TypeScript 5,
 * strict, as a site on Node would, with @agent-index/errors/site resolved to this repo's source. Only
 * what is wrong in the test's folder is returned: the repo's own files are not on trial here.
 */
async function typeErrors(folder: string, files: Record<string, string>, roots: string[] = []): Promise<string[]> {
  const at = join(dir, folder);
  await mkdir(at, { recursive: true });
  for (const [name, text] of Object.entries(files)) await writeFile(join(at, name), text);
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    // Checked, not skipped: the declarations codegen writes are what is on trial.
    skipLibCheck: false,
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    baseUrl: dir,
    paths: { '@agent-index/errors/site': [join(ROOT, 'src/site/index.ts')] },
  };
  const program = ts.createProgram([...Object.keys(files).map((name) => join(at, name)), ...roots], options);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file?.fileName.startsWith(`${dir}/`))
    .map((d) => `${d.file!.fileName.slice(dir.length + 1)}:${d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
}

describe('the JavaScript codegen --extend writes', () => {
  it('needs no TypeScript: codegen imports none', async () => {
    const names = (await readdir(join(ROOT, 'codegen'))).filter((name) => name.endsWith('.ts'));
    expect(names).toContain('extend.ts');
    for (const name of names) expect(await readFile(join(ROOT, 'codegen', name), 'utf8'), name).not.toMatch(/from 'typescript'|import\('typescript'\)|require\('typescript'\)/);
    const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8'));
    expect(pkg.peerDependencies?.typescript).toBeUndefined();
    expect(pkg.peerDependenciesMeta?.typescript).toBeUndefined();
  });

  it('runs with TypeScript not to be had: a real codegen --extend in a process where importing typescript fails', async () => {
    const loader = ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, '--import', pathToFileURL(join(ROOT, 'test/codegen/no-typescript.mjs')).href];
    // The hook holds: typescript cannot be imported in such a process.
    const probe = spawnSync(process.execPath, [...loader, '--input-type=module', '-e', "await import('typescript').then(() => process.exit(3), () => process.exit(0));"], { cwd: ROOT, encoding: 'utf8' });
    expect(probe.status, probe.stderr).toBe(0);
    const target = join(dir, 'without-typescript');
    const ran = spawnSync(process.execPath, [...loader, join(ROOT, 'src/tools/cli.ts'), 'codegen', '--extend', SITE_CODES, '--out', target, '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).wrote).toEqual(expect.arrayContaining(['catalog.js', 'catalog.d.ts', 'errors.js', 'errors.d.ts', 'types.d.ts']));
    expect(await readFile(join(target, 'catalog.d.ts'), 'utf8')).toBe(await readFile(join(out, 'catalog.d.ts'), 'utf8').then((text) => text.replaceAll(commandPath(out), commandPath(target))));
  }, 60_000);

  it('holds, for each module, the values its description holds', async () => {
    for (const [name, module] of modules) {
      const loaded = (await import(pathToFileURL(join(out, `${name}.js`)).href)) as Record<string, unknown>;
      const parts = module.parts.filter((p) => p.kind === 'const');
      expect(Object.keys(loaded).sort(), name).toEqual(parts.map((p) => p.name).sort());
      for (const part of parts) {
        if (part.value instanceof RegExp) expect(String(loaded[part.name]), `${name}.${part.name}`).toBe(String(part.value));
        else expect(loaded[part.name], `${name}.${part.name}`).toEqual(part.value);
      }
    }
    expect(modules.get('catalog')!.parts.some((p) => p.kind === 'const' && p.name === 'CODES' && Object.hasOwn(p.value as object, 'coupon_expired'))).toBe(true);
  });

  it('runs in Node with the package resolvable: errors.js builds a site code, and every module loads', async () => {
    // The package as a site installs it, its /site entry this repo's source (run through tsx).
    const pkg = join(dir, 'node_modules', '@agent-index', 'errors');
    await mkdir(pkg, { recursive: true });
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: '@agent-index/errors', type: 'module', exports: { './site': './site.ts' } }));
    await writeFile(join(pkg, 'site.ts'), `export * from ${JSON.stringify(join(ROOT, 'src/site/index.ts'))};\n`);
    const probe = [
      "import { agentError } from './out/errors.js';",
      "import { CODES, CODE_PATTERN, UNKNOWN_CODE } from './out/catalog.js';",
      "import { PROBLEM_PAGES } from './out/problem-pages.js';",
      "import { ENVELOPE_OUTPUT_SCHEMA } from './out/envelope-output-schema.js';",
      "import * as validators from './out/validators.js';",
      "import * as types from './out/types.js';",
      "const locked = agentError('basket_locked', { retryAfter: 5, message: 'Checkout is in progress' });",
      "let refused = '';",
      "try { agentError('no_such_code'); } catch (error) { refused = error.constructor.name; }",
      'console.log(JSON.stringify({',
      '  status: locked.status, retry: locked.retry, title: locked.title, envelope: locked.toEnvelope(),',
      '  valid: validators.envelope(locked.toEnvelope()), family: CODES.basket_locked.family, unknown: UNKNOWN_CODE,',
      "  pattern: CODE_PATTERN.test('basket_locked'), page: PROBLEM_PAGES.basket_locked.includes('<code>basket_locked</code>'),",
      '  schema: ENVELOPE_OUTPUT_SCHEMA.type, types: Object.keys(types).length, refused,',
      '}));',
    ].join('\n');
    await writeFile(join(dir, 'probe.mjs'), probe);
    const ran = spawnSync(process.execPath, ['--import', pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href, 'probe.mjs'], { cwd: dir, encoding: 'utf8' });
    expect(ran.status, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toEqual({
      status: 423,
      retry: 'after_delay',
      title: 'Basket locked',
      envelope: { error: { code: 'basket_locked', message: 'Checkout is in progress', field: null, retry: 'after_delay', retry_after: 5 } },
      valid: true,
      family: 'site',
      unknown: 'internal',
      pattern: true,
      page: true,
      schema: 'object',
      types: 0,
      refused: 'TypeError',
    });
  }, 60_000);
});

describe('the declarations codegen --extend writes', () => {
  it('type-check under TypeScript 5, strict, with exactly the types of the TypeScript form, and type the builder by code', async () => {
    expect(ts.version).toMatch(/^5\./);
    const names = [...modules.keys()];
    const lines = [
      'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
      ...names.flatMap((name, i) => [`import * as js${i} from '../out/${name}.js';`, `import * as ts${i} from '../ts/${name}.js';`]),
      "import { agentError, type SiteCode } from '../out/errors.js';",
    ];
    let compared = 0;
    names.forEach((name, i) => {
      const module = modules.get(name)!;
      for (const part of module.parts) {
        if (part.kind === 'const') lines.push(`export const same${compared++}: Equal<typeof js${i}.${part.name}, typeof ts${i}.${part.name}> = true;`);
        else for (const [, type] of part.text.matchAll(/^export (?:type|interface) (\w+)/gm)) lines.push(`export const same${compared++}: Equal<js${i}.${type}, ts${i}.${type}> = true;`);
      }
    });
    const catalog = names.indexOf('catalog');
    lines.push(
      // The comparison can fail: two different types are not Equal.
      `export const differs: Equal<typeof js${catalog}.CODES, typeof js${catalog}.EQUIVALENTS> = false;`,
      "export const locked = agentError('basket_locked', { retryAfter: 5 });",
      "export const expired = agentError('coupon_expired');",
      "export const site: SiteCode[] = ['coupon_expired', 'basket_locked', 'gift_note_too_long'];",
      '// @ts-expect-error: neither the catalog nor the site has this code',
      "agentError('no_such_code');",
      '// @ts-expect-error: basket_locked waits, so it needs retryAfter',
      "agentError('basket_locked');",
      '// @ts-expect-error: gift_note_too_long is fix_input, so it needs the field',
      "agentError('gift_note_too_long', {});",
      '// @ts-expect-error: a catalog code is no site code',
      "export const notSite: SiteCode = 'not_found';",
      `export const status: 423 = js${catalog}.CODES.basket_locked.status;`,
    );
    expect(compared).toBeGreaterThan(20);
    const declarations = [...modules.keys(), 'errors', 'validators'].map((name) => join(out, `${name}.d.ts`));
    expect(await typeErrors('probe', { 'probe.ts': `${lines.join('\n')}\n` }, declarations)).toEqual([]);
  }, 120_000);

  it('are refused by TypeScript when wrong: a declaration that states another type fails the same comparison', async () => {
    const text = (await readFile(join(out, 'catalog.d.ts'), 'utf8')).replace('export declare const EXAMPLE_BASE: ', 'export declare const EXAMPLE_BASE: string | ');
    await mkdir(join(dir, 'broken'), { recursive: true });
    await writeFile(join(dir, 'broken', 'types.d.ts'), await readFile(join(out, 'types.d.ts'), 'utf8'));
    const errors = await typeErrors('broken', {
      'catalog.d.ts': text,
      'probe.ts': [
        'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
        "import * as js from './catalog.js';",
        "import * as ts from '../ts/catalog.js';",
        'export const same: Equal<typeof js.EXAMPLE_BASE, typeof ts.EXAMPLE_BASE> = true;',
        '',
      ].join('\n'),
    });
    expect(errors).toEqual([expect.stringMatching(/^broken\/probe\.ts:4: Type 'true' is not assignable to type 'false'/)]);
  }, 60_000);
});

describe('literalType', () => {
  // JSON as codegen's modules hold it; "__proto__" is left out, as an object literal's "__proto__" sets a prototype.
  const json = fc.jsonValue({ maxDepth: 3 }).filter((v) => !JSON.stringify(v).includes('"__proto__"'));

  it('gives any JSON value the type `as const` gives it, as TypeScript 5 reads both', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(json, { minLength: 1, maxLength: 12 }), async (values) => {
        const module: GeneratedModule = {
          header: '// a test module\n',
          parts: values.map((value, i) => constant({ doc: `/** Value ${i}. */`, name: `V${i}`, value, asConst: true })),
        };
        const errors = await typeErrors('literal', {
          'as-const.ts': moduleTs(module),
          'declared.d.ts': moduleDts(module),
          'declared.js': moduleJs(module),
          'probe.ts': [
            'type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;',
            "import * as a from './as-const.js';",
            "import * as d from './declared.js';",
            ...values.map((_, i) => `export const same${i}: Equal<typeof a.V${i}, typeof d.V${i}> = true;`),
            '',
          ].join('\n'),
        });
        expect(errors).toEqual([]);
      }),
      { numRuns: 4 },
    );
  }, 120_000);

  it('refuses what is not JSON data with a TypeError naming itself and what it got', () => {
    for (const value of [undefined, Number.NaN, Infinity, () => 1, new Date(0), new Map(), Symbol('s'), 10n]) {
      expect(() => literalType(value), String(value)).toThrow(TypeError);
      expect(() => literalType(value), String(value)).toThrow(/^literalType: /);
    }
    expect(() => literalType({ nested: [1, { deep: undefined }] })).toThrow(/^literalType: a value is JSON data.*\(got undefined\)/);
    expect(literalType({ 'a-b': [1, 'x', null, true], ok: {} })).toBe('{\n  readonly "a-b": readonly [\n    1,\n    "x",\n    null,\n    true\n  ];\n  readonly ok: {};\n}');
  });
});
