/**
 * A store as the ordered list of file writes that make it up, so that a store can be written
 * completely or only up to a chosen byte (to produce the crash tails a reader must cope with).
 *
 * Order of the writes of one store:
 * 1. `dictionary`: the whole type dictionary file, if types were added;
 * 2. per channel whose head file is full (or missing): the creation log entry (`log`), then the
 *    new empty data file (`create`);
 * 3. per channel with records: the records appended to the head file (`data`);
 * 4. per channel: the store log entry (`log`).
 * A crash in step 4 leaves a store that reached only some channels (storage-format.md §6.5 step 3).
 */

export type PlannedWriteKind = 'dictionary' | 'create' | 'data' | 'log';

export interface PlannedWrite {
  readonly kind: PlannedWriteKind;
  /** Channel index; -1 for the dictionary. */
  readonly channel: number;
  readonly path: string;
  /** File offset of the first byte (the dictionary replaces its file, offset 0). */
  readonly position: number;
  readonly bytes: Uint8Array;
}

export interface ChannelHead {
  readonly headNumber: bigint;
  readonly headLength: number;
  readonly logLength: number;
  /** With chained SHA-256 chunk checksums: the last hash written in the channel (the next chunk's "previous"). */
  readonly chainTip?: Uint8Array;
}

export interface StorePlan {
  /** The store timestamp written to every channel's log. */
  readonly timestamp: bigint;
  readonly writes: readonly PlannedWrite[];
  readonly records: number;
  readonly dataBytes: number;
  /** Data files the store creates. */
  readonly createdFiles: number;
  /** Channel states after the complete store. */
  readonly channelsAfter: readonly ChannelHead[];
  readonly dictionaryRevision: number;
}

/**
 * Where to stop: all writes before `write` are done completely, write number `write` only with
 * its first `bytes` bytes, and nothing after it.
 */
export interface StoreCut {
  readonly write: number;
  readonly bytes: number;
}

/** Total bytes of all writes of a plan. */
export function planByteLength(plan: StorePlan): number {
  return plan.writes.reduce((n, w) => n + w.bytes.length, 0);
}

/**
 * The cut that stops after `bytes` bytes of the plan's writes in order (a `create` write counts
 * 0 bytes and is done once reached). Returns undefined when the plan has no more bytes than that.
 */
export function cutAfterBytes(plan: StorePlan, bytes: number): StoreCut | undefined {
  let left = bytes;
  for (let i = 0; i < plan.writes.length; i++) {
    const size = plan.writes[i]!.bytes.length;
    if (left < size) return { write: i, bytes: left };
    left -= size;
  }
  return undefined;
}

/**
 * The cut inside the `occurrence`-th write of a kind in a channel (e.g. the data of channel 1,
 * or its store log entry: the last `log` write of the channel), keeping `bytes` bytes of it.
 */
export function cutInside(
  plan: StorePlan,
  where: { readonly kind: PlannedWriteKind; readonly channel: number; readonly occurrence?: number | 'last' },
  bytes: number,
): StoreCut {
  const matches: number[] = [];
  plan.writes.forEach((w, i) => {
    if (w.kind === where.kind && w.channel === where.channel) matches.push(i);
  });
  const occurrence = where.occurrence ?? 0;
  const index = occurrence === 'last' ? matches[matches.length - 1] : matches[occurrence];
  if (index === undefined) throw new RangeError(`the plan has no ${where.kind} write #${String(occurrence)} in channel ${where.channel}`);
  const size = plan.writes[index]!.bytes.length;
  if (bytes < 0 || bytes > size) throw new RangeError(`cannot keep ${bytes} bytes of a ${size}-byte write`);
  return { write: index, bytes };
}
