/**
 * JDK types that became built-in handlers in later generations are simplified only when their
 * dictionary entry has the handler's shape (unqualified members); a reflective entry of the same
 * class, as an older runtime wrote it, renders generically.
 */
import { describe, expect, it } from 'vitest';
import { describeObject, type DescribeOptions } from '../../src/inspect/describe-object.js';
import { UTC } from '../../src/javatext/java-time-zones.js';
import { parseTypeDictionary } from '../../src/format/type-dictionary.js';
import { ByteBuilder } from '../helpers/corpora/bytes.js';

const OPTIONS: DescribeOptions = {
  fixedOffset: 0,
  fixedLength: 2147483647,
  variableOffset: 0,
  variableLength: 2147483647,
  valueLength: 2147483647,
  references: false,
  timeZone: UTC,
};
const OID = 1000000000000000001n;

function describe1(dictionaryText: string, typeId: bigint, content: Uint8Array): Promise<unknown> {
  const dictionary = parseTypeDictionary(dictionaryText);
  const source = {
    dictionary,
    readEntity: async (objectId: bigint) => (objectId === OID ? { objectId, typeId, content, file: 'f', offset: 0 } : undefined),
  };
  return describeObject(source, OID, OPTIONS);
}

const int32s = (...values: number[]): Uint8Array => values.reduce((b, v) => b.int32(v), new ByteBuilder()).build();

describe('built-in handler shapes', () => {
  it('simplifies a ZoneOffset with the handler member `int totalSeconds`', async () => {
    const d = await describe1('0000000000001000011 java.time.ZoneOffset{\n\tint totalSeconds,\n}\n', 1000011n, int32s(19800));
    expect(d).toMatchObject({ simplified: true, data: ['+05:30'], variableLength: [0] });
  });

  it('keeps a reflective ZoneOffset entry generic', async () => {
    const d = await describe1('0000000000001000077 java.time.ZoneOffset{\n\tint java.time.ZoneOffset#totalSeconds,\n}\n', 1000077n, int32s(19800));
    expect(d).toMatchObject({ simplified: false, data: ['19800'], variableLength: null });
  });

  it('simplifies LocalDate, YearMonth, MonthDay and Period entries of EclipseStore shape', async () => {
    const localDate = new ByteBuilder().int32(-44).int16(3).int16(15).build();
    expect(await describe1('0000000000001000021 java.time.LocalDate{\n\tint year,\n\tshort month,\n\tshort day,\n}\n', 1000021n, localDate)).toMatchObject({
      simplified: true,
      data: ['-0044-03-15'],
    });
    expect(await describe1('0000000000001000022 java.time.YearMonth{\n\tint year,\n\tint month,\n}\n', 1000022n, int32s(2000, 12))).toMatchObject({ data: ['2000-12'] });
    expect(await describe1('0000000000001000023 java.time.MonthDay{\n\tint month,\n\tint day,\n}\n', 1000023n, int32s(2, 29))).toMatchObject({ data: ['--02-29'] });
    expect(await describe1('0000000000001000001 java.time.Period{\n\tint years,\n\tint months,\n\tint days,\n}\n', 1000001n, int32s(1, -2, 3))).toMatchObject({ data: ['P1Y-2M3D'] });
  });

  it('keeps a reflective LocalDate (MicroStream 8) generic', async () => {
    const text = '0000000000001000073 java.time.LocalDate{\n\tint java.time.LocalDate#year,\n\tshort java.time.LocalDate#month,\n\tshort java.time.LocalDate#day,\n}\n';
    const d = await describe1(text, 1000073n, new ByteBuilder().int32(-44).int16(3).int16(15).build());
    expect(d).toMatchObject({ simplified: false, data: ['-44', '3', '15'] });
  });

  it('fails like Java on a LocalDate that LocalDate.of refuses', async () => {
    const text = '0000000000001000021 java.time.LocalDate{\n\tint year,\n\tshort month,\n\tshort day,\n}\n';
    await expect(describe1(text, 1000021n, new ByteBuilder().int32(2023).int16(2).int16(29).build())).rejects.toThrow(/not a leap year/);
  });

  it("refuses EclipseStore's BitSet entity, whose bytes its dictionary entry does not describe", async () => {
    const text = '0000000000001000020 java.util.BitSet{\n\tint wordsInUse,\n\tboolean sizeIsSticky,\n\t[list] words(\n\t\tlong word,\n\t),\n}\n';
    const bytes = new ByteBuilder().int8(0).int64(24n).int64(1n).int64(5n).build();
    await expect(describe1(text, 1000020n, bytes)).rejects.toThrow(/java.util.BitSet .*Java cannot load it either/);
  });

  it('answers 500 for a present NaN OptionalDouble, renders the others', async () => {
    const text = '0000000000001000018 java.util.OptionalDouble{\n\tboolean isPresent,\n\tdouble value,\n}\n';
    await expect(describe1(text, 1000018n, new ByteBuilder().int8(1).float64(NaN).build())).rejects.toThrow(/NaN/);
    expect(await describe1(text, 1000018n, new ByteBuilder().int8(1).float64(1.5).build())).toMatchObject({ data: ['OptionalDouble[1.5]'] });
    expect(await describe1(text, 1000018n, new ByteBuilder().int8(0).float64(0).build())).toMatchObject({ data: ['OptionalDouble.empty'] });
  });
});
