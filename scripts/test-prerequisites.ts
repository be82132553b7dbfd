// What `npm test` needs besides node_modules: a Chromium for the documentation-page test, a
// redis-server for the Redis store and fleet tests (they start private servers of their own), and
// redis-cli, which joins private servers into a Redis Cluster (test/helpers/redis-cluster.ts).
//
//   npx tsx scripts/test-prerequisites.ts    the first step of npm test, and so of CI
//
// Where both are found, it prints nothing. On Debian or Ubuntu as root it installs what is missing
// from Debian's packages (chromium, redis-server, redis-tools) with apt-get. Anywhere else it stops at once with
// one line naming what to install and the command that does it, rather than letting the suite run
// for two minutes and fail. The tests find the programs through chromiumPath(), redisServerPath()
// and redisCliPath() below, so CHROMIUM_PATH, REDIS_SERVER_PATH and REDIS_CLI_PATH point both this
// check and the tests elsewhere.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where an executable is, or undefined. */
function executable(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/** The first of `paths` that is an executable file. */
const firstExecutable = (paths: readonly string[]): string | undefined => {
  for (const path of paths) if (executable(path)) return path;
  return undefined;
};

/** `name` on PATH, then in the folders package managers install to. */
function onPath(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter).filter(Boolean), '/usr/bin', '/usr/local/bin', '/opt/homebrew/bin'];
  return firstExecutable(dirs.map((dir) => join(dir, name)));
}

/** The Chromium the browser test drives: CHROMIUM_PATH, or where Debian, Ubuntu and macOS put it. */
export function chromiumPath(): string | undefined {
  if (process.env.CHROMIUM_PATH) return executable(process.env.CHROMIUM_PATH);
  return firstExecutable(['/usr/bin/chromium', '/usr/bin/chromium-browser', '/Applications/Chromium.app/Contents/MacOS/Chromium']);
}

/** The redis-server the tests start: REDIS_SERVER_PATH, or redis-server on PATH. */
export function redisServerPath(): string | undefined {
  if (process.env.REDIS_SERVER_PATH) return executable(process.env.REDIS_SERVER_PATH);
  return onPath('redis-server');
}

/** The redis-cli that creates the tests' Redis Cluster: REDIS_CLI_PATH, or redis-cli on PATH (Debian's redis-tools, a dependency of redis-server). */
export function redisCliPath(): string | undefined {
  if (process.env.REDIS_CLI_PATH) return executable(process.env.REDIS_CLI_PATH);
  return onPath('redis-cli');
}

/** One program the tests need. */
interface Need {
  /** What a person calls it. */
  readonly name: string;
  /** Its Debian package. */
  readonly debian: string;
  /** Its Homebrew install. */
  readonly brew: string;
  /** The environment variable that points the tests at it. */
  readonly env: string;
  readonly find: () => string | undefined;
}

const NEEDS: readonly Need[] = [
  { name: 'Chromium', debian: 'chromium', brew: 'brew install --cask chromium', env: 'CHROMIUM_PATH', find: chromiumPath },
  { name: 'redis-server', debian: 'redis-server', brew: 'brew install redis', env: 'REDIS_SERVER_PATH', find: redisServerPath },
  { name: 'redis-cli', debian: 'redis-tools', brew: 'brew install redis', env: 'REDIS_CLI_PATH', find: redisCliPath },
];

/** Debian, Ubuntu or a derivative: apt-get installs Debian's packages there. */
function isDebianLike(): boolean {
  if (existsSync('/etc/debian_version')) return true;
  try {
    return /^ID(_LIKE)?=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** The one line a person reads when this machine cannot be set up here: what is missing and the command that installs it. */
export function instruction(missing: readonly Need[], platform: NodeJS.Platform, debianLike: boolean, root: boolean): string {
  const listed = missing.map((n) => n.name);
  const names = listed.length > 2 ? `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}` : listed.join(' and ');
  if (debianLike) {
    const command = `${root ? '' : 'sudo '}apt-get install -y ${missing.map((n) => n.debian).join(' ')}`;
    return `npm test needs ${names}: install with \`${command}\`, then run npm test again.`;
  }
  if (platform === 'darwin') return `npm test needs ${names}: install with \`${[...new Set(missing.map((n) => n.brew))].join(' && ')}\`, then run npm test again.`;
  return `npm test needs ${names}: install them with this system's package manager, or set ${missing.map((n) => n.env).join(' and ')} to where they are.`;
}

/** Installs Debian's packages for what is missing; returns apt-get's output when it failed. */
function aptInstall(missing: readonly Need[]): string | undefined {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const packages = missing.map((n) => n.debian);
  process.stderr.write(`npm test: installing ${packages.join(', ')} from Debian's packages (apt-get, once)\n`);
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', ...packages]]) {
    const ran = spawnSync('apt-get', args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    if (ran.status !== 0) return `${ran.stdout ?? ''}${ran.stderr ?? ''}${ran.error ? String(ran.error) : ''}`.trim();
  }
  return undefined;
}

/** Checks, installs where it may, and returns the exit code: 0 when everything is there. */
export function ensure(): number {
  let missing = NEEDS.filter((n) => n.find() === undefined);
  if (missing.length === 0) return 0;
  const debianLike = isDebianLike();
  const root = process.getuid?.() === 0;
  if (debianLike && root && missing.every((n) => !process.env[n.env])) {
    const failed = aptInstall(missing);
    missing = NEEDS.filter((n) => n.find() === undefined);
    if (missing.length === 0) return 0;
    if (failed) process.stderr.write(`${failed.split('\n').slice(-5).join('\n')}\n`);
  }
  process.stderr.write(`${instruction(missing, process.platform, debianLike, root)}\n`);
  return 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = ensure();
