import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { validate } from '@readme/openapi-parser';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogError } from '../../codegen/catalog-model.js';
import { renderExtended } from '../../codegen/extend.js';
import { ROOT } from '../../codegen/paths.js';
import { run } from '../../src/tools/cli.js';

const fixture = (name: string) => join(ROOT, 'test/fixtures/extend', name);
const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe("a site's own codes through codegen", () => {
  it('refuses an extension that clashes with the catalog or breaks the meta-schema, naming each pointer', async () => {
    const error = await renderExtended(fixture('clashing.json')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CatalogError);
    const problems = (error as CatalogError).problems.map((p) => p.pointer);
    expect(problems).toEqual(expect.arrayContaining(['/codes', '/codes/teapot/status', '/codes/teapot/retry', '/codes/teapot/title']));
  });

  it('names a clash with a catalog code and an example missing what its retry word needs', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-errors-ext-'));
    dirs.push(dir);
    const text = JSON.parse(await readFile(fixture('clashing.json'), 'utf8'));
    delete text.codes.Bad_Code;
    delete text.codes.teapot;
    const file = join(dir, 'site.json');
    await writeFile(file, JSON.stringify(text));
    const error = (await renderExtended(file).catch((e: unknown) => e)) as CatalogError;
    expect(error.problems).toEqual([
      { pointer: '/codes/not_found', reason: expect.stringContaining('is a catalog code already') },
      { pointer: '/codes/slow_down/example', reason: expect.stringContaining('needs a retry_after') },
    ]);
  });

  it('writes every artifact for catalog plus extension: validators that accept the new codes and OpenAPI that validates', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agent-errors-ext-'));
    dirs.push(dir);
    const out = join(dir, 'generated');
    let said = '';
    expect(await run(['codegen', '--extend', fixture('site-codes.json'), '--out', out], (t) => void (said += t))).toBe(0);
    expect(said).toMatch(/^wrote \d+ files/);
    const validators = await import(pathToFileURL(join(out, 'validators.js')).href);
    const catalogTs = await readFile(join(out, 'catalog.ts'), 'utf8');
    for (const code of ['coupon_expired', 'basket_locked', 'gift_note_too_long']) {
      expect(catalogTs).toContain(`"${code}"`);
      expect(await readFile(join(out, 'ERRORS.md'), 'utf8')).toMatch(new RegExp(`^\\| \`${code}\` \\|`, 'm'));
      expect(await readFile(join(out, 'problems', `${code}.html`), 'utf8')).toContain(`<code>${code}</code>`);
    }
    const openapi = JSON.parse(await readFile(join(out, 'openapi.json'), 'utf8'));
    for (const code of ['coupon_expired', 'basket_locked', 'gift_note_too_long']) {
      const example = openapi.components.examples[`${code}_envelope`].value;
      expect(validators.envelope(example), code).toBe(true);
      expect(validators.problem(openapi.components.examples[`${code}_problem`].value), code).toBe(true);
    }
    // The site's codes are known to these validators: a wrong retry word for one is refused.
    expect(validators.envelope({ error: { code: 'coupon_expired', message: 'x', field: null, retry: 'no', retry_after: null } })).toBe(false);
    expect(openapi.components.responses.Locked.headers['Retry-After'].required).toBe(true);
    for (const file of ['openapi.json', 'openapi-3.0.json']) {
      const result = await validate(join(out, file));
      expect(result.valid, file).toBe(true);
    }
    expect(await readFile(join(out, 'types.ts'), 'utf8')).toContain('| "coupon_expired"');
  });

  it('exits 1 from the CLI with the pointers when the extension is refused', async () => {
    let err = '';
    expect(await run(['codegen', '--extend', fixture('clashing.json'), '--out', join(tmpdir(), 'never-written')], () => {}, (t) => void (err += t))).toBe(1);
    expect(err).toContain('clashing.json#/codes/teapot/status');
  });
});
