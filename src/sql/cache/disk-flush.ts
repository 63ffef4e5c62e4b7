import { open } from 'node:fs/promises';

/** Written to the disk, not only to its cache (a file, or a directory's entries): an entry is whole once renamed (table-cache.ts). */
export async function flush(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
