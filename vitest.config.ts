import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the run if any test changed the vendored storages (read-only guarantee, see the file);
    // one throwaway PostgreSQL cluster for the tests of storages kept in PostgreSQL, one MariaDB server for MariaDB's.
    // The SQL tables' cache of the commands the tests run in a directory of the run's own.
    globalSetup: ['test/security/fixture-guard.ts', 'test/helpers/postgres-global.ts', 'test/helpers/mariadb-global.ts', 'test/helpers/cache-home.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
