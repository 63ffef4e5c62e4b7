import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the run if any test changed the vendored storages (read-only guarantee, see the file).
    globalSetup: ['test/security/fixture-guard.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
