// The exports map as a user meets it: build dist/, then import every subpath by the package's own
// name (Node resolves a package's self-reference through its exports map).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../codegen/paths.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** The values docs/api.md lists per subpath, between its exports markers: subpath ('./site') to names. */
function exportsListed(): Record<string, string[]> {
  const page = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');
  const table = page.slice(page.indexOf('<!-- exports:start -->'), page.indexOf('<!-- exports:end -->'));
  const listed: Record<string, string[]> = {};
  for (const [, name, cell] of table.matchAll(/^\| `@agent-index\/errors([^`]*)` \| (.*) \|$/gm)) listed[`.${name}`] = [...cell!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return listed;
}

const PROBE = `
import { createRequire } from 'node:module';
const out = {};
for (const sub of ['', '/site', '/site/node', '/site/express', '/site/fetch', '/site/fastify', '/site/hono', '/site/koa', '/site/nest', '/site/next', '/agent', '/agent/fetcher', '/agent/mcp', '/agent/undici', '/agent/got', '/agent/axios', '/agent/redis', '/agent/disk', '/agent/loop', '/lint', '/vitest']) {
  out['.' + sub] = Object.keys(await import('@agent-index/errors' + sub)).sort();
}
out['./openapi.json'] = (await import('@agent-index/errors/openapi.json', { with: { type: 'json' } })).default.openapi;
out['./openapi-3.0.json'] = (await import('@agent-index/errors/openapi-3.0.json', { with: { type: 'json' } })).default.openapi;
out['./schema/*'] = (await import('@agent-index/errors/schema/envelope.schema.json', { with: { type: 'json' } })).default.title;
out['./package.json'] = createRequire(import.meta.url)('@agent-index/errors/package.json').name;
console.log(JSON.stringify(out));
`;

describe('the exports map', () => {
  let resolved: Record<string, unknown>;
  beforeAll(() => {
    execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'pipe' });
    const stdout = execFileSync(process.execPath, ['--no-warnings', '--input-type=module', '-e', PROBE], { cwd: ROOT, encoding: 'utf8' });
    resolved = JSON.parse(stdout);
  }, 120_000);

  it('resolves every subpath the package declares, and no wildcard beyond ./schema/*', () => {
    expect(Object.keys(pkg.exports).sort()).toEqual(Object.keys(resolved).sort());
  });

  it('exports from each subpath exactly the values docs/api.md lists for it', () => {
    const listed = exportsListed();
    expect(Object.keys(listed).sort()).toEqual(Object.keys(resolved).filter((path) => Array.isArray(resolved[path])).sort());
    for (const [path, names] of Object.entries(listed)) expect(resolved[path], path).toEqual([...names].sort());
  });

  it('names every adapter after its subpath: agentFriendly<Framework> from /site/<framework>, agent<Library> from /agent/<library>', () => {
    const capital = (word: string): string => word[0]!.toUpperCase() + word.slice(1);
    for (const [path, names] of Object.entries(resolved)) {
      const site = /^\.\/site\/([a-z]+)$/.exec(path);
      if (site) {
        const adapter = `agentFriendly${capital(site[1]!)}`;
        expect(names, path).toContain(adapter);
        for (const name of names as string[]) expect(name.startsWith(adapter) || /^AgentFriendly[A-Z]/.test(name), `${path}: ${name}`).toBe(true);
      }
      const plugIn = /^\.\/agent\/(undici|got|axios)$/.exec(path);
      if (plugIn) expect(names, path).toEqual([`agent${capital(plugIn[1]!)}`]);
    }
    expect(resolved['./agent']).toContain('agentFetch');
    // Only the adapters and plug-ins take these forms elsewhere; the forms of earlier drafts are gone.
    const everything = Object.values(resolved).filter(Array.isArray).flat() as string[];
    expect(everything.filter((name) => /^with[A-Z]|AgentErrors|^create\w*Fetch$|ErrorOf$/.test(name))).toEqual([]);
    expect(everything.filter((name) => /^agentFriendly|^AgentFriendly/.test(name)).every((name) => Object.entries(resolved).some(([path, names]) => path.startsWith('./site/') && (names as string[]).includes(name)))).toBe(true);
  });

  it('serves the OpenAPI documents and the JSON Schemas as files', () => {
    expect(resolved['./openapi.json']).toBe('3.1.0');
    expect(resolved['./openapi-3.0.json']).toBe('3.0.3');
    expect(resolved['./schema/*']).toBe('Envelope');
    expect(resolved['./package.json']).toBe('@agent-index/errors');
  });

  it('lists types first in every conditional export', () => {
    for (const [path, target] of Object.entries(pkg.exports)) {
      if (typeof target === 'object') expect(Object.keys(target as object)[0], path).toBe('types');
    }
  });

  it('runs the bin from the built package', () => {
    const out = execFileSync(process.execPath, [join(ROOT, pkg.bin['agent-errors']), 'codes'], { encoding: 'utf8' });
    expect(out).toMatch(/^rate_limited\s+429/m);
  });

  // Here rather than in a file of its own: npm start builds dist/ too, and two builds at once would collide.
  // npm start builds dist/ first (tsc over the whole project), which on a loaded 2-core machine, with
  // the pack test's type-checks running beside it, has taken over 20 s by itself.
  it('runs npm start, the README\'s main job, to exit 0 within 90 s with the tables and the transcript', () => {
    // A 30 s wait takes 1.5 s here: long enough that a loaded machine's timer lag cannot change a cell.
    const out = execFileSync('npm', ['start', '--silent', '--', '--scale', '0.05'], { cwd: ROOT, encoding: 'utf8', timeout: 90_000 });
    expect(out).toContain('a loop that reads the body, calls made and seconds slept');
    expect(out).toContain('Every cell equals the virtual-clock run');
    expect(out).toContain('What the agent did and why:');
  }, 100_000);
});

describe('the engines', () => {
  it('declares Node 20, and every package the lock installs accepts the Node the tests run on (npm ci prints no EBADENGINE)', () => {
    expect(pkg.engines).toEqual({ node: '>=20' });
    expect(semver.satisfies(process.versions.node, pkg.engines.node)).toBe(true);
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: unknown }> };
    const refused = Object.entries(lock.packages)
      .filter(([, p]) => typeof (p.engines as { node?: unknown } | undefined)?.node === 'string')
      .filter(([, p]) => !semver.satisfies(process.versions.node, (p.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
