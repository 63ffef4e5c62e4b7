import { statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { FileState } from './channel-state.js';
import { twinIdentity, type TwinPrefix } from './index/twin-prefix.js';

/**
 * What a storage's first load found comparing its data files with a copy's (`OpenOptions.
 * compareTwin`, index/twin-prefix.ts), for the copy's opening on it as its basis (basis-open.ts):
 * a file of the copy counts as beginning with this storage's file only where the whole indexed
 * range was found equal and it is still the very file that was compared, unchanged since (device,
 * inode, size and status change time: `twinIdentity`).
 */
export class TwinPrefixes {
  private readonly found = new Map<string, TwinPrefix>();

  constructor(
    private readonly directory: string,
    private readonly twinDirectory: string,
  ) {}

  /** The twin of one of this storage's files: the same place below the copy's directory. */
  pathOf(path: string): string {
    return join(this.twinDirectory, relative(this.directory, path));
  }

  note(file: FileState, twin: TwinPrefix | undefined): void {
    if (twin === undefined) this.found.delete(file.path);
    else this.found.set(file.path, twin);
  }

  /**
   * For the copy in `directory` (undefined when this storage was compared with another one, or
   * none): whether its file `b` begins with the `length` bytes of this storage's file `a`.
   */
  comparedWith(directory: string): ((pair: { readonly a: string; readonly b: string; readonly length: number }) => boolean) | undefined {
    if (resolve(directory) !== resolve(this.twinDirectory)) return undefined;
    return (pair) => {
      const twin = this.found.get(pair.a);
      if (twin === undefined || twin.equalTo < pair.length) return false;
      try {
        const stat = statSync(pair.b, { bigint: true });
        return twinIdentity(stat) === twin.file;
      } catch {
        return false;
      }
    };
  }
}
