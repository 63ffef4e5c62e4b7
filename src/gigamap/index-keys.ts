import { readBitmap } from './bitmap-reader.js';
import type { GigaMapIndex, GigaMapStructure } from './gigamap-structure.js';
import { lowerBound } from './id-list.js';
import { keyText, type RecordSource } from './record-fields.js';

/**
 * An index as keys with their entities, decoded from its bitmaps alone (never by reading the
 * entities): keys in their natural order (numbers numerically, texts by UTF-16 code units), each
 * with its ascending entity ids. How a key reads per kind:
 * - hashing: the Java text of the key object (`Graz`, `42`);
 * - boolean: one key, `true` (false and null are not stored);
 * - binary (bit-sliced): the long whose bits are the bitmaps holding the entity, in decimal;
 * - composite: its parts' keys as `[1999, 10, 1]` (a null value: `[null]`).
 * Entities are kept in one Float64Array with the start of each key's run (no object per entity).
 */

export interface IndexKeys {
  readonly keyCount: number;
  /** Entities indexed under some key (an entity is under one key per index). */
  readonly entityCount: number;
  /** Bytes of the bitmap records read. */
  readonly bitmapBytes: number;
  /** Entity ids a bitmap names whose slot is empty (a damaged index). */
  readonly strayIds: Float64Array;
  keyText(key: number): string;
  count(key: number): number;
  /** The ascending entity ids of a key (a view, not a copy). */
  entities(key: number): Float64Array;
  /** The key whose text this is, or -1. */
  find(text: string): number;
}

/** How the keys of a table read: by number, and back (a text that is no key: -1). */
interface KeyNames {
  readonly count: number;
  text(key: number): string;
  find(text: string): number;
}

/** Key texts kept as strings (hashing keys: as many as distinct values). */
function namedKeys(texts: readonly string[]): KeyNames {
  let byText: Map<string, number> | undefined;
  return {
    count: texts.length,
    text: (key) => texts[key]!,
    find: (text) => (byText ??= new Map(texts.map((t, i) => [t, i]))).get(text) ?? -1,
  };
}

class RunKeys implements IndexKeys {
  constructor(
    private readonly names: KeyNames,
    private readonly starts: Float64Array,
    private readonly ids: Float64Array,
    readonly bitmapBytes: number,
    readonly strayIds: Float64Array,
  ) {}

  get keyCount(): number {
    return this.names.count;
  }

  get entityCount(): number {
    return this.ids.length;
  }

  keyText(key: number): string {
    return this.names.text(key);
  }

  count(key: number): number {
    return this.starts[key + 1]! - this.starts[key]!;
  }

  entities(key: number): Float64Array {
    return this.ids.subarray(this.starts[key]!, this.starts[key + 1]!);
  }

  find(text: string): number {
    return this.names.find(text);
  }
}

/** Numbers (Java integer and decimal texts) numerically, before texts; texts by code units. */
export function compareKeyTexts(a: string, b: string): number {
  const x = numeric(a);
  const y = numeric(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : a < b ? -1 : a > b ? 1 : 0;
  if (x !== undefined) return -1;
  if (y !== undefined) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const NUMBER = /^-?\d+(\.\d+)?$/;

function numeric(text: string): number | undefined {
  return NUMBER.test(text) ? Number(text) : undefined;
}

interface Keyed {
  readonly text: string;
  readonly ids: Float64Array;
}

export async function readIndexKeys(source: RecordSource, map: GigaMapStructure, index: GigaMapIndex): Promise<IndexKeys> {
  switch (index.kind) {
    case 'hashing':
    case 'part':
    case 'boolean': {
      const { keyed, bytes } = await keyedBitmaps(source, index);
      return fromKeyed(map, keyed, bytes);
    }
    case 'binary':
      return binaryKeys(source, map, index);
    case 'composite':
      return compositeKeys(source, map, index);
  }
}

/** One bitmap per key (hashing and its composite parts; the one `true` bitmap of a boolean index). */
async function keyedBitmaps(source: RecordSource, index: GigaMapIndex): Promise<{ keyed: Keyed[]; bytes: number }> {
  const keyed: Keyed[] = [];
  let bytes = 0;
  for (let k = 0; k < index.entryIds.length; k++) {
    if (index.entryIds[k] === 0n) continue;
    const bitmap = await readBitmap(source, index.entryIds[k]!, true);
    bytes += bitmap.bytes;
    // A key whose bitmap is empty is not a key (EclipseStore drops such entries).
    if (bitmap.count === 0) continue;
    const text = index.kind === 'boolean' ? 'true' : await keyText(source, index.keyIds[k]!);
    keyed.push({ text, ids: bitmap.ids! });
  }
  keyed.sort((a, b) => compareKeyTexts(a.text, b.text));
  return { keyed, bytes };
}

function fromKeyed(map: GigaMapStructure, keyed: readonly Keyed[], bytes: number): IndexKeys {
  let total = 0;
  for (const k of keyed) total += k.ids.length;
  const ids = new Float64Array(total);
  const starts = new Float64Array(keyed.length + 1);
  const strays: number[] = [];
  let at = 0;
  keyed.forEach((k, i) => {
    starts[i] = at;
    ids.set(k.ids, at);
    at += k.ids.length;
    forEachPosition(map, k.ids, () => undefined, (id) => strays.length < 1000 && strays.push(id));
  });
  starts[keyed.length] = at;
  return new RunKeys(
    namedKeys(keyed.map((k) => k.text)),
    starts,
    ids,
    bytes,
    Float64Array.from(strays),
  );
}

/**
 * Walks a bitmap's ascending ids along the GigaMap's ascending entity ids at once (no search per
 * id): `found` gets the position of an id in the entity list, `stray` an id whose slot is empty.
 */
function forEachPosition(map: GigaMapStructure, ids: Float64Array, found: (position: number) => void, stray: (id: number) => void): void {
  const entities = map.entityIds;
  let p = ids.length > 0 ? lowerBound(entities, ids[0]!) : 0;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    while (p < entities.length && entities[p]! < id) p++;
    if (p < entities.length && entities[p] === id) found(p);
    else stray(id);
  }
}

/**
 * Keys built per entity: `codes[p]` for the entity at position p of the GigaMap's entity list
 * (valid where `present[p]`), grouped into ascending codes; `text` names a code.
 */
function fromCodes(
  map: GigaMapStructure,
  codes: BigInt64Array,
  present: Uint8Array,
  text: (code: bigint) => string,
  parse: ((text: string) => bigint | undefined) | undefined,
  bytes: number,
  strays: Float64Array,
): IndexKeys {
  let n = 0;
  for (let p = 0; p < present.length; p++) n += present[p]!;
  const indexed = new BigInt64Array(n);
  for (let p = 0, i = 0; p < present.length; p++) if (present[p] === 1) indexed[i++] = codes[p]!;
  const sorted = indexed.slice().sort();
  let distinct = 0;
  for (let i = 0; i < n; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) sorted[distinct++] = sorted[i]!;
  const keys = sorted.subarray(0, distinct);
  const keyOf = new Uint32Array(n);
  const counts = new Float64Array(distinct + 1);
  for (let i = 0; i < n; i++) {
    const code = indexed[i]!;
    let lo = 0;
    let hi = distinct;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < code) lo = mid + 1;
      else hi = mid;
    }
    keyOf[i] = lo;
    counts[lo + 1]!++;
  }
  for (let k = 1; k <= distinct; k++) counts[k]! += counts[k - 1]!;
  const starts = counts.slice();
  const fill = counts;
  const ids = new Float64Array(n);
  for (let p = 0, i = 0; p < present.length; p++) if (present[p] === 1) ids[fill[keyOf[i++]!]!++] = map.entityIds[p]!;
  // Texts made when asked for: a unique index of 10M entities has 10M keys.
  let byText: Map<string, number> | undefined;
  const names: KeyNames = {
    count: distinct,
    text: (key) => text(keys[key]!),
    find: (wanted) => {
      const code = parse?.(wanted);
      if (parse !== undefined) {
        if (code === undefined) return -1;
        let lo = 0;
        let hi = distinct;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (keys[mid]! < code) lo = mid + 1;
          else hi = mid;
        }
        return lo < distinct && keys[lo] === code && code.toString() === wanted ? lo : -1;
      }
      byText ??= new Map(Array.from(keys, (c, i) => [text(c), i] as const));
      return byText.get(wanted) ?? -1;
    },
  };
  return new RunKeys(names, starts, ids, bytes, strays);
}

const LONG_TEXT = /^-?\d{1,19}$/;

/** A Java long's decimal text as the bigint it names (undefined: not a long). */
function parseLong(text: string): bigint | undefined {
  if (!LONG_TEXT.test(text)) return undefined;
  const value = BigInt(text);
  return value === BigInt.asIntN(64, value) ? value : undefined;
}

/** Bit-sliced: bitmap i holds the entities whose key has bit i set. */
async function binaryKeys(source: RecordSource, map: GigaMapStructure, index: GigaMapIndex): Promise<IndexKeys> {
  const n = map.entityIds.length;
  // Each entity's key as two 32-bit halves (little endian), read back as one BigInt64Array.
  const halves = new Uint32Array(2 * n);
  const present = new Uint8Array(n);
  const strays: number[] = [];
  let bytes = 0;
  for (let bit = 0; bit < index.entryIds.length && bit < 64; bit++) {
    if (index.entryIds[bit] === 0n) continue;
    const bitmap = await readBitmap(source, index.entryIds[bit]!, true);
    bytes += bitmap.bytes;
    const mask = (1 << (bit & 31)) >>> 0;
    const half = bit >> 5;
    forEachPosition(
      map,
      bitmap.ids!,
      (p) => {
        halves[2 * p + half] = (halves[2 * p + half]! | mask) >>> 0;
        present[p] = 1;
      },
      (id) => strays.length < 1000 && !strays.includes(id) && strays.push(id),
    );
  }
  const codes = new BigInt64Array(halves.buffer, 0, n);
  return fromCodes(map, codes, present, (code) => code.toString(), parseLong, bytes, Float64Array.from(strays));
}

/** Composite: each part is a hashing index of one key part; an entity's key is the tuple of its parts. */
async function compositeKeys(source: RecordSource, map: GigaMapStructure, index: GigaMapIndex): Promise<IndexKeys> {
  const n = map.entityIds.length;
  const codes = new BigInt64Array(n);
  const present = new Uint8Array(n);
  const strays: number[] = [];
  const partTexts: string[][] = [];
  const partKeys: Keyed[][] = [];
  const radices: bigint[] = [];
  let bytes = 0;
  for (const part of index.parts) {
    const { keyed, bytes: partBytes } = await keyedBitmaps(source, part);
    bytes += partBytes;
    partKeys.push(keyed);
    partTexts.push(keyed.map((k) => k.text));
    radices.push(BigInt(keyed.length + 1));
  }
  let capacity = 1n;
  for (const r of radices) capacity *= r;
  if (capacity >= 1n << 63n) throw new RangeError(`composite index ${index.name} has too many key combinations to list (${capacity})`);
  // Rank r (1-based; 0 = no key in this part) of part i weighs the product of the later radices.
  const weights = radices.map((_r, i) => radices.slice(i + 1).reduce((a, b) => a * b, 1n));
  for (let i = 0; i < partKeys.length; i++) {
    partKeys[i]!.forEach((k, rank) => {
      const add = BigInt(rank + 1) * weights[i]!;
      forEachPosition(
        map,
        k.ids,
        (p) => {
          codes[p]! += add;
          present[p] = 1;
        },
        (id) => strays.length < 1000 && !strays.includes(id) && strays.push(id),
      );
    });
  }
  const text = (code: bigint): string => {
    const parts: string[] = [];
    for (let i = 0; i < radices.length; i++) {
      const rank = Number((code / weights[i]!) % radices[i]!);
      if (rank > 0) parts.push(partTexts[i]![rank - 1]!);
    }
    return `[${parts.join(', ')}]`;
  };
  return fromCodes(map, codes, present, text, undefined, bytes, Float64Array.from(strays));
}
