// Mutation testing (`npm run mutate`, docs/development.md): StrykerJS with its vitest runner on the
// modules that guard or decode, each with the test files that cover it. STRYKER_MODULE picks one
// (`STRYKER_MODULE=sandbox npm run mutate`); without it every module runs, one after another is
// wiser on two cores. Incremental: a later run re-tests only mutants whose code or tests changed.

/** Module → the files mutated and the tests that cover them. */
export const MODULES = {
  sandbox: {
    mutate: ['src/sql/sandbox/sandbox.ts', 'src/sql/sandbox/statement-check.ts'],
    tests: ['test/sql/sandbox/sandbox.test.ts', 'test/security/sql-layers.test.ts', 'test/sql/sandbox/statement-columns.test.ts', 'test/security/statement-check-shapes.test.ts', 'test/security/hostile-sql.test.ts', 'test/sql/output/sql-answer-bytes.test.ts', 'test/sql/sql-limits-guarded.test.ts'],
  },
  'result-values': {
    mutate: ['src/sql/answers/result-values.ts', 'src/sql/output/result-text.ts'],
    tests: ['test/sql/output/result-values.test.ts', 'test/sql/output/result-text.test.ts', 'test/sql/output/csv-cells.test.ts', 'test/sql/sql-http.test.ts', 'test/sql/output/sql-wide-results.test.ts', 'test/mcp/sql/sql-text.test.ts'],
  },
  gigamap: { mutate: ['src/gigamap/**/*.ts'], tests: ['test/gigamap/**/*.test.ts', 'test/http/api-v1/api-v1-gigamap*.test.ts', 'test/sql/fills/sql-gigamap.test.ts'] },
  rescue: { mutate: ['src/rescue/**/*.ts'], tests: ['test/rescue/**/*.test.ts', 'test/cli/check-rescue.test.ts'] },
  'mcp-tools': { mutate: ['src/mcp/tools/**/*.ts'], tests: ['test/mcp/**/*.test.ts'] },
  guard: { mutate: ['src/http/guard/**/*.ts'], tests: ['test/http/guard/**/*.test.ts', 'test/security/**/*.test.ts', 'test/robustness/connections.test.ts', 'test/http/api-v1/api-v1-bounds.test.ts'] },
  format: { mutate: ['src/format/**/*.ts'], tests: ['test/format/**/*.test.ts'] },
};

const chosen = process.env.STRYKER_MODULE === undefined ? Object.keys(MODULES) : process.env.STRYKER_MODULE.split(',');
for (const name of chosen) if (!(name in MODULES)) throw new Error(`STRYKER_MODULE: no module ${name}; one of ${Object.keys(MODULES).join(', ')}`);
const tag = chosen.join('+');
// The mutation run's vitest config reads the test files from here (vitest.mutate.config.ts);
// STRYKER_TESTS set by hand narrows a run to some of them.
process.env.STRYKER_TESTS ??= chosen.flatMap((name) => MODULES[name].tests).join(',');

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.mutate.config.ts', related: false },
  mutate: chosen.flatMap((name) => MODULES[name].mutate),
  coverageAnalysis: 'perTest',
  // Mutants of module-level constants (allow-lists, tables) are run against every test of the
  // module and took 96 % of the sandbox's time; they are counted as ignored, not as killed.
  ignoreStatic: true,
  incremental: true,
  incrementalFile: `reports/mutation/${tag}.incremental.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${tag}.html` },
  jsonReporter: { fileName: `reports/mutation/${tag}.json` },
  concurrency: 2,
  timeoutMS: 30_000,
  tempDirName: 'reports/mutation/.stryker-tmp',
  // The sandbox copy holds what the tests read; not builds, generated storages or reports.
  ignorePatterns: ['dist', 'dist-check', 'coverage', 'reports', 'test-artifacts', 'bench/.storages', 'bench/.children', 'docs/screenshots'],
  cleanTempDir: 'always',
  thresholds: { high: 90, low: 80, break: null },
};
