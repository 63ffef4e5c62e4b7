import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffSnapshots, snapshotTree } from './snapshot.js';

/**
 * Vitest global setup: fingerprints the vendored storages (test/fixtures/conformance*, demo)
 * before the whole suite and fails the run if anything in them changed afterwards, whoever did it
 * (every test that opens them, including the golden replay, runs in between). Tests that need to
 * write must work on copies.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FIXTURES = join(ROOT, 'test', 'fixtures');
/** Every vendored corpus (each `conformance*` directory, so that a new one is guarded too) and the demo. */
const GUARDED = [
  ...readdirSync(FIXTURES, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name.startsWith('conformance'))
    .map((entry) => join(FIXTURES, entry.name))
    .sort(),
  join(ROOT, 'demo'),
];

export default function setup(): () => void {
  const before = GUARDED.map((dir) => snapshotTree(dir));
  return () => {
    const changes = GUARDED.flatMap((dir, i) => diffSnapshots(before[i]!, snapshotTree(dir)).map((c) => `${dir}: ${c}`));
    if (changes.length > 0) {
      // A throw here is only printed by vitest ("error during close"); the exit code makes it fail.
      process.exitCode = 1;
      throw new Error(`the test suite modified read-only fixtures (${changes.length} changes):\n${changes.slice(0, 20).join('\n')}`);
    }
  };
}
