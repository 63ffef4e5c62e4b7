import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ECLIPSESTORE_WRITER, MICROSTREAM_WRITER } from '../../src/writer/writer-family.js';

/** The base dictionaries come from one table; each must be its library's fresh dictionary to the byte. */
describe('base dictionary of a fresh storage', () => {
  it('is MicroStream 4.1 noroot verbatim', () => {
    const java = readFileSync('test/fixtures/conformance/storages/noroot/PersistenceTypeDictionary.ptd', 'utf8');
    expect(MICROSTREAM_WRITER.baseDictionaryText).toBe(java);
  });
  it('is EclipseStore 4.1 noroot verbatim', () => {
    const java = readFileSync('test/fixtures/conformance-es/storages/noroot/PersistenceTypeDictionary.ptd', 'utf8');
    expect(ECLIPSESTORE_WRITER.baseDictionaryText).toBe(java);
  });
});
