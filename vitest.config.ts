import { configDefaults, defineConfig } from 'vitest/config';
import type { Reporter, TestModule } from 'vitest/node';

/** Ends the run with a plain "N passed, N failed" line that any CI log reader understands. */
const plainSummary: Reporter = {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) for (const test of module.children.allTests()) counts[test.result().state] += 1;
    process.stdout.write(`\nvitest: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`);
  },
};

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The packed tarball with the docs' examples, a real Next.js build and server, and the fleets of
    // worker processes: a minute or so each, run by npm run test:slow (vitest.slow.config.ts), which
    // CI runs too.
    exclude: [...configDefaults.exclude, 'test/pack.test.ts', 'test/next/**', 'test/agent/fleet*.test.ts', 'test/agent/hostile.test.ts', 'test/agent/boundary-30s.test.ts'],
    globalSetup: ['test/setup/redis.ts'],
    // Any warning of Node, in a worker or in a child process of a test, fails the test it came in.
    setupFiles: ['test/setup/warnings.ts'],
    testTimeout: 30_000,
    reporters: ['default', plainSummary],
  },
});
