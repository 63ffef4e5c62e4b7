import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * A fingerprint of a directory tree: every entry (files and directories) with its size and
 * modification time in nanoseconds, and a SHA-256 of every file's content. Two snapshots differ
 * when anything was written, created, removed, truncated or touched.
 */
export type TreeSnapshot = ReadonlyMap<string, string>;

export function snapshotTree(root: string): TreeSnapshot {
  const out = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const info = statSync(path, { bigint: true });
      const key = relative(root, path);
      if (info.isDirectory()) {
        out.set(`${key}/`, `dir mtime ${info.mtimeNs}`);
        visit(path);
      } else {
        const hash = createHash('sha256').update(readFileSync(path)).digest('hex');
        out.set(key, `size ${info.size} mtime ${info.mtimeNs} sha256 ${hash}`);
      }
    }
  };
  const top = statSync(root, { bigint: true });
  out.set('./', `dir mtime ${top.mtimeNs}`);
  visit(root);
  return out;
}

/** What changed between two snapshots, one line per entry (empty when identical). */
export function diffSnapshots(before: TreeSnapshot, after: TreeSnapshot): string[] {
  const changes: string[] = [];
  for (const [key, value] of before) {
    const now = after.get(key);
    if (now === undefined) changes.push(`removed ${key}`);
    else if (now !== value) changes.push(`changed ${key}: ${value} -> ${now}`);
  }
  for (const key of after.keys()) if (!before.has(key)) changes.push(`created ${key}`);
  return changes;
}
