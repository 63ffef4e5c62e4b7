/** Helpers shared by the tests of the Java value texts (`src/javatext/java-*-text.ts`). */
import { expect } from 'vitest';
import { JavaValueError } from '../../../src/javatext/java-value-error.js';

/** Deterministic pseudo-random numbers (tests must not depend on Math.random). */
export function lcg(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** Expects `run` to throw a {@link JavaValueError}, as Java would throw there. */
export function expectJavaValueError(run: () => unknown): void {
  let caught: unknown;
  try {
    run();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(JavaValueError);
  expect((caught as JavaValueError).code).toBe('FORMAT_JAVA_VALUE');
}
