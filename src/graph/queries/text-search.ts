import { charsText, layoutEntity, primitiveText, type EntityLayout } from '../../format/entity-layout.js';
import { UTC } from '../../javatext/java-time-zones.js';
import type { FieldDescriptor, TypeEntry } from '../../format/type-dictionary.js';
import { simplifiedRenderer, type Renderer } from '../../inspect/simplified-value.js';
import type { GraphSource } from '../build/graph-build.js';
import { walkRecordBytes } from '../../storage/records/record-walk.js';

/**
 * Objects whose text or primitive value contains a query (case-insensitive): one sequential pass
 * over the latest records, optionally of some types only, stopped by a deadline or a result
 * limit. Texts are `[char]` members (strings, BigDecimals, ...) and `[list]` members of single
 * `[char]` elements; primitive values are compared in their Java text. Objects of JDK value types
 * (String, Integer, BigDecimal, Date...) are compared as their Java text as a whole (dates also as
 * ISO-8601), and such a hit is a value object (its owners are for the caller to find). The scan
 * reads the files as they are while it runs (a commit meanwhile may or may not be seen).
 */

export interface SearchOptions {
  readonly query: string;
  /** Only records of these type ids (all when undefined). */
  readonly typeIds?: ReadonlySet<bigint>;
  readonly limit: number;
  /** Epoch milliseconds after which the scan stops. */
  readonly deadline: number;
  /** Aborted: the scan stops at its next pause (the client went away). */
  readonly signal?: AbortSignal | undefined;
  /**
   * The result rows of a hit (e.g. its owners in place of a value object), none to drop it; the
   * limit counts rows. Without it each hit is one row.
   */
  readonly expand?: (hit: SearchHit) => readonly SearchHit[];
}

export type SearchValue = string | number | boolean;

export interface SearchHit {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly member: string;
  /** The matching value, cut to about 80 characters around the match. */
  readonly text: string;
  /** The matching value typed (numbers, booleans, ISO dates, texts up to 1,000 characters). */
  readonly value: SearchValue;
  /** The hit is an object of a JDK value type as a whole (`member` is then empty). */
  readonly valueObject: boolean;
  /** Set by `expand` when the row is the owner of the value object that matched. */
  readonly valueObjectId?: bigint;
  readonly valueTypeId?: bigint;
}

export interface SearchOutcome {
  readonly hits: readonly SearchHit[];
  readonly stoppedBy: 'limit' | 'time' | 'cancelled' | undefined;
  readonly scannedBytes: number;
  readonly totalBytes: number;
}

class StopScan extends Error {}

const SNIPPET = 80;

export async function searchText(source: Pick<GraphSource, 'channels' | 'dictionary' | 'source'>, options: SearchOptions): Promise<SearchOutcome> {
  const needle = options.query.toLowerCase();
  const hits: SearchHit[] = [];
  const searchable = new Map<bigint, Searchable | null>();
  const entryFor = (typeId: bigint): Searchable | null => {
    let entry = searchable.get(typeId);
    if (entry === undefined) {
      const found = source.dictionary.byId.get(typeId);
      const renderer = found === undefined ? undefined : simplifiedRenderer(found, source.dictionary);
      entry =
        found !== undefined && (options.typeIds === undefined || options.typeIds.has(typeId)) && (renderer !== undefined || found.fields.some(isSearchable))
          ? { entry: found, renderer }
          : null;
      searchable.set(typeId, entry);
    }
    return entry;
  };
  const rows: SearchHit[] = hits;
  const files = source.channels.flatMap((channel) => channel.files.map((file) => ({ channel, file })));
  const totalBytes = files.reduce((n, f) => n + f.file.totalLength, 0);
  let scannedBytes = 0;
  let reached = 0;
  let stoppedBy: SearchOutcome['stoppedBy'];
  try {
    for (const { channel, file } of files) {
      reached = 0;
      await walkRecordBytes(
        slices(source.source.chunks(file.path, 0, file.totalLength)),
        file.totalLength,
        (view, at, offset, length, typeLow, typeHigh, idLow, idHigh) => {
          reached = offset + length;
          const searched = entryFor((BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0));
          if (searched === null || !channel.objects.isLatest(idLow, idHigh, file.slot, offset)) return;
          const content = new Uint8Array(view.buffer, view.byteOffset + at + 24, length - 24);
          const objectId = (BigInt(idHigh) << 32n) | BigInt(idLow >>> 0);
          const match = matchEntity(searched, content, needle, objectId, source.dictionary);
          if (match === undefined) return;
          const hit: SearchHit = { objectId, typeId: searched.entry.typeId, ...match };
          if (options.expand === undefined) rows.push(hit);
          else rows.push(...options.expand(hit).slice(0, options.limit - rows.length));
          if (rows.length >= options.limit) throw new StopScan('limit');
        },
        async () => {
          if (Date.now() > options.deadline) throw new StopScan('time');
          if (options.signal?.aborted === true) throw new StopScan('cancelled');
          await nextTurn();
        },
      );
      scannedBytes += file.totalLength;
    }
  } catch (error) {
    if (!(error instanceof StopScan)) throw error;
    stoppedBy = error.message as 'limit' | 'time' | 'cancelled';
    scannedBytes += reached;
  }
  return { hits, stoppedBy, scannedBytes, totalBytes };
}

/**
 * Bytes matched between two turns of other work. A source's chunks are large (8 MiB from a
 * directory), and matching one whole (every record laid out, texts lowered) took 100 ms and more
 * of the one thread: with several searches at once, every other request waited for all of them
 * (/health unanswered for 18 s under 50). In slices the walk pauses often: a record cut by a
 * slice's end is carried whole by the walk, as one cut by a chunk's end is.
 */
const SLICE_BYTES = 64 * 1024;

/**
 * Searches take turns: one slice of one search per turn of the event loop, however many run, so
 * that another request waits for one slice at most (with each search pausing on its own, it
 * waited for a slice of every search running). The work done is the same, in the same time.
 */
const waiting: (() => void)[] = [];
let pumping = false;

function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    if (!pumping) {
      pumping = true;
      setImmediate(pump);
    }
  });
}

function pump(): void {
  waiting.shift()?.();
  if (waiting.length > 0) setImmediate(pump);
  else pumping = false;
}

async function* slices(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += SLICE_BYTES) yield chunk.subarray(at, Math.min(chunk.length, at + SLICE_BYTES));
  }
}

function isSearchable(field: FieldDescriptor): boolean {
  return field.kind === 'primitive' || field.kind === 'chars' || (field.kind === 'list' && field.elements.length === 1 && field.elements[0]!.kind === 'chars');
}

interface Searchable {
  readonly entry: TypeEntry;
  /** The Java text of a JDK value type: such objects are matched as a whole. */
  readonly renderer: Renderer | undefined;
}

type Match = Pick<SearchHit, 'member' | 'text' | 'value' | 'valueObject'>;

function matchEntity(searched: Searchable, content: Uint8Array, needle: string, objectId: bigint, dictionary: Parameters<Renderer>[1]['dictionary']): Match | undefined {
  const entry = searched.entry;
  let layout;
  try {
    layout = layoutEntity(entry, content);
  } catch {
    return undefined; // damaged records are reported elsewhere; nothing to search in them
  }
  if (searched.renderer !== undefined) {
    let text: string;
    try {
      text = searched.renderer(layout, { dictionary, timeZone: UTC, objectId });
    } catch {
      return undefined; // a value Java could not rebuild either
    }
    // `Type@1b6d3586`: an identity, no value to find.
    if (text.startsWith(`${entry.typeName}@`)) return undefined;
    const iso = DATE_TYPES.has(entry.typeName) ? isoDate(layout) : undefined;
    const at = text.toLowerCase().indexOf(needle);
    if (at < 0 && (iso === undefined || !iso.toLowerCase().includes(needle))) return undefined;
    return { member: '', text: at < 0 ? iso! : snippet(text, at, needle.length), value: iso ?? typedValue(entry.typeName, text), valueObject: true };
  }
  const view = layout.view;
  for (const slot of layout.slots) {
    const field = slot.field;
    if (!slot.variable) {
      if (field.kind !== 'primitive') continue;
      const text = primitiveText(field.typeName, view, slot.offset);
      if (text.toLowerCase().includes(needle)) return { member: field.name, text, value: typedPrimitive(field.typeName, text), valueObject: false };
    } else if (field.kind === 'chars') {
      const text = charsText(view, slot.elementsOffset, slot.count);
      const at = text.toLowerCase().indexOf(needle);
      if (at >= 0) return { member: field.name, text: snippet(text, at, needle.length), value: text.slice(0, FULL_TEXT), valueObject: false };
    } else if (isSearchable(field)) {
      let pos = slot.elementsOffset;
      for (let i = 0; i < slot.count && pos + 16 <= slot.end; i++) {
        const total = Number(view.getBigInt64(pos, true));
        const count = Number(view.getBigInt64(pos + 8, true));
        if (total < 16 || pos + total > slot.end) break;
        const text = charsText(view, pos + 16, Math.min(count, (total - 16) / 2));
        const at = text.toLowerCase().indexOf(needle);
        if (at >= 0) return { member: `${field.name}[${i}]`, text: snippet(text, at, needle.length), value: text.slice(0, FULL_TEXT), valueObject: false };
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

/** Texts longer than this are typed values cut to it. */
const FULL_TEXT = 1000;

const NUMBER_TYPES = new Set(['java.lang.Integer', 'java.lang.Short', 'java.lang.Byte', 'java.lang.Float', 'java.lang.Double']);
/** JDK types whose first member is the epoch milliseconds. */
const DATE_TYPES = new Set(['java.util.Date', 'java.sql.Date', 'java.sql.Timestamp']);

/** Numbers that fit a double exactly as JSON numbers; 64-bit and decimal values keep their text. */
function typedValue(typeName: string, text: string): SearchValue {
  if (NUMBER_TYPES.has(typeName)) return numberOrText(text);
  if (typeName === 'java.lang.Boolean') return text === 'true';
  return text.slice(0, FULL_TEXT);
}

function typedPrimitive(typeName: string, text: string): SearchValue {
  switch (typeName) {
    case 'boolean':
      return text === 'true';
    case 'byte':
    case 'short':
    case 'int':
    case 'float':
    case 'double':
      return numberOrText(text);
    default:
      return text; // long: a decimal string like every 64-bit value of the API; char: its text
  }
}

function numberOrText(text: string): SearchValue {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

function isoDate(layout: EntityLayout): string | undefined {
  const slot = layout.slots[0];
  if (slot === undefined || slot.variable || slot.field.kind !== 'primitive' || slot.field.typeName !== 'long') return undefined;
  const ms = layout.view.getBigInt64(slot.offset, true);
  if (ms < -8_640_000_000_000_000n || ms > 8_640_000_000_000_000n) return undefined;
  return new Date(Number(ms)).toISOString();
}
