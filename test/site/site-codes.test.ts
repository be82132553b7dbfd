// A site's own codes end to end (issue 28, item 5): `codegen --extend` writes them as JavaScript; the
// builder it writes (errors.js: defineSiteCodes over the catalog's site-family entries and their
// pages) takes the code alone; Express and Hono serve their /problems/<code> pages; lint and codes
// know them. The packed package runs the same from a fresh project (test/pack.test.ts).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve as serveHono } from '@hono/node-server';
import express from 'express';
import fc from 'fast-check';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentError as catalogError, defineSiteCodes, siteError, type AgentError } from '../../src/site/index.js';
import { agentFriendlyExpress, agentFriendlyExpressErrorHandler } from '../../src/site/express.js';
import { agentFriendlyHono, agentFriendlyHonoErrorHandler } from '../../src/site/hono.js';
import { run } from '../../src/tools/cli.js';
import { lintOpenApi } from '../../src/tools/lint.js';
import { AGENT, BROWSER, PROBLEM } from '../helpers/agents.js';
import { oneOperation } from '../helpers/openapi.js';

const EXTENSION = {
  codes: {
    document_locked: {
      status: 423,
      retry: 'once',
      title: 'Document locked',
      advice: 'Wait for the other editor to save, then try once more.',
      example: { message: 'Someone else is editing this document', detail: 'The document is open in another session.' },
    },
    title_too_long: {
      status: 422,
      retry: 'fix_input',
      title: 'Title too long',
      advice: 'Shorten the named field.',
      example: { message: 'title is over 200 characters', detail: 'Titles fit on one line.', field: 'title' },
    },
  },
};

let dir = '';
let out = '';
let build: (code: string, options?: object) => AgentError;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-errors-site-codes-'));
  out = join(dir, 'generated');
  await writeFile(join(dir, 'site-codes.json'), JSON.stringify(EXTENSION));
  expect(await run(['codegen', '--extend', join(dir, 'site-codes.json'), '--out', out], () => {}, () => {})).toBe(0);
  // What the generated errors.js does, with this package's source instead of its published name.
  const { CODES } = (await import(pathToFileURL(join(out, 'catalog.js')).href)) as { CODES: Record<string, { family: string; status: number; retry: never; title: string }> };
  const { PROBLEM_PAGES } = (await import(pathToFileURL(join(out, 'problem-pages.js')).href)) as { PROBLEM_PAGES: Record<string, string> };
  const site = defineSiteCodes(Object.fromEntries(Object.entries(CODES).filter(([, entry]) => entry.family === 'site')), PROBLEM_PAGES);
  build = site.agentError as typeof build;
}, 60_000);
afterAll(async () => {
  for (const close of closers) await close();
  await rm(dir, { recursive: true, force: true });
});

describe('what codegen --extend writes', () => {
  it('is JavaScript with declarations, and errors.js registers the site-family codes and their pages as this test does', async () => {
    const errors = await readFile(join(out, 'errors.js'), 'utf8');
    expect(errors).toContain("import { defineSiteCodes } from '@agent-index/errors/site';");
    expect(errors).toContain("const SITE_CODES = Object.fromEntries(Object.entries(CODES).filter(([, entry]) => entry.family === 'site'));");
    expect(errors).toContain('const site = defineSiteCodes(SITE_CODES, PROBLEM_PAGES);');
    const types = await readFile(join(out, 'errors.d.ts'), 'utf8');
    expect(types).toContain('export declare function agentError<C extends Code>(code: C, ...options: Args<C>): AgentError<C>;');
    expect(await readFile(join(out, 'types.d.ts'), 'utf8')).toContain('"document_locked"');
  });
});

describe('the builder the site gets', () => {
  it('takes the site’s code alone: status, retry word and title come from the extension, and the bodies carry the title', () => {
    const error = build('document_locked', { message: 'Someone else is editing this document' });
    expect([error.status, error.retry, error.title]).toEqual([423, 'once', 'Document locked']);
    expect(error.toEnvelope().error).toMatchObject({ code: 'document_locked', retry: 'once', retry_after: 1 }); // once's default delay
    const problem = JSON.parse(error.render('application/problem+json', 'https://docs.example').body);
    expect(problem).toMatchObject({ type: 'https://docs.example/problems/document_locked', title: 'Document locked', status: 423, code: 'document_locked' });
    // A word that asks for a field asks for it here too; a catalog code builds as before.
    expect(() => build('title_too_long')).toThrow(/a fix_input error must name the field to fix/);
    expect(build('title_too_long', { field: 'title' }).field).toBe('title');
    expect(build('rate_limited', { retryAfter: 5 }).status).toBe(429);
    expect(() => build('no_such_code')).toThrow("agentError(\"no_such_code\"): neither the catalog nor the site's codes (document_locked, title_too_long) have it");
    // The package's own builders now know the code's status and word too, and refuse another.
    expect(siteError('document_locked', { status: 423, retry: 'once' }).title).toBe('Document locked');
    expect(() => siteError('document_locked', { status: 409, retry: 'once' })).toThrow('agentError("document_locked"): the site\'s catalog gives this code status 423 and retry once');
    expect(() => (catalogError as (code: string) => AgentError)('document_locked')).toThrow(/the catalog has no such code/);
  });

  it('refuses a site code an agent could not act on, naming the entry and what is wrong', () => {
    expect(() => defineSiteCodes({ teapot: { status: 200, retry: 'once', title: 'Teapot' } })).toThrow(/defineSiteCodes\("teapot"\).*status.*400 to 599/);
    expect(() => defineSiteCodes({ teapot: { status: 418, retry: 'later' as never, title: 'Teapot' } })).toThrow(/defineSiteCodes\("teapot"\).*retry/);
    expect(() => defineSiteCodes({ not_found: { status: 404, retry: 'no', title: 'Mine' } })).toThrow(/not one of the catalog's/);
    expect(() => defineSiteCodes({ teapot: { status: 418, retry: 'no', title: ' ' } })).toThrow(/title/);
    expect(() => defineSiteCodes({ teapot: null as never })).toThrow(/defineSiteCodes\("teapot"\).*entry/);
    expect(() => defineSiteCodes({ teapot: { status: 418, retry: 'no', title: 'Teapot' } }, { teapot: 42 as never })).toThrow(/page/);
    // Whatever a caller passes, the only error is a TypeError naming the entry.
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.anything()), fc.dictionary(fc.string(), fc.anything()), (codes, pages) => {
        try {
          defineSiteCodes(codes as never, pages as never);
        } catch (error) {
          expect(error).toBeInstanceOf(TypeError);
          expect((error as Error).message).toMatch(/^defineSiteCodes\(/);
        }
      }),
    );
  });
});

describe('the adapters serve the site’s /problems/<code>', () => {
  const origins: Record<string, string> = {};
  beforeAll(async () => {
    const app = express();
    app.use(agentFriendlyExpress());
    app.get('/doc', () => {
      throw build('document_locked', { message: 'Someone else is editing this document' });
    });
    app.use(agentFriendlyExpressErrorHandler());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    origins.express = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    closers.push(() => new Promise((resolve) => server.close(() => resolve())));

    const hono = new Hono();
    hono.use(agentFriendlyHono());
    hono.get('/doc', () => {
      throw build('document_locked', { message: 'Someone else is editing this document' });
    });
    hono.onError(agentFriendlyHonoErrorHandler());
    const honoServer = serveHono({ fetch: hono.fetch, hostname: '127.0.0.1', port: 0 });
    await new Promise((resolve) => honoServer.once('listening', resolve));
    origins.hono = `http://127.0.0.1:${(honoServer.address() as AddressInfo).port}`;
    closers.push(() => new Promise((resolve) => honoServer.close(() => resolve())));
  });

  for (const framework of ['express', 'hono']) {
    it(`${framework}: the page a browser gets, the entry an agent gets, and the type URI of the thrown error that leads there`, async () => {
      const origin = origins[framework]!;
      const page = await fetch(`${origin}/problems/document_locked`, { headers: BROWSER });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const html = await page.text();
      expect(html).toContain('Document locked');
      expect(html).toContain(`${origin}/problems/document_locked`);
      const entry = await fetch(`${origin}/problems/document_locked`, { headers: AGENT });
      expect(await entry.json()).toEqual({ code: 'document_locked', status: 423, retry: 'once', title: 'Document locked', advice: 'Wait for the other editor to save, then try once more.' });
      expect((await fetch(`${origin}/problems/no_such_code`, { headers: AGENT })).status).toBe(404);
      const thrown = await fetch(`${origin}/doc`, { headers: PROBLEM });
      expect(thrown.status).toBe(423);
      const problem = (await thrown.json()) as { type: string; title: string };
      expect(problem.title).toBe('Document locked');
      expect((await fetch(problem.type, { headers: AGENT })).status).toBe(200);
      const browser = await (await fetch(`${origin}/doc`, { headers: BROWSER })).text();
      expect(browser).toContain('Wait for the other editor to save, then try once more.');
      expect(browser).toContain('/problems/document_locked">document_locked</a>');
    });
  }
});

describe('lint and codes know the site’s codes', () => {
  const spec = (status: string, example: object): object => {
    const envelope = { $ref: `${pathToFileURL(join(out, 'openapi.json')).pathname}#/components/schemas/Envelope` };
    return oneOperation(
      { [status]: { description: 'locked', content: { 'application/json': { schema: envelope, example } } }, '500': { description: 'down', content: { 'application/json': { schema: envelope } } } },
      { path: '/doc', method: 'put' },
    );
  };

  const locked = { error: { code: 'document_locked', message: 'Locked', field: null, retry: 'once', retry_after: null } };
  const siteCatalog = { document_locked: { status: 423, retry: 'once' }, title_too_long: { status: 422, retry: 'fix_input' } } as const;

  it('lint holds an example of a site code to the status and retry word of its extension', async () => {
    const options = { cwd: dir, allowRefsOutside: true, siteCatalog };
    expect(await lintOpenApi(spec('423', locked), options)).toEqual([]);
    expect((await lintOpenApi(spec('409', locked), options)).map((f) => [f.rule, f.message])).toEqual([
      ['example-status-matches', 'code "document_locked" has status 423 in the site\'s catalog, but the example sits under 409'],
    ]);
    const wrongWord = await lintOpenApi(spec('423', { error: { ...locked.error, retry: 'no' } }), options);
    expect(wrongWord.map((f) => f.rule)).toContain('error-example-valid');
    // Without the extension, the code is unknown.
    expect((await lintOpenApi(spec('423', locked), { cwd: dir, allowRefsOutside: true })).map((f) => f.rule)).toEqual(['example-code-known']);
  });

  it('the CLI reads the extension for lint and codes, and refuses one it cannot use (exit 2)', async () => {
    await writeFile(join(dir, 'openapi.json'), JSON.stringify(spec('409', locked)));
    let said = '';
    const code = await run(['lint', join(dir, 'openapi.json'), '--extend', join(dir, 'site-codes.json'), '--allow-refs-outside', '--json'], (t) => void (said += t), () => {});
    expect(code).toBe(1);
    expect((JSON.parse(said) as { rule: string }[]).map((f) => f.rule)).toEqual(['example-status-matches']);
    let listed = '';
    expect(await run(['codes', '--extend', join(dir, 'site-codes.json'), '--json'], (t) => void (listed += t))).toBe(0);
    expect(JSON.parse(listed).document_locked).toMatchObject({ status: 423, retry: 'once', title: 'Document locked', family: 'site' });
    let table = '';
    expect(await run(['codes', '--extend', join(dir, 'site-codes.json')], (t) => void (table += t))).toBe(0);
    expect(table).toMatch(/^document_locked\s+423\s+once\s+wait\s+Wait for the other editor to save, then try once more\. \[site\]$/m);
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ codes: { not_found: EXTENSION.codes.document_locked } }));
    expect(await run(['codes', '--extend', join(dir, 'bad.json')], () => {}, () => {})).toBe(2);
  });
});
