import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Folders of tests that call our code in their own process (or start the built command as a child): no environment variables or
 * globals changed, no mocks, no test that asks what importing a module does. Their files share
 * one module graph per worker (`isolate: false`): each file no longer imports the sources anew.
 * Measured on these 62 files beside other work (load 11-14): 48 and 54 s of CPU isolated, 33 and
 * 38 s shared; vitest's import time 33-42 s -> 15-24 s. (`pool: 'threads'` instead of forks: no
 * measurable change, 10.9 against 10.2 s of CPU on format/javatext/inspect.)
 * test/mcp's 24 files (each imported the MCP SDK, zod, fastify and the API anew), alternated at load
 * 13-20: isolated 199 and 154 s wall, 93 and 83 s of CPU; shared 78 and 92 s wall, 52 and 57 s.
 * test/diff, test/check, test/writer, test/rescue and test/convert (46 files, the Java ones
 * included; measured in one run with test/checksums' 5 files, isolated both times), one after the
 * other at load 17-21, CPU of the whole process tree (JVMs included): isolated 276 s wall, 226 s
 * of CPU, vitest's import 86 s; shared 216 s wall, 183 s, import 29 s (the isolated run also
 * started the PostgreSQL and MariaDB servers, which a whole run starts anyway). test/checksums,
 * test/security and test/library (19 files) shared: no less CPU (126.3 against 126.6 s).
 */
const SHARED_MODULES = ['test/format', 'test/javatext', 'test/inspect', 'test/architecture', 'test/gigamap', 'test/graph', 'test/mcp', 'test/diff', 'test/check', 'test/writer', 'test/rescue', 'test/convert'].map(
  (folder) => `${folder}/**/*.test.ts`,
);

/** What every test file gets, isolated or not. */
const common = {
  testTimeout: 60_000,
  hookTimeout: 60_000,
  // expect.poll waits for a state; its default bound of 1 s is less than a browser or a server
  // may take on a busy machine (the viewer's storage list showed its third entry after it, in a
  // run beside two CPU hogs and other work). A state never reached still fails, after 30 s.
  expect: { poll: { timeout: 30_000 } },
};

// Fails the run if any test changed the vendored storages (read-only guarantee, see the file).
const FIXTURE_GUARD = 'test/security/fixture-guard.ts';
// The SQL tables' cache of the commands the tests run in a directory of the run's own.
const CACHE_HOME = 'test/helpers/test-run/cache-home.ts';
// The sources compiled once for the run, for the tests that start the command as a process (see the file).
const COMPILED_CLI = 'test/helpers/test-run/compiled-cli.ts';

export default defineConfig({
  test: {
    // Vitest runs one file at a time on two cores (its default is one worker fewer than cores).
    // Most of the longest files wait on processes of their own (the JVMs, chromium, PostgreSQL,
    // MariaDB, our CLI), so files beside them use the cores they leave idle: three at a time on
    // two cores. The whole suite beside two CPU hogs, the same commit: 966 s with three, 1,462 s
    // with two (README, What `npm test` needs).
    maxWorkers: Math.max(3, availableParallelism() - 1),
    projects: [
      {
        test: {
          ...common,
          name: 'shared-modules',
          include: SHARED_MODULES,
          isolate: false,
          globalSetup: [FIXTURE_GUARD, CACHE_HOME, COMPILED_CLI],
        },
      },
      {
        test: {
          ...common,
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          exclude: SHARED_MODULES,
          // One throwaway PostgreSQL cluster for the tests of storages kept in PostgreSQL, one MariaDB server for MariaDB's.
          globalSetup: [FIXTURE_GUARD, 'test/helpers/real-systems/postgres-global.ts', 'test/helpers/real-systems/mariadb-global.ts', CACHE_HOME, COMPILED_CLI],
        },
      },
    ],
  },
});
