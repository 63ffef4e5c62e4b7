import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { StorageError, UsageError } from '../errors.js';
import { makeDirectories } from '../writer/make-directories.js';

/**
 * `rescue` never leaves a partial storage at `--out`: it writes into a hidden directory beside the
 * target (same parent, so on the same file system) and renames it into place only when the
 * storage is complete. Interrupted (an error, a signal), the hidden directory is removed and
 * nothing is at `--out`. A storage found at `--out` is therefore always whole.
 */
export class TemporaryTarget {
  readonly path: string;
  private done = false;

  /** Refuses a target that is a file, or a directory that is not empty (usage errors); `command` names who writes (messages, the hidden name). */
  constructor(
    readonly target: string,
    private readonly command = 'rescue',
  ) {
    if (existsSync(target)) {
      if (!statSync(target).isDirectory()) throw new UsageError(`--out ${target} exists and is not a directory: ${command} writes only to a new or empty directory`);
      if (readdirSync(target).length > 0) throw new UsageError(`--out ${target} exists and is not empty: ${command} writes only to a new or empty directory`);
    }
    const parent = dirname(resolve(target));
    if (existsSync(parent) && !statSync(parent).isDirectory()) throw new UsageError(`--out ${target}: ${parent} is not a directory`);
    makeDirectories(parent);
    this.path = join(parent, `.${basename(resolve(target))}.${command}-${process.pid}-${randomBytes(4).toString('hex')}`);
  }

  /** Moves the complete storage to the target (an empty directory there is replaced). */
  commit(): void {
    if (existsSync(this.target) && readdirSync(this.target).length > 0) {
      throw new StorageError('STORAGE_IO', `--out ${this.target} was filled by someone else meanwhile; the ${this.command === 'rescue' ? 'rescued' : 'new'} storage is left at ${this.path}`);
    }
    renameSync(this.path, this.target);
    this.done = true;
  }

  /** Removes what was written (idempotent; safe from a signal handler). */
  discard(): void {
    if (this.done) return;
    this.done = true;
    rmSync(this.path, { recursive: true, force: true });
  }
}
