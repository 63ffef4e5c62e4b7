import type { SeenProblem } from './follow-problems.js';
import type { ChannelState } from './channel-state.js';
import type { ShortFile } from './storage-types.js';
import type { ValidStorage } from './valid-lengths.js';

/**
 * What an opened storage tells its operator: problems tolerated so far (each once), the data files
 * found shorter than their log commits, and the damaged files as lasting conditions.
 */
export class StorageWarnings {
  readonly warnings: string[] = [];
  readonly shortFiles: ShortFile[] = [];
  private readonly seen = new Set<string>();

  warn(message: string): void {
    if (this.seen.has(message)) return;
    this.seen.add(message);
    this.warnings.push(message);
  }

  /** Like `warn`, each once: the files `resolveValidLengths` warned about as shorter than committed. */
  noteShortFiles(valid: ValidStorage): void {
    for (const channel of valid.channels) {
      for (const file of channel.files) {
        if (file.committedLength === undefined || file.size >= file.committedLength) continue;
        if (this.shortFiles.some((s) => s.path === file.path && s.onDisk === file.size && s.committed === file.committedLength)) continue;
        this.shortFiles.push({ path: file.path, onDisk: file.size, committed: file.committedLength });
      }
    }
  }
}

/** The files whose walk stopped at damage, as conditions that last until the file is repaired. */
export function damagedFiles(channels: readonly ChannelState[]): SeenProblem[] {
  const damaged: SeenProblem[] = [];
  for (const channel of channels) {
    for (const file of channel.files) {
      if (file.problem === undefined) continue;
      damaged.push({
        key: `FORMAT_BAD_RECORD:${file.path}`,
        code: 'FORMAT_BAD_RECORD',
        message: `${file.path}: offset ${file.problem.offset}: ${file.problem.message}; the rest of this file is not indexed`,
      });
    }
  }
  return damaged;
}
