/**
 * JSON text as Jackson writes it (Javalin's JSON mapper, Micronaut's serialization, Spring Boot):
 * unlike Gson, no HTML escaping, controls escaped with upper-case hex, and numbers as numbers.
 */

const NEEDS_ESCAPE = /["\\\u0000-\u001f]/;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\f': '\\f',
  '\r': '\\r',
};

/** A JSON string literal with Jackson's escaping (`"`, `\`, and controls; everything else as it is). */
export function jacksonString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return `"${value}"`;
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (!NEEDS_ESCAPE.test(ch)) out += ch;
    else out += SHORT_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  }
  return `${out}"`;
}
