import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';
import { errorCode } from '../../src/http/java/java-answers.js';
import { QueryDecodeError } from '../../src/http/java/servlet-query.js';
import { requestTimedOut, responseTooLarge, shuttingDown } from '../../src/http/guard/limits.js';
import { JavaValueError } from '../../src/javatext/java-value-error.js';

/**
 * The error codes have one source, src/errors.ts's ERROR_CODES (the `ErrorCode` union is made
 * from it, and the server's `errorCode` answers only its members); docs/errors.md's table of
 * codes lists exactly these, and the other sections of the page name no code that is not one.
 */
const PAGE = readFileSync('docs/errors.md', 'utf8');

/** The `## heading` section of the page, up to the next `## `. */
function section(heading: string): string {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no section "${heading}"`);
  const end = PAGE.indexOf('\n## ', start + 1);
  return PAGE.slice(start, end < 0 ? undefined : end);
}

/** The first column of every table row of a section: `| \`CODE\` | …`. */
function tableCodes(text: string): string[] {
  return [...text.matchAll(/^\| `([A-Z][A-Z_]+)` \|/gm)].map((m) => m[1]!);
}

describe('docs/errors.md and ERROR_CODES', () => {
  it('the table of codes lists every code once, and no other', () => {
    const listed = tableCodes(section('Codes'));
    expect(listed.length).toBe(new Set(listed).size);
    expect([...listed].sort()).toEqual([...ERROR_CODES].sort());
  });

  // Codes there have an underscore; `HEAD`, `OPTIONS`, `CONNECT` are methods.
  it('the statuses Java does not send and the 500s Java answers too name only codes of the list', () => {
    const named = [section('Status codes that Java does not send'), section('The 500s Java answers too')].flatMap((text) =>
      [...text.matchAll(/`([A-Z]+(?:_[A-Z]+)+)`/g)].map((m) => m[1]!),
    );
    // The sections do name codes (RESPONSE_TOO_LARGE, QUERY_DECODE ...): the check has something to check.
    expect(named).toEqual(expect.arrayContaining(['RESPONSE_TOO_LARGE', 'REQUEST_TIMEOUT', 'TOO_MANY_CONNECTIONS', 'QUERY_DECODE', 'FORMAT_JAVA_VALUE']));
    expect(named.filter((code) => !(ERROR_CODES as readonly string[]).includes(code))).toEqual([]);
  });

  it('the codes the server reports for failures that are not AppErrors are in the list', () => {
    const codes = [
      errorCode(new QueryDecodeError('invalid UTF-8 in query string')),
      errorCode(responseTooLarge(1024)),
      errorCode(requestTimedOut(1000)),
      errorCode(shuttingDown()),
      errorCode(new JavaValueError('NaN')),
      errorCode(Object.assign(new Error('read failed'), { code: 'EIO' })),
      errorCode(new Error('a bug')),
    ];
    expect(codes).toEqual(['QUERY_DECODE', 'RESPONSE_TOO_LARGE', 'REQUEST_TIMEOUT', 'SHUTTING_DOWN', 'FORMAT_JAVA_VALUE', 'STORAGE_IO', 'INTERNAL']);
    expect(codes.filter((code) => !ERROR_CODES.includes(code))).toEqual([]);
  });
});
