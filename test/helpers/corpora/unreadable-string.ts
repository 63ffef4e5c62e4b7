import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeModelStorage } from '../../graph/model-storage.js';

/**
 * The model storage (test/graph/model-storage.ts) with one record unreadable: the String 'k'
 * (18 bytes of list: one UTF-16 char) made to claim 1,000 chars. Every reader of that record
 * reports it with file and offset ("java.lang.String … list value has 1000 elements") and reads
 * on: what a build with warnings is tested on.
 */
export function writeModelStorageWithUnreadableString(dir: string): void {
  writeModelStorage(dir);
  const k = Buffer.alloc(18);
  k.writeBigInt64LE(18n, 0);
  k.writeBigInt64LE(1n, 8);
  k.write('k', 16, 'utf16le');
  const files = readdirSync(dir)
    .filter((c) => c.startsWith('channel_'))
    .flatMap((c) => readdirSync(join(dir, c)).filter((n) => n.endsWith('.dat')).map((n) => join(dir, c, n)));
  const path = files.find((f) => readFileSync(f).includes(k));
  if (path === undefined) throw new Error(`the model storage in ${dir} holds no String 'k'`);
  const bytes = readFileSync(path);
  bytes.writeBigInt64LE(1000n, bytes.indexOf(k) + 8);
  writeFileSync(path, bytes);
}
