import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ECLIPSESTORE_WRITER, MICROSTREAM_WRITER } from '../../src/writer/writer-family.js';

const MICROSTREAM_NOROOT = 'test/fixtures/conformance/storages/noroot/PersistenceTypeDictionary.ptd';
const ECLIPSESTORE_NOROOT = 'test/fixtures/conformance-es/storages/noroot/PersistenceTypeDictionary.ptd';

/** The base dictionaries come from one table; each must be its library's fresh dictionary to the byte. */
describe('base dictionary of a fresh storage', () => {
  it('is MicroStream 4.1 noroot verbatim', () => {
    const java = readFileSync(MICROSTREAM_NOROOT, 'utf8');
    expect(MICROSTREAM_WRITER.baseDictionaryText).toBe(java);
  });
  it('is EclipseStore 4.1 noroot verbatim', () => {
    const java = readFileSync(ECLIPSESTORE_NOROOT, 'utf8');
    expect(ECLIPSESTORE_WRITER.baseDictionaryText).toBe(java);
  });
});

/**
 * The table is a data file beside src/writer/base-dictionary.ts, which tsc does not copy: the
 * built command (npm run build; scripts/copy-data-files.ts puts it into dist/) must find it too.
 */
describe('base dictionary from the built command line', () => {
  const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
  const dir = mkdtempSync(join(tmpdir(), 'base-dictionary-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  for (const [family, noroot] of [['microstream', MICROSTREAM_NOROOT], ['eclipsestore', ECLIPSESTORE_NOROOT]] as const) {
    it(`generate --family ${family} starts the dictionary with ${family}'s fresh one`, async () => {
      const out = join(dir, family);
      await promisify(execFile)(process.execPath, [CLI, 'generate', '--entities', '100', '--out', out, '--family', family]);
      const written = readFileSync(join(out, 'PersistenceTypeDictionary.ptd'), 'utf8');
      const java = readFileSync(noroot, 'utf8');
      expect(written.slice(0, java.length)).toBe(java);
      // The generated types follow the base ones.
      expect(written.length).toBeGreaterThan(java.length);
    });
  }
});
