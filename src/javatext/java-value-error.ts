/**
 * The error the Java value texts throw where Java itself cannot rebuild a value.
 *
 * The MicroStream 4.1 REST service answers 500 when Java throws while rebuilding a JDK value
 * type from its stored form (e.g. `NumberFormatException` for a BigDecimal text, an invalid `Path`
 * URI). The `java-*-text` modules reproduce those failures by throwing this error.
 */

/** Thrown when Java itself would fail to rebuild the value (the service answers 500). */
export class JavaValueError extends Error {
  /** Stable error code; messages may change. */
  readonly code = 'FORMAT_JAVA_VALUE' as const;
  override readonly name = 'JavaValueError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
