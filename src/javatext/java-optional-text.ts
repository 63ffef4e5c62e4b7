/**
 * Java `toString()` texts of `OptionalInt`, `OptionalLong` and `OptionalDouble`.
 *
 * The REST service renders these JDK value types as Java's `toString()` (rest-rendering.md
 * §10.4): `OptionalInt[42]` or `OptionalInt.empty`. The value's own text comes from the caller
 * (e.g. `java-float-text.ts` for `OptionalDouble`).
 */

/**
 * `OptionalInt` / `OptionalLong` / `OptionalDouble` `toString()`: `OptionalInt[42]` or
 * `OptionalInt.empty`. `valueText` is the value's Java text (for `OptionalDouble`
 * `Double.toString`, e.g. `1.5`); it is ignored when the optional is empty.
 */
export function javaOptionalText(
  kind: 'OptionalInt' | 'OptionalLong' | 'OptionalDouble',
  present: boolean,
  valueText: string,
): string {
  return present ? `${kind}[${valueText}]` : `${kind}.empty`;
}
