import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

let copies = 0;

/**
 * A fresh copy of the storage directory `source`, for a test that changes it: in `parent` as
 * `<name>-<n>` (n counts the copies of this process), or without a parent in a new temporary
 * directory. The caller removes it (or its parent).
 */
export function copyStorage(source: string, parent?: string): string {
  const dir = parent === undefined ? mkdtempSync(join(tmpdir(), `si-${basename(source)}-`)) : join(parent, `${basename(source)}-${++copies}`);
  cpSync(source, dir, { recursive: true });
  return dir;
}
