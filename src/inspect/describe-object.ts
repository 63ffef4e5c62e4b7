import { FormatError, NotFoundError } from '../errors.js';
import {
  fixedValue,
  layoutEntity,
  variableElements,
  type EntityLayout,
  type MemberValue,
  type VariableSlot,
} from '../format/entity-layout.js';
import { classifyId, resolveJdkConstant } from '../format/ids.js';
import type { JavaTimeZone } from '../javatext/java-time-zones.js';
import type { Storage } from '../storage/storage.js';
import { gsonString } from './gson-json.js';
import { simplifiedRenderer, unloadableReason, UnloadableValueError } from './simplified-value.js';

/**
 * The object description of the REST API (rest-rendering.md §10): one entity (or JDK constant)
 * as `{"objectId","typeId","length","variableLength","simplified","data","references"}`,
 * paged and truncated like the Java 4.1 adapter does.
 */

/** Paging parameters after Java's parsing; values above 2^31-1 already clamped. */
export interface DescribeOptions {
  readonly fixedOffset: number;
  readonly fixedLength: number;
  readonly variableOffset: number;
  readonly variableLength: number;
  readonly valueLength: number;
  readonly references: boolean;
  readonly timeZone: JavaTimeZone;
}

export const INT_MAX = 2147483647;

/** A rendered value: Java text (truncated), reference id, or nested array. */
type DataValue = string | bigint | readonly DataValue[];

export interface ObjectDescription {
  readonly objectId: bigint;
  readonly typeId: bigint;
  readonly length: number;
  readonly variableLength: readonly number[] | null;
  readonly simplified: boolean;
  readonly data: readonly DataValue[];
  readonly references: readonly (ObjectDescription | null)[] | null;
}

/** Where a referenced object is read from; a Storage, or a consistent snapshot of one. */
export type EntitySource = Pick<Storage, 'dictionary' | 'readEntity'>;

/**
 * A source that may stop the description: `halted`, looked at after every read. The HTTP layer's
 * budgeted source halts when an answer turns out big before it was admitted (http/guard/big-answers.ts).
 */
export interface HaltingSource extends EntitySource {
  readonly halted: boolean;
}

interface Described {
  readonly description: ObjectDescription;
  /** References collected for `references=true` (0 = null reference). */
  readonly referenceIds: readonly bigint[];
}

/**
 * Describes one object; throws NotFoundError (404) or UnloadableValueError/FormatError (500).
 * Undefined when a halting source halted it (what was described so far is dropped).
 */
export function describeObject(source: HaltingSource, objectId: bigint, options: DescribeOptions): Promise<ObjectDescription | undefined>;
export function describeObject(source: EntitySource, objectId: bigint, options: DescribeOptions): Promise<ObjectDescription>;
export async function describeObject(source: MaybeHalting, objectId: bigint, options: DescribeOptions): Promise<ObjectDescription | undefined> {
  const first = await describeOne(source, objectId, options);
  if (first === undefined || !options.references) return first?.description;
  const references: (ObjectDescription | null)[] = [];
  const nested: DescribeOptions = { ...options, references: false };
  for (const id of first.referenceIds) {
    if (id === 0n) {
      references.push(null);
      continue;
    }
    const referenced = await describeOne(source, id, nested);
    if (referenced === undefined) return undefined;
    references.push(referenced.description);
  }
  return { ...first.description, references };
}

type MaybeHalting = EntitySource & { readonly halted?: boolean };

async function describeOne(source: MaybeHalting, objectId: bigint, options: DescribeOptions): Promise<Described | undefined> {
  if (classifyId(objectId) === 'constant') return describeConstant(source, objectId, options);
  const entity = await source.readEntity(objectId);
  if (source.halted === true) return undefined;
  if (entity === undefined) throw new NotFoundError(`No entity found for objectId ${objectId}`);
  const entry = source.dictionary.byId.get(entity.typeId);
  if (entry === undefined) {
    throw new FormatError('FORMAT_UNKNOWN_TYPE_ID', `object ${objectId} has type id ${entity.typeId}, which the type dictionary lacks`, {
      file: entity.file,
      offset: entity.offset + 8,
    });
  }
  const unloadable = unloadableReason(entry);
  if (unloadable !== undefined) throw new UnloadableValueError(`object ${objectId}: ${unloadable}`);
  const layout = layoutEntity(entry, entity.content, { file: entity.file, offset: entity.offset + 24 });
  const renderer = simplifiedRenderer(entry, source.dictionary);
  if (renderer !== undefined) {
    const text = renderer(layout, { dictionary: source.dictionary, timeZone: options.timeZone, objectId });
    return {
      description: {
        objectId,
        typeId: entity.typeId,
        length: 1,
        variableLength: [0],
        simplified: true,
        data: [truncate(text, options.valueLength)],
        references: null,
      },
      referenceIds: options.references ? collectReferences(layout, 1, options) : [],
    };
  }
  return describeGeneric(objectId, layout, options);
}

function describeConstant(source: EntitySource, objectId: bigint, options: DescribeOptions): Described {
  const constant = resolveJdkConstant(objectId);
  if (constant === undefined) throw new UnloadableValueError(`constant id ${objectId} is not registered`);
  if (options.references) throw new UnloadableValueError(`constant id ${objectId} has no members to resolve references from`);
  const entry = source.dictionary.currentByName.get(constant.typeName);
  if (entry === undefined) throw new UnloadableValueError(`the type dictionary lacks ${constant.typeName}`);
  return {
    description: {
      objectId,
      typeId: entry.typeId,
      length: 1,
      variableLength: [0],
      simplified: true,
      data: [truncate(constant.text, options.valueLength)],
      references: null,
    },
    referenceIds: [],
  };
}

function describeGeneric(objectId: bigint, layout: EntityLayout, options: DescribeOptions): Described {
  const fixedSlots = layout.slots.filter((s) => !s.variable);
  const variableSlots = layout.slots.filter((s): s is VariableSlot => s.variable);
  const length = fixedSlots.length;
  const data: DataValue[] = [];
  const fixedEnd = pageEnd(length, options.fixedOffset, options.fixedLength);
  for (let i = options.fixedOffset; i < fixedEnd; i++) {
    const slot = fixedSlots[i]!;
    data.push(render(fixedValue(slot.field, layout.view, slot.offset), options.valueLength));
  }
  for (const slot of variableSlots) {
    const end = pageEnd(slot.count, options.variableOffset, options.variableLength);
    const elements = variableElements(layout.view, slot, options.variableOffset, end);
    data.push(elements.map((e) => render(e, options.valueLength)));
  }
  return {
    description: {
      objectId,
      typeId: layout.entry.typeId,
      length,
      variableLength: variableSlots.length === 0 ? null : variableSlots.map((s) => s.count),
      simplified: false,
      data,
      references: null,
    },
    referenceIds: options.references ? collectReferences(layout, length, options) : [],
  };
}

/**
 * Java's reference collection for `references=true` (rest-rendering.md §10.8): plain references
 * among all member values in the fixed window, then, if `variableLength > 0`, every reference
 * inside the window of the member at index `length` (the first variable-length member).
 */
function collectReferences(layout: EntityLayout, length: number, options: DescribeOptions): bigint[] {
  const refs: bigint[] = [];
  const slots = layout.slots;
  const fixedEnd = Math.min(slots.length, options.fixedOffset + options.fixedLength);
  for (let i = options.fixedOffset; i < fixedEnd; i++) {
    const slot = slots[i]!;
    if (!slot.variable && slot.field.kind === 'reference') refs.push(layout.view.getBigInt64(slot.offset, true));
  }
  const first = slots[length];
  if (options.variableLength > 0 && first !== undefined && first.variable) {
    const end = pageEnd(first.count, options.variableOffset, options.variableLength);
    collectNested(variableElements(layout.view, first, options.variableOffset, end), refs);
  }
  return refs;
}

function collectNested(values: readonly MemberValue[], refs: bigint[]): void {
  for (const value of values) {
    if (typeof value === 'bigint') refs.push(value);
    else if (typeof value !== 'string') collectNested(value, refs);
  }
}

/** Exclusive end of a page: `min(off + max(min(n - off, cnt), 0), 2^31-1)`. */
export function pageEnd(count: number, offset: number, length: number): number {
  return Math.min(offset + Math.max(Math.min(count - offset, length), 0), INT_MAX);
}

function render(value: MemberValue, valueLength: number): DataValue {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'string') return truncate(value, valueLength);
  return value.map((v) => render(v, valueLength));
}

/** Java `substring(0, min(n, length))` on UTF-16 code units. */
function truncate(text: string, valueLength: number): string {
  return text.length > valueLength ? text.slice(0, valueLength) : text;
}

/** The description as Gson prints it (compact, HTML-safe escaping, longs as strings). */
export function objectDescriptionJson(d: ObjectDescription): string {
  const variableLength = d.variableLength === null ? 'null' : `[${d.variableLength.map((n) => `"${n}"`).join(',')}]`;
  const references =
    d.references === null ? 'null' : `[${d.references.map((r) => (r === null ? 'null' : objectDescriptionJson(r))).join(',')}]`;
  return (
    `{"objectId":"${d.objectId}","typeId":"${d.typeId}","length":"${d.length}","variableLength":${variableLength},` +
    `"simplified":${d.simplified},"data":${dataJson(d.data)},"references":${references}}`
  );
}

function dataJson(values: readonly DataValue[]): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    parts[i] = typeof v === 'bigint' ? `"${v}"` : typeof v === 'string' ? gsonString(v) : dataJson(v);
  }
  return `[${parts.join(',')}]`;
}
