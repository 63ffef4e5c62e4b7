import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleTypeDictionary, formatTypeId } from '../../../src/format/dictionary-text.js';
import { parseTypeDictionary } from '../../../src/format/type-dictionary.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';

function corpusDictionaries(): string[] {
  const storages = join(CONFORMANCE_DIR, 'storages');
  const files = readdirSync(storages).map((name) => join(storages, name, 'PersistenceTypeDictionary.ptd'));
  const states = join(CONFORMANCE_DIR, 'follow', 'SEQ1', 'states');
  for (const state of readdirSync(states, { withFileTypes: true })) {
    if (state.isDirectory()) files.push(join(states, state.name, 'PersistenceTypeDictionary.ptd'));
  }
  return files;
}

const roundTrip = (text: string): string => assembleTypeDictionary(parseTypeDictionary(text).entries);

describe('assembleTypeDictionary', () => {
  const files = corpusDictionaries();

  it('covers the whole corpus, including follow state S10', () => {
    expect(files.some((f) => f.endsWith(join('S10', 'PersistenceTypeDictionary.ptd')))).toBe(true);
    expect(files.length).toBeGreaterThanOrEqual(7);
  });

  it.each(files.map((f) => [f.slice(CONFORMANCE_DIR.length + 1), f]))('re-assembles %s byte for byte', (_name, file) => {
    const bytes = readFileSync(file);
    expect(Buffer.from(roundTrip(bytes.toString('utf8')), 'utf8').equals(bytes)).toBe(true);
  });

  it('pads type, qualifier and name columns of a reflective type (§7.3 example)', () => {
    const text = [
      '0000000000001000082 exp.Gen$Derived{',
      '\tjava.lang.String exp.Gen$Base   #baseStr ,',
      '\tjava.lang.Object exp.Gen$Derived#dRef    ,',
      '\tint              exp.Gen$Base   #baseInt ,',
      '\tlong             exp.Gen$Base   #baseLong,',
      '\tbyte             exp.Gen$Derived#dByte   ,',
      '\tdouble           exp.Gen$Derived#dDouble ,',
      '}',
      '',
    ].join('\n');
    expect(roundTrip(text)).toBe(text);
    // Whitespace-free input gives the same canonical text.
    expect(roundTrip(text.replace(/\s+/g, ' ').replace(/ ?([{},#]) ?/g, '$1').replace('1000082 ', '1000082\n'))).toBe(text);
  });

  it('indents nested [list] members and pads each member list separately (§7.3 examples)', () => {
    const text = [
      '0000000000000000057 java.util.TreeMap{',
      '\tjava.util.Comparator comparator,',
      '\t[list]               elements  (',
      '\t\tjava.lang.Object key  ,',
      '\t\tjava.lang.Object value,',
      '\t),',
      '}',
      '0000000000001000052 one.microstream.persistence.types.PersistenceRoots$Default{',
      '\t[list] instances  (',
      '\t\tjava.lang.Object instance,',
      '\t),',
      '\t[list] identifiers(',
      '\t\t[char] identifier,',
      '\t),',
      '}',
      '',
    ].join('\n');
    expect(roundTrip('57 java.util.TreeMap { java.util.Comparator comparator, [list] elements ( java.lang.Object key, java.lang.Object value, ), }' +
      '\n1000052 one.microstream.persistence.types.PersistenceRoots$Default{[list] instances(java.lang.Object instance,),[list] identifiers([char] identifier,),}')).toBe(text);
  });

  it('writes member-less types as name{} and pseudo members unpadded', () => {
    const text = [
      '0000000000000000005 int{',
      '\tprimitive 32 bit integer signed,',
      '}',
      '0000000000000000010 java.lang.Object{}',
      '0000000000001000077 exp.Gen$WithState{',
      '\tenum A,',
      '\tenum LONGER_NAME,',
      '\tjava.lang.String java.lang.Enum   #name   ,',
      '\tjava.lang.String exp.Gen$WithState#s      ,',
      '\tint              java.lang.Enum   #ordinal,',
      '\tint              exp.Gen$WithState#n      ,',
      '}',
      '',
    ].join('\n');
    expect(roundTrip(text)).toBe(text);
    expect(roundTrip('10 java.lang.Object { }')).toBe('0000000000000000010 java.lang.Object{}\n');
  });

  it('measures columns in UTF-16 units, like Java', () => {
    const text = ['0000000000001000090 exp.Op$§MINUS{', '\tint    exp.Op#§x   ,', '\tdouble exp.Op#value,', '}', ''].join('\n');
    expect(roundTrip(text)).toBe(text);
  });

  it('zero-pads type ids to 19 digits', () => {
    expect(formatTypeId(1n)).toBe('0000000000000000001');
    expect(formatTypeId(1000052n)).toBe('0000000000001000052');
    expect(formatTypeId(999999999999999999n)).toBe('0999999999999999999');
  });
});
