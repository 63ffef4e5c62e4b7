/**
 * Quoting text read from a file in messages. A message may reach a log, a terminal or an HTTP
 * header; the file may not be what it claims (a link to /etc/passwd named like a type
 * dictionary). So at most a few characters are quoted, with everything outside printable ASCII
 * escaped, and the rest is only counted.
 */

export const FOREIGN_QUOTE_CHARS = 24;

export function quoteForeign(text: string, max: number = FOREIGN_QUOTE_CHARS): string {
  const shown = [...text.slice(0, max)].map(escapeChar).join('');
  return text.length <= max ? `"${shown}"` : `"${shown}"… (${text.length} characters)`;
}

function escapeChar(ch: string): string {
  const code = ch.codePointAt(0) ?? 0;
  if (ch === '"' || ch === '\\') return `\\${ch}`;
  if (code >= 0x20 && code < 0x7f) return ch;
  if (ch === '\n') return '\\n';
  if (ch === '\r') return '\\r';
  if (ch === '\t') return '\\t';
  return code <= 0xffff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\u{${code.toString(16)}}`;
}
