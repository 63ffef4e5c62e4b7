import { describe, expect, it } from 'vitest';
import { DecimalShapes } from '../../../src/sql/tables/value-records.js';

/** The shape of a big-number type's texts decides its DECIMAL column (finish-tables.ts). */
describe('decimal shapes', () => {
  it('keeps the most digits before and after the point of plain decimal texts', () => {
    const shapes = new DecimalShapes();
    for (const text of ['0', '-12.5', '123456.78', '-0.001', '42']) shapes.note('java.math.BigDecimal', text);
    expect(shapes.byType.get('java.math.BigDecimal')).toEqual({ bad: false, digits: 6, scale: 3 });
  });

  it("marks a type whose texts are not all plain decimals (Java's exponent form, signs, blanks)", () => {
    for (const odd of ['1E+5', '+1', '1.', '.5', ' 1', '1 ', '', '1.2.3', '--1', '١٢']) {
      const shapes = new DecimalShapes();
      shapes.note('java.math.BigDecimal', '12.5');
      shapes.note('java.math.BigDecimal', odd);
      expect(shapes.byType.get('java.math.BigDecimal')?.bad, JSON.stringify(odd)).toBe(true);
    }
  });

  it('keeps each type apart', () => {
    const shapes = new DecimalShapes();
    shapes.note('java.math.BigInteger', '123456789012345678901234567890');
    shapes.note('java.math.BigDecimal', '1.5');
    expect(shapes.byType.get('java.math.BigInteger')).toEqual({ bad: false, digits: 30, scale: 0 });
    expect(shapes.byType.get('java.math.BigDecimal')).toEqual({ bad: false, digits: 1, scale: 1 });
  });
});
