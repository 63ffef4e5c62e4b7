/**
 * Query string decoding as Jetty 9.4 does it for the Java service (`UrlEncoded.decodeUtf8To`):
 * `&`-separated, name and value split at the first `=`, `+` is a space, `%XX` are UTF-8 bytes.
 * A malformed escape or an invalid UTF-8 sequence fails the whole lookup (Java then answers 500),
 * except an incomplete sequence at the very end of a name or value, which becomes U+FFFD.
 */

export class QueryDecodeError extends Error {}

/** Parameter name → first value, in order of appearance. */
export type QueryParameters = ReadonlyMap<string, string>;

export function parseServletQuery(query: string): QueryParameters {
  const parameters = new Map<string, string>();
  if (query === '') return parameters;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const name = decodeComponent(eq < 0 ? part : part.slice(0, eq));
    const value = eq < 0 ? '' : decodeComponent(part.slice(eq + 1));
    if (!parameters.has(name)) parameters.set(name, value);
  }
  return parameters;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

function decodeComponent(text: string): string {
  if (!text.includes('%') && !text.includes('+')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x2b) {
      bytes.push(0x20);
    } else if (ch === 0x25) {
      const hex = text.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new QueryDecodeError(`malformed escape at "${text.slice(i, i + 3)}"`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      for (const b of Buffer.from(text[i] as string, 'utf8')) bytes.push(b);
    }
  }
  const all = Uint8Array.from(bytes);
  const tail = incompleteTailLength(all);
  try {
    return strictUtf8.decode(all.subarray(0, all.length - tail)) + (tail > 0 ? '\ufffd' : '');
  } catch {
    throw new QueryDecodeError('invalid UTF-8 in query string');
  }
}

/** Length of a UTF-8 sequence cut off by the end of the bytes (0 if the end is complete). */
function incompleteTailLength(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const b = bytes[bytes.length - back] as number;
    if ((b & 0xc0) === 0x80) continue; // continuation byte: keep looking for the lead
    const expected = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b < 0xe0 ? 2 : 1;
    return expected > back ? back : 0;
  }
  return 0;
}
