import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Fails the run if any test changed the vendored storages (read-only guarantee, see the file);
    // one throwaway PostgreSQL cluster for the tests of storages kept in PostgreSQL, one MariaDB server for MariaDB's.
    // The SQL tables' cache of the commands the tests run in a directory of the run's own.
    globalSetup: ['test/security/fixture-guard.ts', 'test/helpers/real-systems/postgres-global.ts', 'test/helpers/real-systems/mariadb-global.ts', 'test/helpers/test-run/cache-home.ts'],
    // Vitest runs one file at a time on two cores (its default is one worker fewer than cores).
    // Most of the longest files wait on processes of their own (the JVMs, chromium, PostgreSQL,
    // MariaDB, our CLI), so a second file beside them uses a core the first leaves idle.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for a state; its default bound of 1 s is less than a browser or a server
    // may take on a busy machine (the viewer's storage list showed its third entry after it, in a
    // run beside two CPU hogs and other work). A state never reached still fails, after 30 s.
    expect: { poll: { timeout: 30_000 } },
  },
});
