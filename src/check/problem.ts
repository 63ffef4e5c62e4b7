/**
 * One finding of `check`: how bad it is, where it is, what MicroStream 4.1 would say about it, what
 * it means, and what `rescue` does about it.
 */

/**
 * - `refuses-start`: MicroStream 4.1 would not start on the directory (an exception at startup, or a
 *   hang);
 * - `data-lost`: it starts, but data is lost or cannot be read (unreadable records, bytes it
 *   discards, objects it cannot find);
 * - `harmless`: something it ignores or repairs without losing anything.
 */
export type Severity = 'refuses-start' | 'data-lost' | 'harmless';

export const SEVERITIES: readonly Severity[] = ['refuses-start', 'data-lost', 'harmless'];

/** What MicroStream would throw (fully qualified class name) and the message it gives. */
export interface JavaFailure {
  readonly exception: string;
  readonly message: string;
}

export interface Problem {
  /** Stable identifier of the kind of problem (docs/diagnosing-and-rescuing.md lists them). */
  readonly code: string;
  readonly severity: Severity;
  /** The file the problem is in (a path below the storage directory as given), if one. */
  readonly file?: string | undefined;
  readonly offset?: number | undefined;
  /** What MicroStream would say, where it refuses or fails. */
  readonly java?: JavaFailure | undefined;
  /** What it means, in plain words. */
  readonly meaning: string;
  /** What `rescue` does about it. */
  readonly rescue: string;
  /** How many objects (or references) the problem covers, when it stands for several. */
  readonly count?: number | undefined;
  /** The objects whose records lie in a damaged chunk (chunk checksums), when the problem names them. */
  readonly objects?: readonly { readonly objectId: string; readonly typeName: string }[] | undefined;
  /** Committed bytes of `file` that are gone (a missing file, a file cut short). */
  readonly missingBytes?: { readonly from: number; readonly to: number } | undefined;
}

export const STORAGE_EXCEPTION = 'one.microstream.storage.exceptions.StorageException';

/** Whether data is unreadable or MicroStream would refuse: `check` then exits with 1. */
export function isSerious(problem: Problem): boolean {
  if (problem.severity === 'refuses-start') return true;
  // A reference behind a Lazy to an object that is not there loses data, but nothing in the
  // directory is unreadable: MicroStream starts (and fails when that Lazy is loaded).
  return problem.severity === 'data-lost' && problem.code !== 'MISSING_REFERENCE_TARGET';
}
