import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqlEngine } from '../../src/sql/sql-engine.js';
import { Storage } from '../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * `SqlEngine.close()` resolves once the tables' private directory (storage-inspector-sql-* under
 * TMPDIR, with the database file) is removed. Closed right after the build, the build's last step
 * (the big numbers moved into `_values`) is still under way, and the directory is removed only
 * after it: a process ending by a signal's default action meanwhile (a test runner's worker is
 * stopped with SIGTERM once its file has run) skipped the 'exit' event that removes it, and the
 * directory stayed. Whoever ends soon after closing awaits `close()`.
 */

describe('SqlEngine.close', () => {
  it('resolves once the private directory is removed, also when closed while the build is finishing', async () => {
    const temporary = mkdtempSync(join(tmpdir(), 'si-engine-close-'));
    const sandboxes = (): string[] => readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'));
    const saved = process.env.TMPDIR;
    const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    try {
      process.env.TMPDIR = temporary;
      const engine = new SqlEngine({ storage });
      const { tables } = await engine.schema();
      expect(tables.map((t) => t.name)).toContain('conformance.bookstore.Book');
      expect(sandboxes()).toHaveLength(1);
      await engine.close();
      expect(sandboxes()).toEqual([]);
      // Closed already: resolves at once.
      await engine.close();
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await storage.close();
      rmSync(temporary, { recursive: true, force: true });
    }
  });
});
