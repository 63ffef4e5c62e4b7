import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFamily } from '../../../src/format/storage-family.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';

const entry = (id: number, name: string, body = ''): string => `${String(id).padStart(19, '0')} ${name}{${body}}\n`;
const ROOTS_BODY = '\n\t[list] instances(\n\t\tjava.lang.Object instance,\n\t),\n\t[list] identifiers(\n\t\t[char] identifier,\n\t),\n';

describe('detectFamily', () => {
  it.each(CORPORA.flatMap((c) => c.storages.map((s) => [c.generation, s, c.dir] as const)))('%s %s', (generation, storage, dir) => {
    const text = readFileSync(join(dir, 'storages', storage, 'PersistenceTypeDictionary.ptd'), 'utf8');
    const family = detectFamily(parseTypeDictionary(text));
    expect(family.name).toBe(generation.startsWith('EclipseStore') ? 'eclipsestore' : 'microstream');
  });

  it('reads names, not type ids', () => {
    // EclipseStore names at the ids MicroStream 4.1 used, and the other way round.
    const es = parseTypeDictionary(entry(1000052, 'org.eclipse.serializer.persistence.types.PersistenceRoots$Default', ROOTS_BODY));
    const ms = parseTypeDictionary(entry(1000070, 'one.microstream.persistence.types.PersistenceRoots$Default', ROOTS_BODY));
    expect(detectFamily(es).name).toBe('eclipsestore');
    expect(detectFamily(ms).name).toBe('microstream');
    expect(detectFamily(es).defaultInstance).toBe('store-data');
    expect(detectFamily(ms).defaultInstance).toBe('microstream');
  });

  it('takes the newer roots type of a storage migrated from MicroStream to EclipseStore', () => {
    const text =
      entry(1000052, 'one.microstream.persistence.types.PersistenceRoots$Default', ROOTS_BODY) +
      entry(1000090, 'org.eclipse.serializer.persistence.types.PersistenceRoots$Default', ROOTS_BODY);
    expect(detectFamily(parseTypeDictionary(text)).name).toBe('eclipsestore');
  });

  it('falls back to the newest package of a family, then to MicroStream', () => {
    expect(detectFamily(parseTypeDictionary(entry(10000, 'org.eclipse.serializer.reference.Lazy$Default', '\n\tlong objectId,\n'))).name).toBe('eclipsestore');
    expect(detectFamily(parseTypeDictionary(entry(10000, 'one.microstream.reference.Lazy$Default', '\n\tlong objectId,\n'))).name).toBe('microstream');
    expect(detectFamily(parseTypeDictionary(entry(10, 'java.lang.Object'))).name).toBe('microstream');
  });
});
