import { int32At } from '../format/int32-at.js';
import { isAppError } from '../errors.js';
import { fixedSizeOf, layoutEntity, type EntityLayout } from '../format/entity-layout.js';
import { UTC } from '../javatext/java-time-zones.js';
import { JavaValueError } from '../javatext/java-value-error.js';
import { forEachReference } from '../format/entity-references.js';
import { isObjectIdHalves } from '../format/ids.js';
import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';
import { simplifiedRenderer, unloadableReason, UnloadableValueError } from '../inspect/simplified-value.js';
import { checkRecord, isDefect, type RecordDefect } from './record-defects.js';

/**
 * The hot path of checking every record of a storage: `checkRecord`'s verdict without allocating
 * per record. Types whose members are fixed-size or single-level lists (nearly all records: classes,
 * strings, arrays, collections, maps) are checked with a plan compiled once per type: the header's
 * length against the type's bounds, each list header against its element size, the content length
 * against the members' total. Everything else, and every record that fails, goes through
 * `checkRecord` (which builds the full layout and says what is wrong).
 */

const LIST_HEADER = 16;

interface FixedStep {
  readonly size: number;
  /** Offsets of references within the run. */
  readonly refs: readonly number[];
}

interface ListStep {
  readonly elementSize: number;
  /** Offsets of references within one element. */
  readonly refs: readonly number[];
}

type Step = FixedStep | ListStep;

interface Plan {
  readonly entry: TypeEntry;
  /** For value types whose stored form can be invalid (a BigDecimal text, a NaN Double): rebuilds the value. */
  readonly value: ((layout: EntityLayout, objectId: bigint) => string) | undefined;
  /** A quick test of the content `bytes[at…]` that, when true, says `value` would succeed (a plain decimal text). */
  readonly plainValue: ((bytes: Buffer, content: number) => boolean) | undefined;
  /** Undefined: checked and walked through `checkRecord` and the full layout. */
  readonly steps: readonly Step[] | undefined;
  readonly opaque: string | undefined;
}

export type ReferenceSink = (low: number, high: number) => void;

export class RecordChecker {
  private readonly byLowId = new Map<number, Plan>();
  private readonly byId = new Map<bigint, Plan>();
  /** The type of the record checked last (set when `check` returns undefined). */
  entry: TypeEntry | undefined;
  /** Why the record checked last is not decoded (a handler writing another layout than declared). */
  opaque: string | undefined;
  private plan: Plan | undefined;

  constructor(
    private readonly dictionary: TypeDictionary,
    private readonly channelCount: number,
  ) {}

  /**
   * Checks the record at `bytes[at, at + length)` (the newest version of its object, in channel
   * `channel`); undefined when it can be read, else what is wrong.
   */
  check(bytes: Buffer, at: number, length: number, channel: number, where: { readonly file: string; readonly offset: number }): RecordDefect | undefined {
    const tidLow = int32At(bytes, at + 8);
    const tidHigh = int32At(bytes, at + 12);
    const plan = tidHigh === 0 ? this.planByLow(tidLow) : undefined;
    const idLow = int32At(bytes, at + 16);
    const idHigh = int32At(bytes, at + 20);
    const plainObjectId = isObjectIdHalves(idLow, idHigh) && (idLow & (this.channelCount - 1)) === channel;
    if (plan !== undefined && plainObjectId && plan.steps !== undefined && this.fits(plan.steps, bytes, at + 24, at + length)) {
      if (plan.value !== undefined && !(plan.plainValue !== undefined && plan.plainValue(bytes, at + 24))) {
        const problem = valueProblem(plan, bytes.subarray(at, at + length));
        if (problem !== undefined) return problem;
      }
      this.entry = plan.entry;
      this.opaque = plan.opaque;
      this.plan = plan;
      this.layout = undefined;
      return undefined;
    }
    const record = bytes.subarray(at, at + length);
    const result = checkRecord(this.dictionary, record, channel, this.channelCount, where);
    if (isDefect(result)) return result;
    const slowPlan = this.dictionary.byId.get(result.entry.typeId) === result.entry ? this.planOf(result.entry) : undefined;
    if (slowPlan?.value !== undefined) {
      const problem = valueProblem(slowPlan, record);
      if (problem !== undefined) return problem;
    }
    this.entry = result.entry;
    this.opaque = result.opaque;
    this.plan = undefined;
    this.layout = result.layout;
    return undefined;
  }

  /** Reports the references of the record checked last, at `bytes[at…]` (null references included). */
  forEachReference(bytes: Buffer, at: number, sink: ReferenceSink): void {
    if (this.opaque !== undefined) return;
    const steps = this.plan?.steps;
    if (steps === undefined) {
      if (this.layout !== undefined) forEachReference(this.layout, sink);
      return;
    }
    let pos = at + 24;
    for (const step of steps) {
      if ('elementSize' in step) {
        const total = int32At(bytes, pos) >>> 0;
        const end = pos + total;
        if (step.refs.length > 0) {
          for (let e = pos + LIST_HEADER; e < end; e += step.elementSize) {
            for (const r of step.refs) sink(int32At(bytes, e + r), int32At(bytes, e + r + 4));
          }
        }
        pos = end;
      } else {
        for (const r of step.refs) sink(int32At(bytes, pos + r), int32At(bytes, pos + r + 4));
        pos += step.size;
      }
    }
  }

  private layout: ReturnType<typeof layoutEntity> | undefined;

  /** Whether the content `[pos, end)` has exactly the plan's shape. */
  private fits(steps: readonly Step[], bytes: Buffer, pos: number, end: number): boolean {
    for (const step of steps) {
      if ('elementSize' in step) {
        if (pos + LIST_HEADER > end) return false;
        if (int32At(bytes, pos + 4) !== 0 || int32At(bytes, pos + 12) !== 0) return false;
        const total = int32At(bytes, pos) >>> 0;
        const count = int32At(bytes, pos + 8) >>> 0;
        if (total !== LIST_HEADER + count * step.elementSize || pos + total > end) return false;
        pos += total;
      } else {
        pos += step.size;
        if (pos > end) return false;
      }
    }
    return pos === end;
  }

  private planByLow(typeIdLow: number): Plan | undefined {
    let plan = this.byLowId.get(typeIdLow);
    if (plan === undefined) {
      const entry = this.dictionary.byId.get(BigInt(typeIdLow >>> 0));
      if (entry === undefined) return undefined;
      plan = this.planOf(entry);
      this.byLowId.set(typeIdLow, plan);
    }
    return plan;
  }

  private planOf(entry: TypeEntry): Plan {
    let plan = this.byId.get(entry.typeId);
    if (plan === undefined) {
      plan = compilePlan(entry, this.dictionary);
      this.byId.set(entry.typeId, plan);
    }
    return plan;
  }
}

/**
 * Value types whose stored text the JDK parses when MicroStream loads them (`new BigDecimal(text)`,
 * `Locale.forLanguageTag`, `Currency.getInstance`, a Path's URI, the java.time handlers' checks): a
 * damaged text fails the load. The REST renderer of the type, which emulates that, says whether it
 * parses. Strings, wrappers, dates and the like always load and are not looked at.
 */
const VALUE_CHECKED = new Set([
  'java.math.BigDecimal',
  'java.util.Locale',
  'java.util.Currency',
  'java.nio.file.Path',
  'java.time.ZoneOffset',
  'java.time.LocalDate',
  'java.time.YearMonth',
  'java.time.MonthDay',
  'java.time.Period',
]);

function valueProblem(plan: Plan, record: Buffer): RecordDefect | undefined {
  const objectId = record.readBigInt64LE(16);
  try {
    plan.value!(layoutEntity(plan.entry, record.subarray(24)), objectId);
    return undefined;
  } catch (error) {
    // A NaN Double, a Void, an unknown class id: the REST service cannot show them, but the
    // application loads them. A text the JDK cannot parse fails the application's load as well.
    if (error instanceof UnloadableValueError) return undefined;
    if (!isAppError(error) && !(error instanceof JavaValueError)) throw error;
    return {
      kind: 'unreadable',
      refusesStart: false,
      java: undefined,
      message: `object ${objectId} (${plan.entry.typeName}) holds a value Java cannot rebuild: ${error.message}`,
    };
  }
}

/** Longest BigDecimal text `plainDecimal` accepts (beyond it the full parse decides). */
const PLAIN_DECIMAL_CHARS = 400;

/**
 * Whether the chars member at `content` (list header, then UTF-16 units) is a plain decimal text,
 * `[+-]?digits[.digits]` in ASCII: `new BigDecimal(text)` takes every such text (its scale is at most
 * its length), so the full parse and rebuild (`value`) is needed only for the others (exponents,
 * other digits, damage). Most stored BigDecimals are plain, and the parse cost the check a
 * third of its record walk on the benchmark storage.
 */
export function plainDecimal(bytes: Buffer, content: number): boolean {
  const count = int32At(bytes, content + 8) >>> 0;
  if (count === 0 || count > PLAIN_DECIMAL_CHARS) return false;
  let at = content + LIST_HEADER;
  const end = at + count * 2;
  let c = bytes.readUInt16LE(at);
  if (c === 0x2d /* - */ || c === 0x2b /* + */) at += 2;
  let digitsBefore = 0;
  let digitsAfter = 0;
  let dot = false;
  for (; at < end; at += 2) {
    c = bytes.readUInt16LE(at);
    if (c >= 0x30 && c <= 0x39) {
      if (dot) digitsAfter++;
      else digitsBefore++;
    } else if (c === 0x2e /* . */ && !dot) {
      dot = true;
    } else {
      return false;
    }
  }
  return digitsBefore > 0 && (!dot || digitsAfter > 0);
}

function compilePlan(entry: TypeEntry, dictionary: TypeDictionary): Plan {
  const render = VALUE_CHECKED.has(entry.typeName) ? simplifiedRenderer(entry, dictionary) : undefined;
  const value = render === undefined ? undefined : (layout: EntityLayout, objectId: bigint): string => render(layout, { dictionary, timeZone: UTC, objectId });
  // BigDecimal's handler stores one member, the text (BinaryHandlerBigDecimal).
  const onlyChars = entry.fields.length === 1 && entry.fields[0]!.kind === 'chars';
  const plainValue = render !== undefined && entry.typeName === 'java.math.BigDecimal' && onlyChars ? plainDecimal : undefined;
  const opaque = unloadableReason(entry);
  if (opaque !== undefined) return { entry, value: undefined, plainValue: undefined, steps: undefined, opaque };
  const steps: Step[] = [];
  let run: { size: number; refs: number[] } | undefined;
  for (const field of entry.fields) {
    const size = fixedSizeOf(field);
    if (size !== undefined) {
      run ??= { size: 0, refs: [] };
      if (field.kind === 'reference') run.refs.push(run.size);
      run.size += size;
      continue;
    }
    if (run !== undefined) steps.push(run);
    run = undefined;
    if (field.kind === 'chars') steps.push({ elementSize: 2, refs: [] });
    else if (field.kind === 'bytes') steps.push({ elementSize: 1, refs: [] });
    else if (field.kind === 'list' && field.elements.every((e) => fixedSizeOf(e) !== undefined)) {
      const refs: number[] = [];
      let at = 0;
      for (const element of field.elements) {
        if (element.kind === 'reference') refs.push(at);
        at += fixedSizeOf(element)!;
      }
      // An element size of 0 would let any count pass; leave such lists to the full layout.
      if (at === 0) return { entry, value, plainValue: undefined, steps: undefined, opaque: undefined };
      steps.push({ elementSize: at, refs });
    } else {
      return { entry, value, plainValue: undefined, steps: undefined, opaque: undefined }; // nested variable-size members
    }
  }
  if (run !== undefined) steps.push(run);
  return { entry, value, plainValue, steps, opaque: undefined };
}
