/** Tests of `src/javatext/java-value-error.ts`. */
import { describe, expect, it } from 'vitest';
import { JavaValueError } from '../../src/javatext/java-value-error.js';

describe('JavaValueError', () => {
  it('is an Error with a stable code', () => {
    const error = new JavaValueError('boom', { cause: 'x' });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('JavaValueError');
    expect(error.code).toBe('FORMAT_JAVA_VALUE');
    expect(error.message).toBe('boom');
    expect(error.cause).toBe('x');
  });
});
