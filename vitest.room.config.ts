import { defineConfig } from 'vitest/config';

// The acoustic loop (tests/room/): the built extension in headless Chromium with PulseAudio as its audio devices.
export default defineConfig({
  test: {
    include: ['tests/room/**/*.room.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 240_000,
    fileParallelism: false,
    pool: 'forks',
  },
});
