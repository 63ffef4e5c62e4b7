/**
 * Entity records in data files (storage-format.md §5.1): an 8-byte total length (header
 * included; negative = gap to skip), the type id and the object id, then the content.
 */
export const RECORD_HEADER_SIZE = 24;

export interface RecordHeader {
  /** Offset of the record in its file. */
  readonly offset: number;
  /** Total record length including the header. */
  readonly length: number;
  readonly typeId: bigint;
  readonly objectId: bigint;
}

/** What one step of a data file walk found at a position. */
export type RecordStep =
  | { readonly kind: 'record'; readonly length: number }
  | { readonly kind: 'gap'; readonly length: number }
  | { readonly kind: 'invalid'; readonly reason: string };

/** Interprets the 8-byte length field at `pos` (Java: `Zero length data item` for 0). */
export function recordStep(view: DataView, pos: number): RecordStep {
  const raw = view.getBigInt64(pos, true);
  if (raw === 0n) return { kind: 'invalid', reason: 'zero length data item' };
  if (raw > 0n) {
    if (raw < BigInt(RECORD_HEADER_SIZE)) return { kind: 'invalid', reason: `record length ${raw} is shorter than its header` };
    if (raw > BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'invalid', reason: `record length ${raw} is implausible` };
    return { kind: 'record', length: Number(raw) };
  }
  if (raw < -BigInt(Number.MAX_SAFE_INTEGER)) return { kind: 'invalid', reason: `gap length ${raw} is implausible` };
  if (-raw < 8n) return { kind: 'invalid', reason: `gap length ${-raw} is shorter than its length field` };
  return { kind: 'gap', length: Number(-raw) };
}
