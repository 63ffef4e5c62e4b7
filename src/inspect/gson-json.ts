/**
 * JSON text exactly as the Java service's Gson (2.8.6) writes it, and the bytes Java sends.
 */

const HTML_SAFE = /["\\\u0000-\u001f<>&='\u2028\u2029]/;
const PLAIN = /["\\\u0000-\u001f\u2028\u2029]/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

function escapeChar(ch: string): string {
  return SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * A JSON string literal with Gson's escaping: short escapes, other controls as lower-case
 * `\u00xx`, U+2028/U+2029, and (HTML-safe mode, Gson's default) `< > & = '`. Everything else,
 * including DEL, non-ASCII and lone surrogates, is written as it is.
 */
export function gsonString(value: string, htmlSafe = true): string {
  const pattern = htmlSafe ? HTML_SAFE : PLAIN;
  if (!pattern.test(value)) return `"${value}"`;
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    out += pattern.test(ch) ? escapeChar(ch) : ch;
  }
  return `${out}"`;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Java's `String.getBytes(UTF_8)`: like Node's UTF-8 encoder, except that an unpaired surrogate
 * becomes a single `?` (0x3F) rather than U+FFFD.
 */
export function javaUtf8(text: string): Buffer {
  const wellFormed = text.isWellFormed();
  return Buffer.from(wellFormed ? text : text.replace(LONE_SURROGATE, '?'), 'utf8');
}
