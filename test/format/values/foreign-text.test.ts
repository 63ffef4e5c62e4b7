import { describe, expect, it } from 'vitest';
import { FOREIGN_QUOTE_CHARS, quoteForeign } from '../../../src/format/foreign-text.js';

/**
 * Text read from a file, quoted in a message (issue 48: only a message's match was tested). What
 * it guards: nothing outside printable ASCII reaches a log, terminal or header unescaped, the
 * quote and the backslash are escaped so the quote cannot be closed early, and a long text is cut
 * at its limit with its length counted.
 */
describe('quoteForeign', () => {
  it('quotes printable ASCII as it is, from the space to the tilde', () => {
    expect(quoteForeign(' az~AZ09')).toBe('" az~AZ09"');
  });

  it('escapes the quote and the backslash, so the quoted text cannot end early', () => {
    expect(quoteForeign('a"b\\c')).toBe('"a\\"b\\\\c"');
  });

  it('escapes line breaks and tabs by their letters, other controls, DEL and non-ASCII by code', () => {
    expect(quoteForeign('\n\r\t')).toBe('"\\n\\r\\t"');
    expect(quoteForeign('\u0000\u001f\u007f')).toBe('"\\u0000\\u001f\\u007f"');
    expect(quoteForeign('é\uffff')).toBe('"\\u00e9\\uffff"');
    expect(quoteForeign('\u{1f600}')).toBe('"\\u{1f600}"');
  });

  it('shows a text of exactly the limit whole, and cuts one longer, counting its characters', () => {
    expect(quoteForeign('abcd', 4)).toBe('"abcd"');
    expect(quoteForeign('abcde', 4)).toBe('"abcd"… (5 characters)');
    const long = 'x'.repeat(FOREIGN_QUOTE_CHARS + 10);
    expect(quoteForeign(long)).toBe(`"${'x'.repeat(FOREIGN_QUOTE_CHARS)}"… (${FOREIGN_QUOTE_CHARS + 10} characters)`);
  });
});
