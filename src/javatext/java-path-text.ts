/**
 * Java `Path.toString()` of `Paths.get(URI.create(uri))`, rebuilt from the stored file URI.
 *
 * MicroStream stores a `java.nio.file.Path` as `Path.toUri().toString()`; the REST service renders
 * the `toString()` of the path Java rebuilds from it (rest-rendering.md §10.4). This module
 * reproduces, for a Unix JVM with UTF-8 file names, Java 17's URI checks (`URI.create`), the two
 * ways a `file:` URI becomes a path, and Java's UTF-8 decoding with its exact replacement of
 * malformed bytes. Where Java throws it throws {@link JavaValueError}. Pure: only ECMAScript
 * built-ins.
 */

import { lower } from './java-text-util.js';
import { JavaValueError } from './java-value-error.js';

/**
 * Java `Path.toString()` of `Paths.get(URI.create(uri))` on a Unix JVM (the stored form is
 * `Path.toUri().toString()`).
 *
 * - URIs starting with exactly `file:///` (`UnixUriUtils.fromUri`): one trailing slash is removed
 *   (not from the root), `%XX` escapes become bytes, repeated slashes (also `%2F`) are collapsed:
 *   `file:///tmp/p` → `/tmp/p`, `file:///tmp/dir/` → `/tmp/dir`, `file:///a//b//` → `/a/b/`
 *   (like Java: the second trailing slash survives). `.`/`..` stay.
 * - Other `file:` URIs (`file:/tmp/p`, `FILE:///x`) go through `new File(uri).toPath()`: the
 *   decoded path with repeated and trailing slashes removed.
 * - The bytes are decoded as UTF-8 with Java's replacement of malformed input by U+FFFD (this
 *   assumes the JVM's `sun.jnu.encoding` is UTF-8, as with a UTF-8 locale).
 *
 * Throws {@link JavaValueError} where Java throws (the service answers 500): text `URI.create`
 * rejects (a space, `%` without two hex digits, `[`, `|`, controls, …), a relative or opaque URI,
 * a scheme other than `file`, an authority (`file://host/x`), a query, a fragment, a NUL byte
 * (`%00`), a raw non-ASCII character in a `file:///` URI, or a lone surrogate.
 */
export function javaPathFromUri(uri: string): string {
  const fail = (reason: string): never => {
    throw new JavaValueError(`cannot make a Path of URI ${JSON.stringify(uri)}: ${reason}`);
  };
  // URI.Parser: scheme ":" then hierarchical part (starts with "/") or opaque part.
  const colon = uri.search(/[:/?#]/);
  if (colon < 0 || uri[colon] !== ':') fail('URI is not absolute');
  const scheme = uri.slice(0, colon);
  if (!/^[A-Za-z][A-Za-z0-9+.-]*$/.test(scheme)) fail('illegal scheme');
  const rest = uri.slice(colon + 1);
  if (!rest.startsWith('/')) fail('URI is not hierarchical'); // or not even a valid opaque URI
  let path = rest;
  if (rest.startsWith('//')) {
    const authorityEnd = rest.slice(2).search(/[/?#]/);
    if (authorityEnd < 0) fail('expected authority');
    if (authorityEnd > 0) fail('URI has an authority component');
    path = rest.slice(2);
  }
  const queryOrFragment = path.search(/[?#]/);
  if (queryOrFragment >= 0) fail('URI has a query or fragment component');
  checkUriChars(path, fail);
  if (lower(scheme) !== 'file') fail('URI scheme is not "file"');

  if (!uri.startsWith('file:///')) {
    // new File(uri).toPath(): decoded path, UnixFileSystem.normalize, UnixPath.normalizeAndCheck.
    const decoded = decodeUriPath(path);
    if (decoded.includes('\u0000')) fail('Nul character not allowed');
    if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(decoded)) {
      fail('Malformed input or input contains unmappable characters');
    }
    const normalized = decoded.replace(/\/{2,}/g, '/');
    return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
  }
  // UnixUriUtils.fromUri: raw path to bytes, one trailing slash removed first, then redundant
  // slashes (also escaped ones, %2F) skipped.
  const raw = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    let b: number;
    if (c === 0x25 /* % */) {
      b = parseInt(raw.slice(i + 1, i + 3), 16);
      if (b === 0) fail('Nul character not allowed');
      i += 2;
    } else {
      if (c === 0 || c >= 0x80) fail('Bad escape');
      b = c;
    }
    if (b === 0x2f && bytes[bytes.length - 1] === 0x2f) continue;
    bytes.push(b);
  }
  return decodeUtf8Java(bytes);
}

/** Java `URI.Parser.checkChars` for path (and opaque) characters. */
function checkUriChars(text: string, fail: (reason: string) => never): void {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x25) {
      if (!/^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) fail(`malformed escape pair at path index ${i}`);
      i += 2;
    } else if (c < 0x80) {
      if (!/[A-Za-z0-9\-_.!~*'():@&=+$,;/]/.test(text[i] ?? '')) fail(`illegal character at path index ${i}`);
    } else if (c === 0x80 || isJavaSpaceChar(c) || (c >= 0x7f && c <= 0x9f)) {
      fail(`illegal character at path index ${i}`);
    }
  }
}

/** Java `Character.isSpaceChar` (Unicode Zs, Zl, Zp) for a UTF-16 code unit. */
function isJavaSpaceChar(c: number): boolean {
  return /^[\p{Zs}\p{Zl}\p{Zp}]$/u.test(String.fromCharCode(c));
}

/** Java `URI.decode`: each run of `%XX` escapes is decoded as UTF-8 with replacement. */
function decodeUriPath(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes: number[] = [];
    for (let i = 0; i < run.length; i += 3) bytes.push(parseInt(run.slice(i + 1, i + 3), 16));
    return decodeUtf8Java(bytes);
  });
}

/** Java 17 `new String(bytes, UTF_8)`: malformed input replaced with U+FFFD exactly like Java. */
function decodeUtf8Java(src: readonly number[]): string {
  const REPL = 0xfffd;
  const out: number[] = [];
  const at = (i: number): number => src[i] ?? 0;
  const notContinuation = (b: number): boolean => (b & 0xc0) !== 0x80;
  const sl = src.length;
  let sp = 0;
  while (sp < sl) {
    const b1 = at(sp++);
    if (b1 < 0x80) {
      out.push(b1);
    } else if (b1 >= 0xc2 && b1 <= 0xdf) {
      if (sp < sl) {
        const b2 = at(sp++);
        if (notContinuation(b2)) {
          out.push(REPL);
          sp--;
        } else {
          out.push(((b1 & 0x1f) << 6) | (b2 & 0x3f));
        }
        continue;
      }
      out.push(REPL);
      break;
    } else if (b1 >= 0xe0 && b1 <= 0xef) {
      const malformed32 = (b2: number): boolean => (b1 === 0xe0 && (b2 & 0xe0) === 0x80) || notContinuation(b2);
      if (sp + 1 < sl) {
        const b2 = at(sp++);
        const b3 = at(sp++);
        if (malformed32(b2) || notContinuation(b3)) {
          out.push(REPL);
          sp -= 3;
          sp += malformed32(at(sp + 1)) ? 1 : 2;
        } else {
          const c = ((b1 & 0x0f) << 12) | ((b2 & 0x3f) << 6) | (b3 & 0x3f);
          out.push(c >= 0xd800 && c <= 0xdfff ? REPL : c);
        }
        continue;
      }
      if (sp < sl && malformed32(at(sp))) {
        out.push(REPL);
        continue;
      }
      out.push(REPL);
      break;
    } else if (b1 >= 0xf0 && b1 <= 0xf7) {
      if (sp + 2 < sl) {
        const b2 = at(sp++);
        const b3 = at(sp++);
        const b4 = at(sp++);
        const uc = ((b1 & 0x07) << 18) | ((b2 & 0x3f) << 12) | ((b3 & 0x3f) << 6) | (b4 & 0x3f);
        if (notContinuation(b2) || notContinuation(b3) || notContinuation(b4) || uc < 0x10000 || uc > 0x10ffff) {
          out.push(REPL);
          sp -= 4;
          // malformed4
          const m2 = at(sp + 1);
          if (b1 > 0xf4 || (b1 === 0xf0 && (m2 < 0x90 || m2 > 0xbf)) || (b1 === 0xf4 && (m2 & 0xf0) !== 0x80) || notContinuation(m2)) {
            sp += 1;
          } else if (notContinuation(at(sp + 2))) {
            sp += 2;
          } else {
            sp += 3;
          }
        } else {
          out.push(0xd800 + ((uc - 0x10000) >> 10), 0xdc00 + ((uc - 0x10000) & 0x3ff));
        }
        continue;
      }
      const b2 = at(sp);
      if (b1 > 0xf4 || (sp < sl && ((b1 === 0xf0 && (b2 < 0x90 || b2 > 0xbf)) || (b1 === 0xf4 && (b2 & 0xf0) !== 0x80) || notContinuation(b2)))) {
        out.push(REPL);
        continue;
      }
      sp++;
      out.push(REPL);
      if (sp < sl && notContinuation(at(sp))) continue;
      break;
    } else {
      out.push(REPL);
    }
  }
  let s = '';
  for (let i = 0; i < out.length; i += 8192) s += String.fromCharCode(...out.slice(i, i + 8192));
  return s;
}
