import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every data file of a storage directory with its bytes, keyed `channel_N/channel_N_M.dat` in
 * name order: two storages written two ways compare as equal maps when their files are the same.
 */
export function dataFileBytes(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const channel of readdirSync(dir).filter((n) => n.startsWith('channel_')).sort()) {
    for (const name of readdirSync(join(dir, channel)).sort()) {
      if (name.endsWith('.dat')) files.set(`${channel}/${name}`, readFileSync(join(dir, channel, name)));
    }
  }
  return files;
}
