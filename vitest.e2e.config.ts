import { defineConfig } from 'vitest/config';

// End-to-end tests: the built extension in headless Debian Chromium. One file at a time (2 cores).
export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
