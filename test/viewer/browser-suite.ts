import { describe } from 'vitest';
import { browserSkipReason } from './browser.js';

/**
 * A describe block of browser tests. Where they cannot run (no chromium, outside CI) they are
 * skipped saying why, on the console and in the name of the skipped suite; in CI a missing
 * chromium fails them instead.
 */
export function describeInBrowser(title: string, body: () => void): void {
  const reason = browserSkipReason();
  if (reason === undefined) {
    describe(title, body);
    return;
  }
  console.warn(`SKIPPED ${title}: ${reason}`);
  describe.skip(`${title} (SKIPPED: ${reason})`, body);
}
