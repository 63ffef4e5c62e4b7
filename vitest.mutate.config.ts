import { defineConfig, type TestProjectInlineConfiguration } from 'vitest/config';
import base from './vitest.config.js';

/** The global set-ups that start a database server (PostgreSQL, MariaDB) for the tests of storages kept in one. */
const DATABASE_SETUPS = /(postgres|mariadb)-global\.ts$/;

/**
 * The test run of a mutation run (stryker.config.mjs): the suite's settings, with only the test
 * files of the chosen modules. The suite's projects each name their own files (vitest.config.ts),
 * which a top-level `include` does not narrow: a mutation run ran the whole suite. So the run is
 * one project, the suite's `isolated` one (its settings and set-ups), with the chosen files alone.
 * STRYKER_DATABASES=0 leaves out the database servers: each test runner (re)start, after every
 * mutant that timed out, would otherwise start both servers and load their dumps again, for
 * tests that never ask for them.
 */
const isolated = (base.test?.projects as TestProjectInlineConfiguration[] | undefined)?.find((project) => project.test?.name === 'isolated')?.test;
if (isolated === undefined) throw new Error("vitest.config.ts has no project named 'isolated' to take the mutation run's settings from");
const globalSetup = [isolated.globalSetup ?? []].flat().filter((file) => process.env.STRYKER_DATABASES !== '0' || !DATABASE_SETUPS.test(file));
const { name: _name, exclude: _exclude, ...settings } = isolated;

export default defineConfig({
  test: {
    ...settings,
    globalSetup,
    maxWorkers: base.test?.maxWorkers,
    include: (process.env.STRYKER_TESTS ?? 'test/**/*.test.ts').split(','),
  },
});
