import { charsText, layoutEntity, primitiveText } from '../format/entity-layout.js';
import type { FieldDescriptor, TypeEntry } from '../format/type-dictionary.js';
import type { GraphSource } from './graph-build.js';
import { walkRecordBytes } from './record-walk.js';

/**
 * Objects whose text or primitive value contains a query (case-insensitive): one sequential pass
 * over the latest records, optionally of some types only, stopped by a deadline or a result
 * limit. Texts are `[char]` members (strings, BigDecimals, ...) and `[list]` members of single
 * `[char]` elements; primitive values are compared in their Java text. The scan reads the files
 * as they are while it runs (a commit meanwhile may or may not be seen).
 */

export interface SearchOptions {
  readonly query: string;
  /** Only records of these type ids (all when undefined). */
  readonly typeIds?: ReadonlySet<bigint>;
  readonly limit: number;
  /** Epoch milliseconds after which the scan stops. */
  readonly deadline: number;
}

export interface SearchHit {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly member: string;
  /** The matching value, cut to about 80 characters around the match. */
  readonly text: string;
}

export interface SearchOutcome {
  readonly hits: readonly SearchHit[];
  readonly stoppedBy: 'limit' | 'time' | undefined;
  readonly scannedBytes: number;
  readonly totalBytes: number;
}

class StopScan extends Error {}

const SNIPPET = 80;

export async function searchText(source: Pick<GraphSource, 'channels' | 'dictionary' | 'source'>, options: SearchOptions): Promise<SearchOutcome> {
  const needle = options.query.toLowerCase();
  const hits: SearchHit[] = [];
  const searchable = new Map<bigint, TypeEntry | null>();
  const entryFor = (typeId: bigint): TypeEntry | null => {
    let entry = searchable.get(typeId);
    if (entry === undefined) {
      const found = source.dictionary.byId.get(typeId);
      entry = found !== undefined && (options.typeIds === undefined || options.typeIds.has(typeId)) && found.fields.some(isSearchable) ? found : null;
      searchable.set(typeId, entry);
    }
    return entry;
  };
  const files = source.channels.flatMap((channel) => channel.files.map((file) => ({ channel, file })));
  const totalBytes = files.reduce((n, f) => n + f.file.totalLength, 0);
  let scannedBytes = 0;
  let stoppedBy: SearchOutcome['stoppedBy'];
  try {
    for (const { channel, file } of files) {
      await walkRecordBytes(
        source.source.chunks(file.path, 0, file.totalLength),
        file.totalLength,
        (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
          const entry = entryFor((BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0));
          if (entry === null || !channel.objects.isLatest(idLow, idHigh, file.slot, offset)) return;
          const content = new Uint8Array(view.buffer, view.byteOffset + at + 24, length - 24);
          const match = matchEntity(entry, content, needle);
          if (match === undefined) return;
          hits.push({ objectId: (BigInt(idHigh) << 32n) | BigInt(idLow >>> 0), typeId: entry.typeId, ...match });
          if (hits.length >= options.limit) throw new StopScan('limit');
        },
        async () => {
          if (Date.now() > options.deadline) throw new StopScan('time');
          await new Promise((resolve) => setImmediate(resolve));
        },
      );
      scannedBytes += file.totalLength;
    }
  } catch (error) {
    if (!(error instanceof StopScan)) throw error;
    stoppedBy = error.message === 'limit' ? 'limit' : 'time';
  }
  return { hits, stoppedBy, scannedBytes, totalBytes };
}

function isSearchable(field: FieldDescriptor): boolean {
  return field.kind === 'primitive' || field.kind === 'chars' || (field.kind === 'list' && field.elements.length === 1 && field.elements[0]!.kind === 'chars');
}

function matchEntity(entry: TypeEntry, content: Uint8Array, needle: string): { member: string; text: string } | undefined {
  let layout;
  try {
    layout = layoutEntity(entry, content);
  } catch {
    return undefined; // damaged records are reported elsewhere; nothing to search in them
  }
  const view = layout.view;
  for (const slot of layout.slots) {
    const field = slot.field;
    if (!slot.variable) {
      if (field.kind !== 'primitive') continue;
      const text = primitiveText(field.typeName, view, slot.offset);
      if (text.toLowerCase().includes(needle)) return { member: field.name, text };
    } else if (field.kind === 'chars') {
      const text = charsText(view, slot.elementsOffset, slot.count);
      const at = text.toLowerCase().indexOf(needle);
      if (at >= 0) return { member: field.name, text: snippet(text, at, needle.length) };
    } else if (isSearchable(field)) {
      let pos = slot.elementsOffset;
      for (let i = 0; i < slot.count && pos + 16 <= slot.end; i++) {
        const total = Number(view.getBigInt64(pos, true));
        const count = Number(view.getBigInt64(pos + 8, true));
        if (total < 16 || pos + total > slot.end) break;
        const text = charsText(view, pos + 16, Math.min(count, (total - 16) / 2));
        const at = text.toLowerCase().indexOf(needle);
        if (at >= 0) return { member: `${field.name}[${i}]`, text: snippet(text, at, needle.length) };
        pos += total;
      }
    }
  }
  return undefined;
}

function snippet(text: string, at: number, length: number): string {
  if (text.length <= SNIPPET) return text;
  const start = Math.max(0, Math.min(at - Math.floor((SNIPPET - length) / 2), text.length - SNIPPET));
  return `${start > 0 ? '…' : ''}${text.slice(start, start + SNIPPET)}${start + SNIPPET < text.length ? '…' : ''}`;
}
