import { charsText, fixedValue, type EntityLayout } from '../../format/entity-layout.js';
import type { TypeDictionary, TypeEntry } from '../../format/type-dictionary.js';
import { UTC } from '../../javatext/java-time-zones.js';
import { simplifiedRenderer } from '../../inspect/simplified-value.js';
import { javaBigDecimalToString } from '../../javatext/java-big-number-text.js';
import type { ValueKind } from './column-model.js';

/**
 * The value of one value-type object (String, Integer, BigDecimal, Date, Instant...): its Java
 * text (as the REST service shows it, UTC) and its typed SQL value. Texts come from the
 * project's renderers; the typed value from the same stored members.
 */

export interface ObjectValue {
  readonly text: string | null;
  /** bigint for integers, number for floats, boolean, or microseconds / days for times. */
  readonly typed: bigint | number | boolean | null;
}

const MICROS_PER_DAY = 86_400_000_000n;

/** DuckDB's TIMESTAMP spans about ±290,000 years of microseconds (int64, less the infinities). */
function inTimestampRange(micros: bigint): boolean {
  return micros > -9_200_000_000_000_000_000n && micros < 9_200_000_000_000_000_000n;
}

function member(layout: EntityLayout, name: string): string | bigint | undefined {
  const slot = layout.slots.find((s) => s.field.name === name && !s.variable);
  return slot === undefined ? undefined : fixedValue(slot.field, layout.view, slot.offset);
}

function memberAt(layout: EntityLayout, index: number): string | bigint | undefined {
  const slot = layout.slots[index];
  return slot === undefined || slot.variable ? undefined : fixedValue(slot.field, layout.view, slot.offset);
}

function pad(n: number | bigint, width: number): string {
  return String(n).padStart(width, '0');
}

/** Days since 1970-01-01 of a proleptic Gregorian date (the algorithm of java.time.LocalDate#toEpochDay). */
export function epochDay(year: number, month: number, day: number): number {
  let total = 365 * year;
  total += year >= 0 ? Math.floor((year + 3) / 4) - Math.floor((year + 99) / 100) + Math.floor((year + 399) / 400) : -(Math.trunc(year / -4) - Math.trunc(year / -100) + Math.trunc(year / -400));
  total += Math.floor((367 * month - 362) / 12);
  total += day - 1;
  if (month > 2) total -= isLeap(year) ? 1 : 2;
  return total - 719528;
}

function isLeap(year: number): boolean {
  return (year & 3) === 0 && (year % 100 !== 0 || year % 400 === 0);
}

function timeText(hour: number, minute: number, second: number, nano: number): string {
  let text = `${pad(hour, 2)}:${pad(minute, 2)}`;
  if (second > 0 || nano > 0) {
    text += `:${pad(second, 2)}`;
    if (nano > 0) text += nano % 1_000_000 === 0 ? `.${pad(nano / 1_000_000, 3)}` : nano % 1000 === 0 ? `.${pad(nano / 1000, 6)}` : `.${pad(nano, 9)}`;
  }
  return text;
}

export function valueOfObject(layout: EntityLayout, kind: ValueKind, dictionary: TypeDictionary, objectId: bigint): ObjectValue {
  const entry = layout.entry;
  const renderer = simplifiedRenderer(entry, dictionary);
  let text: string | null = null;
  if (renderer !== undefined) {
    try {
      text = renderer(layout, { dictionary, timeZone: UTC, objectId });
    } catch {
      text = null; // a value Java cannot rebuild either (a NaN wrapper): NULL
    }
  }
  switch (kind) {
    case 'text':
    case 'decimal':
      return { text, typed: null };
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint': {
      const v = memberAt(layout, 0);
      return { text, typed: v === undefined ? null : BigInt(v) };
    }
    case 'boolean':
      return { text, typed: memberAt(layout, 0) === 'true' };
    case 'float':
    case 'double': {
      const v = memberAt(layout, 0);
      return { text, typed: v === undefined ? null : Number(v) };
    }
    case 'timestamp': {
      if (entry.typeName === 'java.time.Instant') {
        const seconds = BigInt(member(layout, 'seconds') ?? 0n);
        const nanos = BigInt(member(layout, 'nanos') ?? 0n);
        const micros = seconds * 1_000_000n + nanos / 1000n;
        // Beyond DuckDB's TIMESTAMP range (Instant.MIN, Instant.MAX): NULL, the text still says it.
        const inRange = inTimestampRange(micros);
        return { text: instantText(seconds, nanos), typed: inRange ? micros : null };
      }
      const millis = BigInt(memberAt(layout, 0) ?? 0n);
      return { text, typed: inTimestampRange(millis * 1000n) ? millis * 1000n : null };
    }
    case 'date': {
      const year = Number(member(layout, 'year') ?? 0);
      const month = Number(member(layout, 'month') ?? 1);
      const day = Number(member(layout, 'day') ?? 1);
      const days = epochDay(year, month, day);
      // Beyond DuckDB's DATE range (LocalDate.MIN, MAX): NULL, the text still says it.
      return { text: text ?? `${year < 0 ? '-' : year > 9999 ? '+' : ''}${pad(Math.abs(year), 4)}-${pad(month, 2)}-${pad(day, 2)}`, typed: Math.abs(days) <= 2_000_000_000 ? days : null };
    }
    case 'time': {
      const hour = Number(member(layout, 'hour') ?? 0);
      const minute = Number(member(layout, 'minute') ?? 0);
      const second = Number(member(layout, 'second') ?? 0);
      const nano = Number(member(layout, 'nano') ?? 0);
      const micros = BigInt(((hour * 60 + minute) * 60 + second) * 1_000_000) + BigInt(Math.floor(nano / 1000));
      return { text: text ?? timeText(hour, minute, second, nano), typed: micros % MICROS_PER_DAY };
    }
  }
}

/** `Instant#toString` for the years 0000..9999 (ISO-8601, fraction in groups of three digits). */
function instantText(seconds: bigint, nanos: bigint): string {
  const date = new Date(Number(seconds) * 1000);
  if (!Number.isFinite(date.getTime()) || date.getUTCFullYear() < 0 || date.getUTCFullYear() > 9999) return `${seconds}s+${nanos}ns`;
  const base = date.toISOString().slice(0, 19);
  const n = Number(nanos);
  const fraction = n === 0 ? '' : n % 1_000_000 === 0 ? `.${pad(n / 1_000_000, 3)}` : n % 1000 === 0 ? `.${pad(n / 1000, 6)}` : `.${pad(n, 9)}`;
  return `${base}${fraction}Z`;
}

/**
 * For value types whose text is made from their one `[char]` member alone, how: a String is that
 * text, a BigDecimal Java's `toString` of it (simplified-value.ts renders them so too); undefined
 * for every other type or shape.
 */
export function textFromChars(entry: TypeEntry): ((chars: string) => string) | undefined {
  if (entry.fields.length !== 1 || entry.fields[0]!.kind !== 'chars') return undefined;
  if (entry.typeName === 'java.lang.String') return (chars) => chars;
  if (entry.typeName === 'java.math.BigDecimal') return javaBigDecimalToString;
  return undefined;
}

/**
 * The characters of a record content that is one `[char]` list (`length` bytes of `view` from
 * `at`: the list's 16-byte header, then UTF-16 code units), read where the record lies, as
 * `layoutEntity` and `charsText` read them; undefined when the content is not exactly that list
 * (the general path then reports why).
 */
export function charsOfContent(view: DataView, at: number, length: number): string | undefined {
  if (length < 16) return undefined;
  const total = view.getUint32(at, true);
  const count = view.getUint32(at + 8, true);
  if (view.getUint32(at + 4, true) !== 0 || view.getUint32(at + 12, true) !== 0 || total !== length || total !== 16 + 2 * count) return undefined;
  return charsText(view, at + 16, count);
}

/** Where `plainDecimalAt` found a BigDecimal's characters, and their shape. */
export interface PlainDecimal {
  /** The first character's UTF-16 code unit in the view, and how many there are. */
  at: number;
  count: number;
  /** Digits before the point (without the sign), digits after it. */
  digits: number;
  scale: number;
}

/**
 * Whether a BigDecimal record's content (one `[char]` list, as `charsOfContent` reads it) holds
 * the text Java's `toString` gives for it already (`javaBigDecimalToString` would return it
 * unchanged), in plain ASCII: `-?(0|[1-9][0-9]*)(\.[0-9]+)?`, no `-` before a zero, at most five
 * zeros after `0.` before the first other digit (Java writes `1E-7` for `0.0000001`), at most six
 * after `0.` when all are zeros (`0E-7`). Then `out` says where they lie and their shape, and the
 * base pass writes them without a string, a parse or a bigint (what the stored texts of an
 * application's prices are); anything else takes the general path.
 */
export function plainDecimalAt(view: DataView, contentAt: number, length: number, out: PlainDecimal): boolean {
  if (length < 17) return false;
  const total = view.getUint32(contentAt, true);
  const count = view.getUint32(contentAt + 8, true);
  if (view.getUint32(contentAt + 4, true) !== 0 || view.getUint32(contentAt + 12, true) !== 0 || total !== length || total !== 16 + 2 * count) return false;
  const at = contentAt + 16;
  let i = 0;
  const negative = view.getUint16(at, true) === 0x2d;
  if (negative) i++;
  const intFrom = i;
  while (i < count && isDigitUnit(view.getUint16(at + 2 * i, true))) i++;
  const digits = i - intFrom;
  if (digits === 0) return false;
  const leadingZero = view.getUint16(at + 2 * intFrom, true) === 0x30;
  if (leadingZero && digits > 1) return false;
  let scale = 0;
  let zeros = 0;
  if (i < count) {
    if (view.getUint16(at + 2 * i, true) !== 0x2e) return false;
    i++;
    const fracFrom = i;
    while (i < count && isDigitUnit(view.getUint16(at + 2 * i, true))) i++;
    if (i !== count) return false;
    scale = i - fracFrom;
    if (scale === 0) return false;
    while (zeros < scale && view.getUint16(at + 2 * (fracFrom + zeros), true) === 0x30) zeros++;
  }
  if (leadingZero) {
    // Zero itself: no sign, and Java's exponent form past six zeros after the point.
    if (zeros === scale && (negative || scale > 6)) return false;
    // 0.000001 and smaller: Java's exponent form.
    if (zeros < scale && zeros > 5) return false;
  }
  out.at = at;
  out.count = count;
  out.digits = digits;
  out.scale = scale;
  return true;
}

function isDigitUnit(unit: number): boolean {
  return unit >= 0x30 && unit <= 0x39;
}

/** A plain decimal text: `-?digits(.digits)?` (not Java's `1E+5` form). */
const PLAIN_DECIMAL = /^-?([0-9]+)(?:\.([0-9]+))?$/;

/**
 * The shape of a big-number type's texts, met one by one as the base pass appends them: whether
 * every one is a plain decimal, and the most digits before and after the point. finish-tables.ts
 * chooses the column's DECIMAL type from it (asking DuckDB afterwards scanned `_values` with a
 * regular expression per type: 0.3 s at 10M objects).
 */
export class DecimalShapes {
  readonly byType = new Map<string, { bad: boolean; digits: number; scale: number }>();

  note(typeName: string, text: string): void {
    let shape = this.byType.get(typeName);
    if (shape === undefined) this.byType.set(typeName, (shape = { bad: false, digits: -1, scale: 0 }));
    if (shape.bad) return;
    const match = PLAIN_DECIMAL.exec(text);
    if (match === null) {
      shape.bad = true;
      return;
    }
    shape.digits = Math.max(shape.digits, match[1]!.length);
    shape.scale = Math.max(shape.scale, match[2]?.length ?? 0);
  }

  /** What `note` learns from a plain text of `digits` and `scale` (`plainDecimalAt` found them). */
  notePlain(typeName: string, digits: number, scale: number): void {
    let shape = this.byType.get(typeName);
    if (shape === undefined) this.byType.set(typeName, (shape = { bad: false, digits: -1, scale: 0 }));
    if (shape.bad) return;
    if (digits > shape.digits) shape.digits = digits;
    if (scale > shape.scale) shape.scale = scale;
  }
}
