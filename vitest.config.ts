import { defineConfig } from 'vitest/config';

// Unit tests: plain Node, no browser. Model runtimes run over fixture graphs through real onnxruntime.
export default defineConfig({
  test: {
    include: ['tests/unit/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    pool: 'forks',
  },
});
