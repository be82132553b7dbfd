// lintOpenApi on a spec from an untrusted pull request (issue 16, part 3): a $ref to a URL or to a file
// outside the spec's folder tree is a ref-not-allowed finding, and is neither fetched nor read. The
// proofs are real: a loopback server counts its requests, and the file outside holds an example the
// lint would report (its code, leaked_marker, shows in a finding whenever the file is read), while a
// spy on node:fs records every path opened.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LINT_RULES } from '../../generated/lint-rules.js';
import { lintOpenApi, LintInputError, type LintFinding, type LintOpenApiOptions } from '../../src/tools/lint.js';
import { serve, type TestServer } from '../helpers/server.js';
import { oneOperation } from '../helpers/openapi.js';
import { LEAK_YAML, MARKER, spyOnReads } from './read-spy.js';

const GENERATED = fileURLToPath(new URL('../../generated/', import.meta.url));
const FIX = LINT_RULES.find((r) => r.id === 'ref-not-allowed')!.fix;

let root = '';
let spec = '';
let server: TestServer;
let spy: ReturnType<typeof spyOnReads> | undefined;

beforeAll(async () => {
  // root/outside.yaml, and the spec's folder root/spec/ with a file that $refs out, a link to its
  // parent folder, a link to the file outside, and a link that leads nowhere.
  root = await realpath(await mkdtemp(join(tmpdir(), 'lint-refs-')));
  spec = join(root, 'spec');
  await mkdir(join(spec, 'sub'), { recursive: true });
  await writeFile(join(root, 'outside.yaml'), LEAK_YAML);
  await writeFile(join(spec, 'inside.yaml'), LEAK_YAML);
  await writeFile(
    join(spec, 'shared.yaml'),
    [
      'components:',
      '  responses:',
      '    Out: { $ref: "../outside.yaml#/components/responses/Leak" }',
      `    Gone: { $ref: "${join(GENERATED, 'openapi.json')}#/components/responses/NotFound" }`,
      '',
    ].join('\n'),
  );
  await writeFile(join(spec, 'generated.yaml'), `components: { responses: { Gone: { $ref: "${join(GENERATED, 'openapi.json')}#/components/responses/NotFound" } } }\n`);
  await symlink(root, join(spec, 'link'), 'dir');
  await symlink(join(root, 'outside.yaml'), join(spec, 'leak.yaml'));
  await symlink(join(spec, 'inside.yaml'), join(spec, 'sub', 'inner.yaml'));
  await symlink(join(root, 'nowhere', 'x.yaml'), join(spec, 'dangling.yaml'));
  server = await serve((_req, res) => {
    res.setHeader('content-type', 'application/yaml');
    res.end(LEAK_YAML);
  });
  // The first lint finds this package's generated/ folder by reading its package.json, once per
  // process; done here, the spies below see only what a spec makes the lint read.
  await lintOpenApi({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} }, { cwd: spec });
});
afterEach(() => {
  spy?.restore();
  spy = undefined;
});
afterAll(async () => {
  await server.close();
  await rm(root, { recursive: true, force: true });
});

/** A minimal OpenAPI 3.1 document whose GET /a declares these responses, plus a 429 without Retry-After (a fault the lint must still find). */
const doc = (responses: Record<string, unknown>): Record<string, unknown> =>
  oneOperation({
    ...responses,
    '429': { description: 'busy', content: { 'application/json': { schema: { $ref: `${join(GENERATED, 'openapi.json')}#/components/schemas/Envelope` } } } },
    '500': { $ref: `${join(GENERATED, 'openapi.json')}#/components/responses/InternalServerError` },
  });
const ref = (to: string): { $ref: string } => ({ $ref: to });
const lint = (document: object, options: LintOpenApiOptions = {}): Promise<LintFinding[]> => lintOpenApi(document, { cwd: spec, ...options });
const refusals = (findings: readonly LintFinding[]): LintFinding[] => findings.filter((f) => f.rule === 'ref-not-allowed');
const leaked = (findings: readonly LintFinding[]): boolean => findings.some((f) => f.message.includes(MARKER));
const isUnder = (tree: string, path: string): boolean => path === tree || path.startsWith(tree + sep);
/** Every path opened was in the spec's folder or this package's generated/. */
const readOnlyInside = (paths: readonly string[]): string[] => paths.filter((p) => !isUnder(spec, p) && !isUnder(GENERATED.replace(/[\\/]$/, ''), p));

describe('a $ref to an http or https URL', () => {
  it('is a finding at its pointer, naming the $ref, and the loopback server gets no request; the rest of the spec is still linted', async () => {
    const url = `${server.url}/leak.yaml#/components/responses/Leak`;
    const findings = await lint(doc({ '404': ref(url) }));
    expect(findings.map((f) => [f.rule, f.pointer])).toEqual([
      ['ref-not-allowed', '/paths/~1a/get/responses/404'],
      ['retry-after-declared', '/paths/~1a/get/responses/429'],
    ]);
    expect(findings[0]!.message).toContain(JSON.stringify(url));
    expect(findings[0]!.message).toContain('nothing was fetched');
    expect(findings[0]!.fix).toBe(FIX);
    expect(server.calls()).toBe(0);
  });

  it('is refused whatever its spelling: upper-case scheme, https, protocol-relative, in a schema or an example', async () => {
    const host = server.url.slice('http://'.length);
    const findings = await lint(
      doc({
        '400': ref(`HTTP://${host}/a.yaml`),
        '401': ref(`https://${host}/a.yaml`),
        '403': ref(`//${host}/a.yaml`),
        '404': { description: 'x', content: { 'application/json': { schema: ref(`${server.url}/s.json`), examples: { e: ref(`${server.url}/e.json`) } } } },
      }),
    );
    expect(refusals(findings).map((f) => f.pointer)).toEqual([
      '/paths/~1a/get/responses/400',
      '/paths/~1a/get/responses/401',
      '/paths/~1a/get/responses/403',
      '/paths/~1a/get/responses/404/content/application~1json/examples/e',
      '/paths/~1a/get/responses/404/content/application~1json/schema',
    ]);
    expect(server.calls()).toBe(0);
  });

  it('stays refused with allowRemoteRefs: true when the host is loopback, and is fetched when its prefix is listed', async () => {
    const document = doc({ '404': ref(`${server.url}/specs/leak.yaml#/components/responses/Leak`) });
    const anyPublic = await lint(document, { allowRemoteRefs: true });
    expect(refusals(anyPublic)[0]!.message).toContain('loopback, private or internal host');
    expect(server.calls()).toBe(0);
    // Another prefix on the same origin, and a look-alike origin, are not this one.
    expect(refusals(await lint(document, { allowRemoteRefs: [`${server.url}/other/`, `${server.url}/spec`, server.url.replace('127.0.0.1', 'localhost')] }))).toHaveLength(1);
    expect(server.calls()).toBe(0);
    // The positive control: listed, the file is fetched and linted, so the tests above would have seen a request.
    const listed = await lint(document, { allowRemoteRefs: [`${server.url}/specs/`] });
    expect(server.calls()).toBe(1);
    expect(refusals(listed)).toEqual([]);
    expect(leaked(listed)).toBe(true);
  });

  it('refuses an allowRemoteRefs prefix that is no http or https URL as an option of the wrong type', async () => {
    await expect(lint(doc({}), { allowRemoteRefs: ['schemas.example.com'] })).rejects.toThrow(TypeError);
    await expect(lint(doc({}), { allowRemoteRefs: ['file:///etc/'] })).rejects.toThrow('lintOpenApi: allowRemoteRefs must be true, false or a list of http or https URL prefixes (got ["file:///etc/"])');
  });
});

describe('a $ref to a file outside the spec folder', () => {
  const LEAK = '#/components/responses/Leak';

  it('is a finding, and the file, which exists and which the lint would report on, is not read', async () => {
    spy = spyOnReads();
    const refused = await lint(doc({ '404': ref(`../outside.yaml${LEAK}`) }));
    expect(refused.map((f) => [f.rule, f.pointer])).toEqual([
      ['ref-not-allowed', '/paths/~1a/get/responses/404'],
      ['retry-after-declared', '/paths/~1a/get/responses/429'],
    ]);
    expect(refused[0]!.message).toBe(`the $ref "../outside.yaml${LEAK}" is outside the spec's folder (${spec}) and every folder allowed: it was not read`);
    expect(leaked(refused)).toBe(false);
    expect(spy.paths).not.toContain(join(root, 'outside.yaml'));
    // The positive control: allowed, the same $ref is read and its example reported.
    const allowed = await lint(doc({ '404': ref(`../outside.yaml${LEAK}`) }), { allowRefsOutside: true });
    expect(leaked(allowed)).toBe(true);
    expect(spy.paths).toContain(join(root, 'outside.yaml'));
  });

  it.each([
    ['an absolute path', () => join(root, 'outside.yaml') + LEAK],
    ['a file: URL', () => pathToFileURL(join(root, 'outside.yaml')).href + LEAK],
    ['an encoded ../ (..%2F)', () => `..%2Foutside.yaml${LEAK}`],
    ['an encoded .. (%2e%2e/)', () => `%2e%2e/outside.yaml${LEAK}`],
    ['a ../ after a folder (sub/../../)', () => `sub/../../outside.yaml${LEAK}`],
    ['a link to a folder outside', () => `link/outside.yaml${LEAK}`],
    ['a link to a file outside', () => `leak.yaml${LEAK}`],
    ['a link that leads nowhere', () => `dangling.yaml${LEAK}`],
    ['a missing file behind a link to a folder outside', () => `link/missing.yaml${LEAK}`],
    ['/etc/passwd', () => '/etc/passwd'],
    ['a drive-letter-like scheme', () => 'c:/etc/passwd'],
    ['an unknown scheme', () => 'ftp://example.com/x.yaml'],
    ['a javascript: URL', () => 'javascript:alert(1)'],
  ])('is refused when it is %s, without a read outside the folder', async (_name, to) => {
    spy = spyOnReads();
    const findings = await lint(doc({ '404': ref(to()) }));
    expect(refusals(findings).map((f) => f.pointer)).toEqual(['/paths/~1a/get/responses/404']);
    expect(refusals(findings)[0]!.message).toContain(JSON.stringify(to()));
    expect(findings.map((f) => f.rule)).toContain('retry-after-declared');
    expect(leaked(findings)).toBe(false);
    expect(readOnlyInside(spy.paths)).toEqual([]);
  });

  it('judges the $refs inside a file the spec loads, and reports each at the $ref in the spec that reached it', async () => {
    spy = spyOnReads();
    const findings = await lint(doc({ '404': ref('shared.yaml#/components/responses/Out'), '410': ref('shared.yaml#/components/responses/Gone') }));
    expect(refusals(findings)).toEqual([
      {
        rule: 'ref-not-allowed',
        pointer: '/paths/~1a/get/responses/404',
        message: `the $ref "../outside.yaml#/components/responses/Leak" (in shared.yaml#/components/responses/Out) is outside the spec's folder (${spec}) and every folder allowed: it was not read`,
        fix: FIX,
        severity: 'error',
        operations: [],
      },
    ]);
    expect(leaked(findings)).toBe(false);
    expect(readOnlyInside(spy.paths)).toEqual([]);
  });

  it("reads a file inside the folder, through a link that stays inside, and this package's generated components", async () => {
    const findings = await lint(doc({ '404': ref(`sub/inner.yaml${LEAK}`), '410': ref('generated.yaml#/components/responses/Gone') }));
    expect(refusals(findings)).toEqual([]);
    expect(leaked(findings)).toBe(true);
  });

  it('reads outside with allowRefsOutside naming the folder, relative to cwd, and with the CLI-style list', async () => {
    const document = doc({ '404': ref(`../outside.yaml${LEAK}`) });
    expect(leaked(await lint(document, { allowRefsOutside: [root] }))).toBe(true);
    expect(leaked(await lint(document, { allowRefsOutside: ['..'] }))).toBe(true);
    // A sibling folder whose name starts like the allowed one is not inside it.
    await mkdir(join(root, 'spec-other'), { recursive: true });
    await writeFile(join(root, 'spec-other', 'x.yaml'), LEAK_YAML);
    expect(refusals(await lint(doc({ '404': ref(`../spec-other/x.yaml${LEAK}`) })))).toHaveLength(1);
  });

  it('takes the folder of a spec given as a file for its tree, and reports at the $ref in that file', async () => {
    const file = join(spec, 'openapi.yaml');
    await writeFile(file, JSON.stringify(doc({ '404': ref(`../outside.yaml${LEAK}`) })));
    const findings = await lintOpenApi(file);
    expect(refusals(findings).map((f) => f.pointer)).toEqual(['/paths/~1a/get/responses/404']);
    expect(leaked(findings)).toBe(false);
    // From a folder above, the same file is inside the tree of a spec given there.
    await writeFile(join(root, 'top.yaml'), JSON.stringify(doc({ '404': ref(`outside.yaml${LEAK}`) })));
    expect(leaked(await lintOpenApi(join(root, 'top.yaml')))).toBe(true);
  });
});

describe('arbitrary $ref strings', () => {
  const host = (): string => server.url.slice('http://'.length);
  /** Beginnings that leave the spec's folder, one way or another. */
  const ESCAPES = [
    () => '../',
    () => '..%2F',
    () => '%2e%2e/',
    () => '%2E%2E%2F',
    () => 'sub/../../',
    () => 'link/',
    () => `${root}/`,
    () => `${pathToFileURL(root).href}/`,
    () => `http://${host()}/`,
    () => `HTTPS://${host()}/`,
    () => `//${host()}/`,
    () => '/etc/',
    () => 'ftp://x/',
    () => 'c:/',
    () => 'x:',
  ];
  // No dot, slash, backslash or percent sign: a tail cannot walk back into the folder.
  const tail = fc.string({ unit: fc.constantFrom(...'abcxyz019_-#?~ :'.split('')), maxLength: 12 });
  const leaving = fc.tuple(fc.integer({ min: 0, max: ESCAPES.length - 1 }), fc.constantFrom('outside.yaml', 'outside.yaml#/components/responses/Leak', 'passwd', ''), tail);
  const anything = fc.oneof(
    fc.string({ maxLength: 24 }),
    fc.tuple(fc.constantFrom('', './', '../', 'link/', 'sub/', '%2e%2e/', '/', 'file:///', 'http://'), fc.string({ maxLength: 12 })).map(([a, b]) => a + b),
  );

  it('never read a file outside the folder, never reach the server, and never throw: a $ref that leaves is a finding', async () => {
    const calls = server.calls();
    await fc.assert(
      fc.asyncProperty(leaving, async ([escape, file, rest]) => {
        const to = ESCAPES[escape]!() + file + rest;
        const reads = spyOnReads();
        try {
          const findings = await lint(doc({ '404': ref(to), '410': { description: 'x', content: { 'application/json': { schema: ref(to) } } } }));
          expect(refusals(findings).length, to).toBeGreaterThan(0);
          expect(leaked(findings), to).toBe(false);
          expect(readOnlyInside(reads.paths), to).toEqual([]);
        } finally {
          reads.restore();
        }
      }),
      { numRuns: 200 },
    );
    expect(server.calls()).toBe(calls);
  });

  it('throw nothing but LintInputError on any $ref, and read nothing outside the folder', async () => {
    const calls = server.calls();
    await fc.assert(
      fc.asyncProperty(anything, async (to) => {
        const reads = spyOnReads();
        try {
          const result = await lint(doc({ '404': ref(to) })).catch((e: unknown) => e);
          if (result instanceof Error) expect(result, to).toBeInstanceOf(LintInputError);
          else expect(leaked(result as LintFinding[]), to).toBe(false);
          expect(readOnlyInside(reads.paths), to).toEqual([]);
        } finally {
          reads.restore();
        }
      }),
      { numRuns: 300 },
    );
    expect(server.calls()).toBe(calls);
  });
});
