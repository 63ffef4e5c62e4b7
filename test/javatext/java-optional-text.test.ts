/** Tests of `src/javatext/java-optional-text.ts` (`OptionalInt`/`OptionalLong`/`OptionalDouble` texts). */
import { describe, expect, it } from 'vitest';
import { javaOptionalText } from '../../src/javatext/java-optional-text.js';

describe('javaOptionalText', () => {
  it.each([
    ['OptionalInt', true, '42', 'OptionalInt[42]'],
    ['OptionalLong', true, '7', 'OptionalLong[7]'],
    ['OptionalDouble', true, '1.5', 'OptionalDouble[1.5]'],
    ['OptionalInt', false, '0', 'OptionalInt.empty'],
    ['OptionalLong', false, '0', 'OptionalLong.empty'],
    ['OptionalDouble', false, '0.0', 'OptionalDouble.empty'],
  ] as const)('%s present=%s value=%s -> %s', (kind, present, value, expected) => {
    expect(javaOptionalText(kind, present, value)).toBe(expected);
  });
});
