import { defineConfig } from 'vitest/config';

// The slow suite (npm run test:slow, which .ci/run runs after npm test): the package packed and
// installed from its tarball, with every example of the README and docs/ run against it
// (test/pack.test.ts), a real `next build` and `next start` (test/next/), and fleets of agent
// worker processes on a real Redis and a real Redis Cluster (test/agent/fleet*.test.ts), and every
// agent host against hostile sites, each in a child process of its own (test/agent/hostile.test.ts),
// and the seed's five requests told Retry-After: 30 on every host (test/agent/boundary-30s.test.ts). A minute
// or so each, so the default suite leaves them out to keep npm test within five minutes. The fleet
// tests start the Redis they need (test/setup/redis.ts, and clusters of their own).
export default defineConfig({
  test: {
    include: ['test/pack.test.ts', 'test/next/**/*.test.ts', 'test/agent/fleet*.test.ts', 'test/agent/hostile.test.ts', 'test/agent/boundary-30s.test.ts'],
    globalSetup: ['test/setup/redis.ts'],
    // Any warning of Node, in a worker or in a child process of a test, fails the test it came in.
    setupFiles: ['test/setup/warnings.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
