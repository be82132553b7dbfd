import { describe, expect, it } from 'vitest';
import { CODES } from '../../src/index.js';
import { run } from '../../src/tools/cli.js';

function cli(...argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = run(argv, (t) => void (out += t), (t) => void (err += t));
  return { code, out, err };
}

describe('agent-errors', () => {
  it('prints one line per catalog code under a header with `codes`', () => {
    const { code, out } = cli('codes');
    expect(code).toBe(0);
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/^code\s+status\s+retry\s+next_step\s+agent should$/);
    expect(lines).toHaveLength(Object.keys(CODES).length + 1);
    expect(out).toMatch(/^rate_limited\s+429\s+after_delay\s+wait\s+Wait retry_after seconds/m);
  });

  it('prints the catalog as JSON with `codes --json`', () => {
    expect(JSON.parse(cli('codes', '--json').out)).toEqual(CODES);
  });

  it('prints help with --help and exits 0', () => {
    const { code, out } = cli('--help');
    expect(code).toBe(0);
    expect(out).toContain('Usage: agent-errors');
  });

  it('refuses an unknown command or option with exit 2 and the help', () => {
    expect(cli('frobnicate')).toMatchObject({ code: 2, err: expect.stringContaining('unknown command "frobnicate"') });
    expect(cli('codes', '--nope')).toMatchObject({ code: 2, err: expect.stringContaining("Unknown option '--nope'") });
    expect(cli().code).toBe(2);
  });
});
