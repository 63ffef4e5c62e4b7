import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The commands the tests run keep their SQL tables between runs (sql/cache/table-cache.ts) in the
 * user's cache directory: for the test run, a new one of its own (XDG_CACHE_HOME, inherited by
 * the test workers and the commands they start), removed afterwards. The home directory's cache
 * is never read or written by a test.
 */
export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), 'storage-inspector-test-cache-'));
  const before = process.env.XDG_CACHE_HOME;
  process.env.XDG_CACHE_HOME = home;
  return () => {
    if (before === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = before;
    rmSync(home, { recursive: true, force: true });
  };
}
