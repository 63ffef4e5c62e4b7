import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/** The global set-ups that start a database server (PostgreSQL, MariaDB) for the tests of storages kept in one. */
const DATABASE_SETUPS = /(postgres|mariadb)-global\.ts$/;

/**
 * The test run of a mutation run (stryker.config.mjs): the suite's settings, with only the test
 * files of the chosen modules (replaced, not added to: vite's mergeConfig would join the lists).
 * STRYKER_DATABASES=0 leaves out the database servers: each test runner (re)start, after every
 * mutant that timed out, would otherwise start both servers and load their dumps again, for
 * tests that never ask for them.
 */
const globalSetup = [base.test?.globalSetup ?? []].flat().filter((file) => process.env.STRYKER_DATABASES !== '0' || !DATABASE_SETUPS.test(file));

export default defineConfig({ ...base, test: { ...base.test, globalSetup, include: (process.env.STRYKER_TESTS ?? 'test/**/*.test.ts').split(',') } });
