import { describe, expect, it } from 'vitest';
import { javaBigDecimalToString } from '../../../src/javatext/java-big-number-text.js';
import { DecimalShapes, plainDecimalAt, type PlainDecimal } from '../../../src/sql/tables/value-records.js';

/**
 * The base pass takes a BigDecimal's stored characters as its text, without Java's renderer, only
 * where that renderer would return them unchanged (value-records.ts `plainDecimalAt`): checked
 * here against `javaBigDecimalToString` for every text of up to six characters over the
 * alphabet that plain decimals use, and for the forms Java writes otherwise.
 */

/** A record content that is one `[char]` list holding `text`, at offset 8 of a larger buffer. */
function content(text: string): { view: DataView; at: number; length: number } {
  const length = 16 + 2 * text.length;
  const view = new DataView(new ArrayBuffer(8 + length + 8));
  view.setUint32(8, length, true);
  view.setUint32(16, text.length, true);
  for (let i = 0; i < text.length; i++) view.setUint16(24 + 2 * i, text.charCodeAt(i), true);
  return { view, at: 8, length };
}

function plain(text: string): PlainDecimal | undefined {
  const out: PlainDecimal = { at: -1, count: -1, digits: -1, scale: -1 };
  const { view, at, length } = content(text);
  return plainDecimalAt(view, at, length, out) ? out : undefined;
}

function javaText(text: string): string | undefined {
  try {
    return javaBigDecimalToString(text);
  } catch {
    return undefined;
  }
}

function* texts(alphabet: string, upTo: number): Generator<string> {
  let level = [''];
  for (let n = 1; n <= upTo; n++) {
    level = level.flatMap((prefix) => [...alphabet].map((c) => prefix + c));
    yield* level;
  }
}

describe('a BigDecimal taken where it lies', () => {
  it('is taken exactly when Java renders its plain text unchanged, with the shape DecimalShapes.note gives', () => {
    let taken = 0;
    for (const text of texts('-0.19', 6)) {
      const found = plain(text);
      const java = javaText(text);
      const unchanged = java === text && /^-?[0-9]+(\.[0-9]+)?$/.test(text);
      expect(found !== undefined, text).toBe(unchanged);
      if (found === undefined) continue;
      taken++;
      const shapes = new DecimalShapes();
      shapes.note('d', text);
      const shape = shapes.byType.get('d')!;
      expect({ at: found.at, count: found.count, digits: found.digits, scale: found.scale }, text).toEqual({ at: 24, count: text.length, digits: shape.digits, scale: shape.scale });
    }
    expect(taken).toBeGreaterThan(1000);
  });

  it('leaves what Java writes otherwise to the renderer', () => {
    for (const text of ['0.0000001', '0.0000000', '-0', '-0.00', '+1', '00.5', '01', '1.', '.5', '1e3', '1E+3', ' 1', '1 ', '١٢', '12.3x', '-', '']) {
      expect(plain(text), JSON.stringify(text)).toBeUndefined();
    }
    expect(javaText('0.0000001')).toBe('1E-7');
    expect(javaText('-0.00')).toBe('0.00');
  });

  it('takes the texts of prices, small and long', () => {
    for (const text of ['0', '12.50', '-7.25', '0.000001', '0.000000', '123456789012.345678']) {
      expect(plain(text), text).toBeDefined();
      expect(javaText(text)).toBe(text);
    }
  });

  it('takes nothing but one [char] list as long as the content', () => {
    const { view, at, length } = content('12.5');
    const out: PlainDecimal = { at: 0, count: 0, digits: 0, scale: 0 };
    expect(plainDecimalAt(view, at, length + 2, out)).toBe(false);
    view.setUint32(at + 4, 1, true);
    expect(plainDecimalAt(view, at, length, out)).toBe(false);
  });
});

describe('DecimalShapes.notePlain', () => {
  it('learns what note learns of the same texts', () => {
    const byNote = new DecimalShapes();
    const byPlain = new DecimalShapes();
    for (const text of ['0', '-12.5', '123456.78', '-0.001', '42']) {
      byNote.note('t', text);
      const found = plain(text)!;
      byPlain.notePlain('t', found.digits, found.scale);
    }
    expect(byPlain.byType.get('t')).toEqual(byNote.byType.get('t'));
    byPlain.note('t', '1E+5');
    byPlain.notePlain('t', 3, 1);
    expect(byPlain.byType.get('t')?.bad).toBe(true);
  });
});
