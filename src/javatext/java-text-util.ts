/**
 * Tiny text helpers shared by the Java value text modules (`java-*-text.ts`,
 * `java-time-zones.ts`).
 *
 * They reproduce small details of Java's own formatting: two-digit fields of dates and zone
 * offsets, and the locale-independent ASCII case mapping Java uses for identifiers.
 */

/** Two decimal digits, zero-padded (`5` → `05`); larger numbers are printed in full. */
export function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/**
 * ASCII-only lower-case mapping, like `sun.util.locale.LocaleUtils.toLowerString` (Java's
 * locale-independent case handling of language tags and URI schemes); other characters stay.
 */
export const lower = (s: string): string => s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
