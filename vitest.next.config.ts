import { defineConfig } from 'vitest/config';

// The Next.js build test alone (npm run test:next): a real `next build` and `next start` take a
// minute or so, too long for every run of the default suite, which excludes test/next.
export default defineConfig({
  test: {
    include: ['test/next/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
