import { AppError } from '../errors.js';
import { quoteForeign } from '../format/foreign-text.js';
import { charsText, type EntityLayout, type MemberSlot, type VariableSlot } from '../format/entity-layout.js';
import { javaBigDecimalToString, javaBigIntegerFromBytes } from '../javatext/java-big-number-text.js';
import {
  javaDateToString,
  javaSqlDateToString,
  javaSqlTimestampToString,
  javaSqlTimeToString,
} from '../javatext/java-date-text.js';
import { javaDoubleBitsToString, javaFloatBitsToString } from '../javatext/java-float-text.js';
import { javaLocaleToString } from '../javatext/java-locale-text.js';
import { javaOptionalText } from '../javatext/java-optional-text.js';
import { javaPathFromUri } from '../javatext/java-path-text.js';
import {
  javaLocalDateText,
  javaMonthDayText,
  javaPeriodText,
  javaYearMonthText,
  javaZoneOffsetText,
} from '../javatext/java-time-text.js';
import type { JavaTimeZone } from '../javatext/java-time-zones.js';
import { isPrimitiveName, type PrimitiveName, type TypeDictionary, type TypeEntry } from '../format/type-dictionary.js';

/**
 * The JDK value types that the Java REST adapter shows as one string (`simplified: true`), and
 * how each string is rebuilt from the stored bytes (rest-rendering.md §10.3, §10.4).
 * Only the dictionary's current entry of each of these names is simplified; older versions of
 * the same name render generically.
 */

/** Java could not rebuild the value (NaN wrapper, Void, unknown class id...): the service answers 500. */
export class UnloadableValueError extends AppError {
  constructor(message: string) {
    super('FORMAT_JAVA_VALUE', message);
  }
}

export interface ValueContext {
  readonly dictionary: TypeDictionary;
  readonly timeZone: JavaTimeZone;
  readonly objectId: bigint;
}

export type Renderer = (layout: EntityLayout, context: ValueContext) => string;

const SIMPLE_WRAPPERS = ['java.lang.Byte', 'java.lang.Boolean', 'java.lang.Short', 'java.lang.Character', 'java.lang.Integer', 'java.lang.Long'];

const RENDERERS: ReadonlyMap<string, Renderer> = new Map<string, Renderer>([
  ...SIMPLE_WRAPPERS.map((name): [string, Renderer] => [name, (l) => primitiveAt(l, 0)]),
  ['java.lang.Float', (l) => notNaN(l, 'java.lang.Float', javaFloatBitsToString(l.view.getUint32(fixed(l, 0).offset, true)))],
  ['java.lang.Double', (l) => notNaN(l, 'java.lang.Double', javaDoubleBitsToString(l.view.getBigUint64(fixed(l, 0).offset, true)))],
  [
    'java.lang.Void',
    () => {
      throw new UnloadableValueError('java.lang.Void entities cannot be instantiated');
    },
  ],
  ['java.lang.Object', (_l, c) => `java.lang.Object@${identityHash(c.objectId)}`],
  ['java.lang.String', (l) => chars(l, 0)],
  ['java.lang.StringBuffer', (l) => chars(l, 1)],
  ['java.lang.StringBuilder', (l) => chars(l, 1)],
  ['java.lang.Class', (l, c) => classText(l.view.getBigInt64(fixed(l, 0).offset, true), c.dictionary)],
  ['java.math.BigInteger', (l) => javaBigIntegerFromBytes(bytes(l, 0))],
  ['java.math.BigDecimal', (l) => javaBigDecimalToString(chars(l, 0))],
  ['java.io.File', (l) => chars(l, 0)],
  ['java.util.Date', (l, c) => javaDateToString(longAt(l, 0), c.timeZone)],
  ['java.sql.Date', (l, c) => javaSqlDateToString(longAt(l, 0), c.timeZone)],
  ['java.sql.Time', (l, c) => javaSqlTimeToString(longAt(l, 0), c.timeZone)],
  ['java.sql.Timestamp', (l, c) => javaSqlTimestampToString(longAt(l, 0), c.timeZone)],
  ['java.util.Locale', (l) => javaLocaleToString(chars(l, 0))],
  ['java.util.Currency', (l) => currencyText(chars(l, 0))],
  ['java.util.regex.Pattern', (l) => chars(l, 1)],
  ['java.net.InetAddress', (l) => chars(l, 0)],
  ['java.net.Inet4Address', (l) => chars(l, 0)],
  ['java.net.Inet6Address', (l) => chars(l, 0)],
  // The viewer never resolves the host and address references, so Java 14+ always shows this.
  ['java.net.InetSocketAddress', () => '[uninitialized]/<unresolved>:0'],
  ['java.nio.file.Path', (l) => javaPathFromUri(chars(l, 0))],
  ['java.net.URI', (l) => chars(l, 0)],
  ['java.net.URL', (l) => chars(l, 0)],
  ['java.util.OptionalInt', (l) => javaOptionalText('OptionalInt', primitiveAt(l, 0) === 'true', primitiveAt(l, 1))],
  ['java.util.OptionalLong', (l) => javaOptionalText('OptionalLong', primitiveAt(l, 0) === 'true', primitiveAt(l, 1))],
  // Like the NaN Double entity, a present NaN cannot be loaded (the handler's value check rejects it).
  ['java.util.OptionalDouble', (l) => javaOptionalText('OptionalDouble', primitiveAt(l, 0) === 'true', notNaN(l, 'java.util.OptionalDouble', primitiveAt(l, 1)))],
  ['java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet', () => '[]'],
  ['java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap', () => '{}'],
  ['java.util.Collections$ReverseComparator', (_l, c) => `java.util.Collections$ReverseComparator@${identityHash(c.objectId)}`],
]);

/** The members a built-in handler declares: exactly these, in this order, without declaring class. */
type HandlerShape = readonly (readonly [PrimitiveName | '[list]', string])[];

/**
 * JDK types that later generations store through a built-in handler (`ZoneOffset` from
 * MicroStream 5, the others from EclipseStore 3 and 4) and whose adapter then shows them
 * simplified. An older runtime stores the same class reflectively (`int java.time.ZoneOffset#totalSeconds`),
 * and that entry renders generically: the entry's shape decides, not the version.
 */
const HANDLER_RENDERERS: ReadonlyMap<string, { readonly shape: HandlerShape; readonly render: Renderer }> = new Map([
  ['java.time.ZoneOffset', { shape: [['int', 'totalSeconds']], render: (l: EntityLayout) => javaZoneOffsetText(intAt(l, 0)) }],
  [
    'java.time.LocalDate',
    { shape: [['int', 'year'], ['short', 'month'], ['short', 'day']], render: (l: EntityLayout) => javaLocalDateText(intAt(l, 0), intAt(l, 1), intAt(l, 2)) },
  ],
  ['java.time.YearMonth', { shape: [['int', 'year'], ['int', 'month']], render: (l: EntityLayout) => javaYearMonthText(intAt(l, 0), intAt(l, 1)) }],
  ['java.time.MonthDay', { shape: [['int', 'month'], ['int', 'day']], render: (l: EntityLayout) => javaMonthDayText(intAt(l, 0), intAt(l, 1)) }],
  [
    'java.time.Period',
    { shape: [['int', 'years'], ['int', 'months'], ['int', 'days']], render: (l: EntityLayout) => javaPeriodText(intAt(l, 0), intAt(l, 1), intAt(l, 2)) },
  ],
] as const);

/** The renderer for a type, if entities of exactly this type id are shown simplified. */
export function simplifiedRenderer(entry: TypeEntry, dictionary: TypeDictionary): Renderer | undefined {
  if (dictionary.currentByName.get(entry.typeName) !== entry) return undefined;
  const renderer = RENDERERS.get(entry.typeName);
  if (renderer !== undefined) return renderer;
  const handler = HANDLER_RENDERERS.get(entry.typeName);
  return handler !== undefined && hasShape(entry, handler.shape) ? handler.render : undefined;
}

/**
 * EclipseStore's `BitSet` handler (ES 3+) declares `int wordsInUse, boolean sizeIsSticky,
 * [list] words(long word)` but writes only `sizeIsSticky` and the words: the declared layout does
 * not describe the stored bytes, and EclipseStore's own adapter fails on every such entity.
 */
const BITSET_HANDLER_SHAPE: HandlerShape = [['int', 'wordsInUse'], ['boolean', 'sizeIsSticky'], ['[list]', 'words']];

/**
 * Why the Java adapter cannot load any entity of this entry (it answers 500), checked before the
 * bytes are laid out; undefined for loadable types.
 */
export function unloadableReason(entry: TypeEntry): string | undefined {
  if (entry.typeName === 'java.util.BitSet' && hasShape(entry, BITSET_HANDLER_SHAPE)) {
    return `java.util.BitSet (type id ${entry.typeId}): the handler stores sizeIsSticky and words, not the declared wordsInUse, sizeIsSticky, words; Java cannot load it either`;
  }
  return undefined;
}

function hasShape(entry: TypeEntry, shape: HandlerShape): boolean {
  return (
    entry.fields.length === shape.length &&
    entry.fields.every((f, i) => (f.kind === 'primitive' || f.kind === 'list') && f.qualifier === undefined && f.typeName === shape[i]![0] && f.name === shape[i]![1])
  );
}

function slotAt(layout: EntityLayout, index: number): MemberSlot {
  const slot = layout.slots[index];
  if (slot === undefined) {
    throw new UnloadableValueError(`${layout.entry.typeName} (type id ${layout.entry.typeId}) has no member ${index}`);
  }
  return slot;
}

function fixed(layout: EntityLayout, index: number): MemberSlot {
  const slot = slotAt(layout, index);
  if (slot.variable) throw new UnloadableValueError(`${layout.entry.typeName}: member ${index} is not a fixed-size value`);
  return slot;
}

function variable(layout: EntityLayout, index: number): VariableSlot {
  const slot = slotAt(layout, index);
  if (!slot.variable) throw new UnloadableValueError(`${layout.entry.typeName}: member ${index} is not a list`);
  return slot;
}

function primitiveAt(layout: EntityLayout, index: number): string {
  const slot = fixed(layout, index);
  if (slot.field.kind !== 'primitive') throw new UnloadableValueError(`${layout.entry.typeName}: member ${index} is not a primitive`);
  const type = slot.field.typeName;
  const view = layout.view;
  switch (type) {
    case 'byte':
      return String(view.getInt8(slot.offset));
    case 'boolean':
      return view.getUint8(slot.offset) !== 0 ? 'true' : 'false';
    case 'short':
      return String(view.getInt16(slot.offset, true));
    case 'char':
      return String.fromCharCode(view.getUint16(slot.offset, true));
    case 'int':
      return String(view.getInt32(slot.offset, true));
    case 'long':
      return view.getBigInt64(slot.offset, true).toString();
    case 'float':
      return javaFloatBitsToString(view.getUint32(slot.offset, true));
    case 'double':
      return javaDoubleBitsToString(view.getBigUint64(slot.offset, true));
  }
}

/** An `int` or `short` member as a number. */
function intAt(layout: EntityLayout, index: number): number {
  const slot = fixed(layout, index);
  return slot.field.typeName === 'short' ? layout.view.getInt16(slot.offset, true) : layout.view.getInt32(slot.offset, true);
}

function longAt(layout: EntityLayout, index: number): bigint {
  return layout.view.getBigInt64(fixed(layout, index).offset, true);
}

function chars(layout: EntityLayout, index: number): string {
  const slot = variable(layout, index);
  return charsText(layout.view, slot.elementsOffset, slot.count);
}

function bytes(layout: EntityLayout, index: number): Uint8Array {
  const slot = variable(layout, index);
  return new Uint8Array(layout.view.buffer, layout.view.byteOffset + slot.elementsOffset, slot.count);
}

function notNaN(layout: EntityLayout, typeName: string, text: string): string {
  // The 4.1 viewer fails to load a Float/Double entity that holds NaN (its value check rejects it).
  if (text === 'NaN') throw new UnloadableValueError(`${typeName} entity of type id ${layout.entry.typeId} holds NaN`);
  return text;
}

function currencyText(code: string): string {
  if (!/^[A-Z]{3}$/.test(code)) throw new UnloadableValueError(`invalid currency code ${quoteForeign(code)}`);
  return code;
}

/**
 * Java `Class.toString()` of the class with the stored type id. The dictionary does not say
 * whether a type is an interface; the JDK's common collection and functional interfaces are known.
 */
function classText(typeId: bigint, dictionary: TypeDictionary): string {
  const entry = dictionary.byId.get(typeId);
  if (entry === undefined) throw new UnloadableValueError(`java.lang.Class entity refers to unknown type id ${typeId}`);
  const name = entry.typeName;
  if (isPrimitiveName(name) || name === 'void') return name;
  return `${JDK_INTERFACES.has(name) ? 'interface' : 'class'} ${name}`;
}

const JDK_INTERFACES = new Set([
  'java.lang.Comparable',
  'java.lang.CharSequence',
  'java.lang.Iterable',
  'java.lang.Runnable',
  'java.io.Serializable',
  'java.util.Collection',
  'java.util.List',
  'java.util.Set',
  'java.util.SortedSet',
  'java.util.NavigableSet',
  'java.util.Queue',
  'java.util.Deque',
  'java.util.Map',
  'java.util.SortedMap',
  'java.util.NavigableMap',
  'java.util.Comparator',
  'java.util.Iterator',
  'java.util.RandomAccess',
  'java.util.concurrent.ConcurrentMap',
  'java.util.function.Function',
  'java.util.function.Supplier',
  'java.util.function.Consumer',
  'java.util.function.Predicate',
]);

/**
 * Stand-in for Java's identity hash code, which differs on every run (clients must not rely on
 * it): a stable 31-bit mix of the object id, printed like `Integer.toHexString`.
 */
export function identityHash(objectId: bigint): string {
  let h = Number(objectId & 0x7fffffffn) ^ Number((objectId >> 31n) & 0x7fffffffn);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return ((h ^ (h >>> 15)) & 0x7fffffff).toString(16);
}
