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

  it('tells a statement waiting for the build that the engine is closed when it is closed meanwhile', { timeout: 60_000 }, async () => {
    const temporary = mkdtempSync(join(tmpdir(), 'si-engine-close-'));
    const sandboxes = (): string[] => readdirSync(temporary).filter((n) => n.startsWith('storage-inspector-sql-'));
    const saved = process.env.TMPDIR;
    const storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    try {
      process.env.TMPDIR = temporary;
      const engine = new SqlEngine({ storage });
      const answer = engine.query('SELECT count(*) FROM _objects', { limit: 1 }).then(
        (a) => `answered ${String(a.rows[0]![0])}`,
        (error: unknown) => String(error),
      );
      // The build has begun (its private directory is made first): the statement waits for it.
      while (sandboxes().length === 0) await new Promise((resolve) => setImmediate(resolve));
      const closing = engine.close();
      // Its build was retired as it was installed and its sandbox closed: before, the statement
      // went on with it and failed with 'Failed to connect: instance closed' (or was interrupted
      // by the close and told 'INTERRUPT Error: Interrupted!' as if its SQL were wrong).
      expect(await answer).toBe('Error: the SQL engine is closed');
      await closing;
      expect(sandboxes()).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await storage.close();
      rmSync(temporary, { recursive: true, force: true });
    }
  });
});
