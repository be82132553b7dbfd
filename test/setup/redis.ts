// vitest globalSetup: one redis-server for the whole run, on a free loopback port, when REDIS_URL
// names none, so `npm test` needs no service started by hand. The tests that share a Redis
// (sharedRedis in test/helpers/redis.ts) use it under key prefixes of their own; the tests that kill
// or freeze a server start private ones. Workers inherit the REDIS_URL set here.
import { redisServerPath } from '../../scripts/test-prerequisites.js';
import { exited, freePort, launch } from '../helpers/redis.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  // Without redis-server (a run of some test files, before npm test's first step installed it), the
  // tests that need Redis fail on their own with launch's message naming what to install.
  if (process.env.REDIS_URL || !redisServerPath()) return undefined;
  const port = await freePort();
  const child = await launch(port);
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  return async () => {
    delete process.env.REDIS_URL;
    await exited(child, 'SIGTERM');
  };
}
