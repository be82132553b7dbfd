// The exports map as a user meets it: build dist/, then import every subpath by the package's own
// name (Node resolves a package's self-reference through its exports map).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../codegen/paths.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

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

  it('serves the root API from the built package', () => {
    expect(resolved['.']).toEqual(expect.arrayContaining(['CODES', 'RETRY_WORDS', 'lookup', 'isKnownCode', 'validateEnvelope', 'validateProblem']));
    expect(resolved['./lint']).toContain('validateProblem');
    // The experiment's dialects are npm start's, on its own subpath, not the contract's.
    for (const demo of ['DIALECTS', 'renderDialect', 'formatCell']) expect(resolved['.'], demo).not.toContain(demo);
    expect(resolved['./agent/loop']).toEqual(expect.arrayContaining(['DIALECTS', 'renderDialect']));
  });

  it('serves what a site shares from /site, and each adapter from its own subpath only', () => {
    const adapters = ['agentFriendly', 'agentFriendlyExpress', 'agentErrorHandler', 'agentFriendlyFetch', 'agentFriendlyFastify', 'agentFriendlyHono', 'agentErrorHandlerHono'];
    expect(resolved['./site']).toEqual(expect.arrayContaining(['agentError', 'siteError', 'AgentError', 'isAgentError', 'isAgentRequest', 'convertAppError']));
    expect((resolved['./site'] as string[]).filter((name) => adapters.includes(name))).toEqual([]);
    expect(resolved['./site/node']).toEqual(['agentFriendly']);
    expect(resolved['./site/express']).toEqual(['agentErrorHandler', 'agentFriendlyExpress']);
    expect(resolved['./site/fetch']).toEqual(['agentFriendlyFetch', 'readCapped']);
    expect(resolved['./site/fastify']).toEqual(['agentFriendlyFastify']);
    expect(resolved['./site/hono']).toEqual(['agentErrorHandlerHono', 'agentFriendlyHono']);
    expect(resolved['./site/koa']).toEqual(['agentFriendlyKoa']);
    expect(resolved['./site/nest']).toEqual(expect.arrayContaining(['AgentErrorsFilter', 'AgentErrorsModule']));
    expect(resolved['./site/next']).toEqual(expect.arrayContaining(['agentErrorsDocs', 'withAgentErrors']));
    expect(resolved['./site']).toContain('translateUpstream');
  });

  it("serves an agent's hot path from /agent, and the stores that need a server or a native module and the experiment from subpaths of their own", () => {
    expect(resolved['./agent']).toEqual(expect.arrayContaining(['fromResponse', 'explainResponse', 'createAgentClient', 'createAgentFetch', 'agentErrorOf', 'delayFrom', 'createMemoryStore', 'defaultStore']));
    for (const elsewhere of ['agentFetch', 'createDiskStore', 'createRedisStore', 'runLoop', 'POLICIES', 'decode', 'formatCell', 'validateEnvelope', 'validateProblem']) expect(resolved['./agent'], elsewhere).not.toContain(elsewhere);
    expect(resolved['./agent/fetcher']).toEqual(['MAX_COPY_BYTES', 'PAGE_ACCEPT', 'agentFetch', 'staleAllowance']);
    // The plug-ins load without the client or SDK they plug into (they import only its types), but for agentAxios, which wraps axios's own adapter.
    expect(resolved['./agent/mcp']).toEqual(['ENVELOPE_OUTPUT_SCHEMA', 'toToolResult', 'toolOutputSchema']);
    expect(resolved['./agent/undici']).toContain('agentErrorsInterceptor');
    expect(resolved['./agent/got']).toEqual(['agentGot']);
    expect(resolved['./agent/axios']).toEqual(['agentAxios']);
    expect(resolved['./agent/redis']).toContain('createRedisStore');
    expect(resolved['./agent/disk']).toEqual(['createDiskStore']);
    expect(resolved['./agent/loop']).toEqual(expect.arrayContaining(['runLoop', 'POLICIES', 'DEFAULT_BACKOFF', 'decode', 'formatCell']));
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
