import { describe, expect, it } from 'vitest';
import { CODES } from '../../src/index.js';
import { run } from '../../src/tools/cli.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, (t) => void (out += t), (t) => void (err += t));
  return { code, out, err };
}

describe('agent-errors', () => {
  it('prints one line per catalog code under a header with `codes`', async () => {
    const { code, out } = await cli('codes');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^code\s+status\s+retry\s+next_step\s+agent should$/);
    expect(lines).toHaveLength(Object.keys(CODES).length + 1);
    expect(out).toMatch(/^rate_limited\s+429\s+after_delay\s+wait\s+Wait retry_after seconds/m);
  });

  it('prints the catalog as JSON with `codes --json`', async () => {
    expect(JSON.parse((await cli('codes', '--json')).out)).toEqual(CODES);
  });

  it('prints help with --help and exits 0', async () => {
    const { code, out } = await cli('--help');
    expect(code).toBe(0);
    expect(out).toContain('Usage: agent-errors');
  });

  it('refuses an unknown command or option with exit 2 and the help', async () => {
    expect(await cli('frobnicate')).toMatchObject({ code: 2, err: expect.stringContaining('unknown command "frobnicate"') });
    expect(await cli('codes', '--nope')).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--nope'") });
    expect((await cli()).code).toBe(2);
  });
});

describe('agent-errors demo', () => {
  it('prints the seed tables, and the same cells as data with --json', async () => {
    let out = '';
    expect(await run(['demo'], (t) => void (out += t))).toBe(0);
    expect(out).toContain('  rate_limited      ok 2c 30s             ok 2c 30s             ok 6c 31s             ok 6c 31s');
    let json = '';
    await run(['demo', '--json'], (t) => void (json += t));
    const tables = JSON.parse(json);
    expect(tables).toHaveLength(4);
    expect(tables[0].rows[1].cells.stripe).toEqual({ outcome: 'ok', calls: 6, slept: 31 });
  });

  it('refuses a --scale that is not a factor', async () => {
    let err = '';
    expect(await run(['start', '--scale', '0'], () => {}, (t) => void (err += t))).toBe(2);
    expect(err).toContain('--scale');
  });
});
