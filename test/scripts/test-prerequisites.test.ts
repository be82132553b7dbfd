// The first step of npm test: what it says when Chromium or redis-server is missing, and that it
// says it at once, in one line, with the command that installs them.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../codegen/paths.js';
import { chromiumPath, instruction, redisServerPath } from '../../scripts/test-prerequisites.js';

const SCRIPT = join(ROOT, 'scripts', 'test-prerequisites.ts');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const chromium = { name: 'Chromium', debian: 'chromium', brew: 'brew install --cask chromium', env: 'CHROMIUM_PATH', find: () => undefined };
const redis = { name: 'redis-server', debian: 'redis-server', brew: 'brew install redis', env: 'REDIS_SERVER_PATH', find: () => undefined };

describe('scripts/test-prerequisites.ts', () => {
  it('names what is missing and the command that installs it, on each kind of machine', () => {
    expect(instruction([chromium, redis], 'linux', true, false)).toBe('npm test needs Chromium and redis-server: install with `sudo apt-get install -y chromium redis-server`, then run npm test again.');
    expect(instruction([redis], 'linux', true, true)).toBe('npm test needs redis-server: install with `apt-get install -y redis-server`, then run npm test again.');
    expect(instruction([chromium, redis], 'darwin', false, false)).toBe('npm test needs Chromium and redis-server: install with `brew install --cask chromium && brew install redis`, then run npm test again.');
    expect(instruction([chromium], 'freebsd', false, false)).toBe("npm test needs Chromium: install them with this system's package manager, or set CHROMIUM_PATH to where they are.");
  });

  it('finds what the tests use here (npm test installed it before this ran)', () => {
    expect(chromiumPath()).toMatch(/chrom/i);
    expect(redisServerPath()).toMatch(/redis-server$/);
  });

  it('stops at once with one line when a program is not where the environment says, and installs nothing', () => {
    const ran = spawnSync(TSX, [SCRIPT], { encoding: 'utf8', env: { ...process.env, CHROMIUM_PATH: '/nonexistent/chromium', REDIS_SERVER_PATH: '/nonexistent/redis-server' } });
    expect(ran.status).toBe(1);
    expect(ran.stdout).toBe('');
    const lines = ran.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test needs Chromium and redis-server: install with `(sudo )?apt-get install -y chromium redis-server`/);
  });

  it('prints nothing and exits 0 when everything is there', () => {
    const ran = spawnSync(TSX, [SCRIPT], { encoding: 'utf8', env: process.env });
    expect({ status: ran.status, stdout: ran.stdout, stderr: ran.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
  });
});
