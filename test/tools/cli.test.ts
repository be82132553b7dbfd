// The CLI in-process (every command, exit codes) and once as a child process from the built package.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../codegen/paths.js';
import { CODES } from '../../src/index.js';
import { run } from '../../src/tools/cli.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, (t) => void (out += t), (t) => void (err += t));
  return { code, out, err };
}
const fixture = (path: string) => join(ROOT, 'test/fixtures', path);

describe('agent-errors', () => {
  it('prints one line per catalog code under a header with `codes`, and JSON with --json', async () => {
    const { code, out } = await cli('codes');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^code\s+status\s+retry\s+next_step\s+agent should$/);
    expect(lines).toHaveLength(Object.keys(CODES).length + 1);
    expect(out).toMatch(/^rate_limited\s+429\s+after_delay\s+wait\s+Wait retry_after seconds/m);
    expect(JSON.parse((await cli('codes', '--json')).out)).toEqual(CODES);
  });

  it('prints help for the program and for each command, exit 0', async () => {
    expect(await cli('--help')).toMatchObject({ code: 0, out: expect.stringContaining('Exit codes: 0 clean, 1 findings') });
    for (const command of ['codes', 'demo', 'start', 'classify', 'lint', 'diff', 'codegen']) {
      expect((await cli(command, '--help')).out, command).toContain(`Usage: agent-errors ${command}`);
    }
  });

  it('refuses an unknown command or option, or no command, with exit 2', async () => {
    expect(await cli('frobnicate')).toMatchObject({ code: 2, err: expect.stringContaining("unknown command 'frobnicate'") });
    expect(await cli('codes', '--nope')).toMatchObject({ code: 2, err: expect.stringContaining("unknown option '--nope'") });
    expect((await cli()).code).toBe(2);
    expect(await cli('start', '--scale', '0')).toMatchObject({ code: 2, err: expect.stringContaining('--scale') });
    expect(await cli('classify', '--status', 'abc')).toMatchObject({ code: 2, err: expect.stringContaining('a status is a number') });
  });

  it('prints the seed tables with demo, and the same cells as data with --json', async () => {
    const { code, out } = await cli('demo');
    expect(code).toBe(0);
    expect(out).toContain('  rate_limited      ok 2c 30s             ok 2c 30s             ok 6c 31s             ok 6c 31s');
    const tables = JSON.parse((await cli('demo', '--json')).out);
    expect(tables).toHaveLength(4);
    expect(tables[0].rows[1].cells.stripe).toEqual({ outcome: 'ok', calls: 6, slept: 31 });
  });

  it('classifies a response from its status, headers and a body file, and says why', async () => {
    const { code, out } = await cli('classify', '--status', '403', '-H', 'cf-mitigated: challenge', '--body', fixture('responses/cloudflare-403-managed-challenge.json'), '--json');
    expect(code).toBe(0);
    const result = JSON.parse(out);
    expect(result.error.code).toBe('needs_human');
    expect(result.because[0]).toMatch(/cf-mitigated/);
    expect((await cli('classify', '--status', '404')).out).toMatch(/why:\n {2}- status 404 means not_found/);
  });

  it('lints a spec: exit 1 with findings (text, JSON, SARIF), 0 when clean, 2 when it is no OpenAPI document', async () => {
    const faulty = fixture('lint/faulty-3.1.yaml');
    const text = await cli('lint', faulty);
    expect(text.code).toBe(1);
    expect(text.out).toContain('retry-after-declared');
    expect(JSON.parse((await cli('lint', faulty, '--json')).out).length).toBeGreaterThan(0);
    const sarif = JSON.parse((await cli('lint', faulty, '--sarif')).out);
    expect(sarif.version).toBe('2.1.0');
    expect((await cli('lint', fixture('lint/clean-3.1.yaml'))).code).toBe(0);
    expect((await cli('lint', fixture('responses/nginx-404-not-found.json'))).code).toBe(2);
  });

  it('diffs two catalogs: exit 1 on a breaking change, 0 on none, 2 on a file that is neither', async () => {
    expect((await cli('diff', join(ROOT, 'schema/catalog.json'), join(ROOT, 'schema/catalog.json'))).code).toBe(0);
    const changed = await cli('diff', fixture('diff/site-codes-before.json'), fixture('diff/site-codes-after.json'), '--json');
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.out).breaking.length).toBeGreaterThan(0);
    expect((await cli('diff', fixture('responses/nginx-404-not-found.json'), join(ROOT, 'schema/catalog.json'))).code).toBe(2);
  });
});

describe('agent-errors as a child process', () => {
  it('runs each command from the source with the exit code it documents', () => {
    const tsx = join(ROOT, 'node_modules/.bin/tsx');
    const cliPath = join(ROOT, 'src/tools/cli.ts');
    const runChild = (...args: string[]) => spawnSync(tsx, [cliPath, ...args], { encoding: 'utf8', input: '<title>Down for maintenance</title>' });
    expect(runChild('codes').status).toBe(0);
    expect(JSON.parse(runChild('demo', '--json').stdout)).toHaveLength(4);
    const classified = runChild('classify', '-s', '503', '-H', 'Retry-After: 120', '-b', '-', '--json');
    expect(JSON.parse(classified.stdout).error).toMatchObject({ code: 'temporarily_unavailable', retry_after: 120, message: 'Down for maintenance' });
    expect(runChild('lint', fixture('lint/faulty-3.0.yaml'), '--json').status).toBe(1);
    expect(runChild('diff', fixture('diff/orders-before.json'), fixture('diff/orders-after.json')).status).toBe(1);
    expect(runChild('nope').status).toBe(2);
    expect(execFileSync(tsx, [cliPath, '--help'], { encoding: 'utf8' })).toContain('Usage: agent-errors');
  }, 60_000);
});
