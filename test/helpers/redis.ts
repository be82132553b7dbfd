// Real Redis for the tests: the one REDIS_URL names (test/setup/redis.ts starts one for the run
// when it is unset), or a private redis-server on a free loopback port that the caller stops, or
// kills to see what an outage does.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { redisServerPath } from '../../scripts/test-prerequisites.js';
import { freePort } from './server.js';

export { freePort };

export interface TestRedis {
  readonly url: string;
  /** Kills the server at once (SIGKILL), as a crash would; a no-op for a Redis this helper did not start. */
  readonly kill: () => Promise<void>;
  /** Starts a killed private server again on the same port. */
  readonly restart: () => Promise<void>;
  /** Freezes a private server (SIGSTOP), so it holds connections and answers nothing; resume() thaws it. */
  readonly pause: () => void;
  readonly resume: () => void;
  /** Stops a private server; leaves a shared one running. */
  readonly stop: () => Promise<void>;
}


/**
 * Starts redis-server on `port` of 127.0.0.1, without persistence; resolves once it accepts connections.
 * `extra` arguments follow the defaults (and so override them), e.g. test/helpers/redis-cluster.ts's cluster options.
 */
export function launch(port: number, extra: readonly string[] = []): Promise<ChildProcess> {
  const server = redisServerPath();
  if (!server) return Promise.reject(new Error('redis-server is not installed: npx tsx scripts/test-prerequisites.ts says how to install it'));
  const child = spawn(server, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  // Even a test that timed out and went on after its hooks ran leaves no server behind.
  const orphan = (): void => void child.kill('SIGKILL');
  process.once('exit', orphan);
  child.once('exit', () => process.off('exit', orphan));
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer): void => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.resume();
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it was ready: ${out}`)));
  });
}

/** Sends `signal` to a server and resolves when it has exited; at once for one already gone. */
export async function exited(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  await done;
}

/** A redis-server of this test's own, on a free port. */
export async function privateRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  return {
    url: `redis://127.0.0.1:${port}`,
    kill: () => exited(child, 'SIGKILL'),
    restart: async () => {
      await exited(child, 'SIGKILL');
      child = await launch(port);
    },
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    stop: async () => {
      child?.kill('SIGCONT');
      await exited(child, 'SIGTERM');
    },
  };
}

/** The Redis of the run (REDIS_URL) when there is one, otherwise a private one. Tests on it use their own key prefix. */
export async function sharedRedis(): Promise<TestRedis> {
  const url = process.env.REDIS_URL;
  if (!url) return privateRedis();
  const refuse = (): never => {
    throw new Error(`the Redis at ${url} is shared: start a privateRedis() to stop it`);
  };
  return { url, kill: async () => refuse(), restart: async () => refuse(), pause: refuse, resume: refuse, stop: async () => {} };
}

/** A connected node-redis client; errors are left to the store under test (a store listens to them). */
export async function connect(url: string) {
  return createClient({ url, socket: { reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 300) } }).connect();
}

// One run id per test file (vitest loads this module once per file), so a file can clean up
// after itself on a shared Redis without touching another file's keys.
const RUN = randomUUID();

/** A key prefix no other test uses. */
export const uniquePrefix = (what: string): string => `agent-errors-test:${RUN}:${what}:${randomUUID()}:`;

/** Deletes every key this test file wrote under uniquePrefix on the Redis at `url`. */
export async function cleanUp(url: string): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `agent-errors-test:${RUN}:*`, COUNT: 1000 })) if (keys.length) await client.del(keys);
  } finally {
    client.destroy();
  }
}
