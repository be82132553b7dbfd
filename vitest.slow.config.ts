import { defineConfig } from 'vitest/config';

// The slow suite (npm run test:slow, which .ci/run runs after npm test): the package packed and
// installed from its tarball, with every example of the README and docs/ run against it
// (test/pack.test.ts), and a real `next build` and `next start` (test/next/). A minute or two
// each, so the default suite leaves them out to keep npm test within five minutes.
export default defineConfig({
  test: {
    include: ['test/pack.test.ts', 'test/next/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
