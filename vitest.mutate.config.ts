import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The test run of a mutation run (stryker.config.mjs): the suite's settings, with only the test
 * files of the chosen modules (replaced, not added to: vite's mergeConfig would join the lists).
 */
export default defineConfig({ ...base, test: { ...base.test, include: (process.env.STRYKER_TESTS ?? 'test/**/*.test.ts').split(',') } });
