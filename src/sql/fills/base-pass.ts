import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { isAppError } from '../../errors.js';
import { layoutEntity, type EntityLayout } from '../../format/entity-layout.js';
import type { TypeEntry } from '../../format/type-dictionary.js';
import { forEachLatestRecord, type LatestHeaderVisitor, type LatestRecord, type RecordPassProgress } from '../../storage/records/latest-records.js';
import { SmallIdMap, SmallIdSet, smallIdsOf } from '../../storage/records/small-id-table.js';
import type { Storage } from '../../storage/storage.js';
import type { DuckModule } from '../duck-module.js';
import { ChunkAppender, inOneTransaction } from '../tables/chunk-appender.js';
import { planTypeTable, valueKindOfEntry, type TypeTablePlan, type ValueKind } from '../tables/column-model.js';
import { appendEntity } from '../tables/entity-rows.js';
import { createStaging, stagedWithBase, type Staging } from '../tables/staging.js';
import { charsOfContent, DecimalShapes, plainDecimalAt, textFromChars, type PlainDecimal } from '../tables/value-records.js';
import type { LinkType } from './link-tables.js';
import { appendPlainText, appendText, appendValue, inBaseValues } from './value-fill.js';
import { appendWhereItLies } from './fill-target.js';
import type { PrestagedTarget, PrestagedTypes } from './prestaged-types.js';

/**
 * The pass of table-build.ts over the latest record of every object: what it learns per type
 * (`perType`), what it appends (`_values`, the staging tables) and counts. What is kept per type
 * is its plan and at most one appender; per object nothing.
 */

/** What the pass knows of a type id: a value type's kind, or an entity type's plan and (made with the base tables) staging. */
export interface PerType {
  readonly entry: TypeEntry;
  readonly value: ValueKind | undefined;
  readonly plan: TypeTablePlan | undefined;
  readonly staging: Staging | undefined;
  readonly columns: Int32Array | undefined;
  /** A String or BigDecimal: its text made where its record lies (value-records.ts `textFromChars`). */
  readonly fromChars: ((chars: string) => string) | undefined;
  /** A value type whose rows are made when a statement first needs them (value-fill.ts): passed over here. */
  readonly later: boolean;
  /** An entity type the first statement names: its rows staged here for its fill (prestaged-types.ts). */
  readonly prestaged: PrestagedTarget | undefined;
}

export interface BasePassOptions {
  readonly onProgress?: ((progress: RecordPassProgress) => void) | undefined;
  /** Receives one message per unreadable record (file and offset); the rest is still built. */
  readonly onProblem?: ((message: string) => void) | undefined;
  /** Every value type's `_values` rows, not only those the base tables need (value-fill.ts `inBaseValues`). */
  readonly everyValue?: boolean | undefined;
  /** These value types' rows too (those the first statement needs: prestaged-types.ts `valuesNeeded`). */
  readonly valuesToo?: ReadonlySet<bigint> | undefined;
}

export class BasePass {
  readonly stagings = new Map<string, Staging>();
  /** Entity types whose tables are filled when a statement first names them. */
  readonly deferred = new Map<string, TypeTablePlan>();
  readonly perType = new Map<bigint, PerType | null>();
  /** `perType` of the type ids below 2^32 by number: what the header visitor asks per record (by index: small-id-table.ts). */
  private readonly perSmallType: SmallIdMap<PerType | null>;
  readonly shapes = new DecimalShapes();
  /** Where the last BigDecimal `plainDecimalAt` took lies (one object for the pass). */
  private readonly plain: PlainDecimal = { at: 0, count: 0, digits: 0, scale: 0 };
  problems = 0;
  /** Current objects of the dictionary's types (what `_objects` will hold), once the pass has run. */
  objects = 0;
  /**
   * Type ids (below 2^32) whose records the pass no longer takes: types it does not decode, once
   * their first latest record told it the type has objects (its table, its plan). Their other
   * records are passed over before the index is asked whether they are latest: 10M objects, 8M
   * of them of such types, the pass's JavaScript thread 810-850 -> 460-520 ms of CPU.
   */
  private readonly passedOver: SmallIdSet;
  /** Latest records of type ids the dictionary lacks (no table; not among `objects`). */
  private unknownLatest = 0;
  /** Type ids in the order of their first latest record: `perType`'s order, whoever learnt them. */
  private readonly firstMet = new Map<bigint, number>();
  /** Type ids (below 2^32) not learnt yet whose records go to the handler (they make rows). */
  private readonly toHandler = new Set<number>();

  private constructor(
    private readonly duck: DuckModule,
    private readonly connection: DuckDBConnection,
    private readonly storage: Storage,
    private readonly options: BasePassOptions,
    /** `_values`, made by the caller before the pass. */
    private readonly values: ChunkAppender,
    /** The big numbers' `_values` rows, staged apart (table-build.ts `BigNumbersApart`, made by the caller). */
    private readonly bigNumbers: ChunkAppender,
    /** The staging tables of the types the first statement names (made by the caller, which closes them after the pass). */
    private readonly prestaged: PrestagedTypes | undefined,
  ) {
    const ids = smallIdsOf(storage.dictionary.byId.keys());
    this.perSmallType = new SmallIdMap(ids);
    this.passedOver = new SmallIdSet(ids);
  }

  /** A pass appending to `_values` and, the big numbers, to `bigNumbers` (a table of the same shape, table-build.ts `BigNumbersApart`; closed with the others). */
  static async open(duck: DuckModule, connection: DuckDBConnection, storage: Storage, options: BasePassOptions, bigNumbers: DuckDBAppender, prestaged?: PrestagedTypes): Promise<BasePass> {
    return new BasePass(duck, connection, storage, options, new ChunkAppender(duck, await connection.createAppender('_values')), new ChunkAppender(duck, bigNumbers), prestaged);
  }

  /** Every latest record once, in one transaction; the appenders closed after it. */
  async run(): Promise<void> {
    await inOneTransaction(this.connection, async () => {
      try {
        // Every record is appended (texts made, blobs copied) before its handler settles: borrowed.
        await forEachLatestRecord(this.storage, this.takes, this.handle, this.options.onProgress, true, this.visit);
      } finally {
        for (const appender of [this.values, this.bigNumbers, ...[...this.stagings.values()].map((s) => s.appender)]) appender.closeSync();
      }
    });
    // Every object's latest record is one the index holds (the pass no longer meets each).
    this.objects = this.storage.entityCount - this.unknownLatest;
    // In the order their first records lie (the order of the link tables' member names, of a
    // table's type ids), as when the handler learnt every type.
    const learnt = [...this.perType].sort((a, b) => (this.firstMet.get(a[0]) ?? Infinity) - (this.firstMet.get(b[0]) ?? Infinity));
    this.perType.clear();
    for (const [typeId, type] of learnt) this.perType.set(typeId, type);
  }

  /** Which records the pass takes, asked before the index: all but those of `passedOver` types. */
  private readonly takes = (typeLow: number, typeHigh: number): boolean => typeHigh !== 0 || !this.passedOver.has(typeLow >>> 0);

  /** A problem of the storage's (an unreadable record): counted, told, and the build goes on. */
  problem(message: string): void {
    this.problems++;
    this.options.onProblem?.(message);
  }

  /** The entity types the pass met, for the pass that fills `_elements` and `_references`. */
  linkTypes(): Map<bigint, LinkType> {
    const linkTypes = new Map<bigint, LinkType>();
    for (const [typeId, t] of this.perType) if (t !== null && t.plan !== undefined && t.columns !== undefined) linkTypes.set(typeId, { entry: t.entry, plan: t.plan, fieldOfColumn: t.columns });
    return linkTypes;
  }

  /**
   * Only value types and staged entities are decoded, Strings and BigDecimals right here, where
   * their record lies, without a record object, bigint or layout (10M objects: base tables 8.5
   * -> 6.0-6.2 s); every other record is passed over having been counted.
   */
  private readonly visit: LatestHeaderVisitor = (idLow, idHigh, typeLow, typeHigh, _file, _offset, length, view, contentAt) => {
    let type = typeHigh === 0 ? this.perSmallType.get(typeLow >>> 0) : undefined;
    if (type === undefined) {
      // A type not met yet: a type whose records make no rows here is learnt at once; one that
      // does (and a type id of 2^32 and more) goes to the handler, which learns it, so that its
      // rows keep the order they had (a chunk's rows made here come before those its handler makes).
      const typeId = typeHigh === 0 ? BigInt(typeLow >>> 0) : (BigInt(typeHigh) << 32n) | BigInt(typeLow >>> 0);
      if (!this.firstMet.has(typeId)) this.firstMet.set(typeId, this.firstMet.size);
      if (typeHigh !== 0 || this.toHandler.has(typeLow >>> 0)) return true;
      type = this.typeNow(typeId);
      if (type === undefined) {
        this.toHandler.add(typeLow >>> 0);
        return true;
      }
    }
    if (type === null) {
      this.unknownLatest++;
      return false;
    }
    if (type.later) return false;
    if (type.prestaged !== undefined) return appendWhereItLies(type.prestaged, view, contentAt, length, idLow, idHigh, typeLow, typeHigh);
    if (type.fromChars !== undefined) {
      // A BigDecimal stored as Java writes it (an application's prices): taken as it lies, no
      // string, parse or bigint made (10M objects, 1.79M prices: base pass 2.9-3.1 -> 1.9-2.3 s of CPU).
      if (type.value === 'decimal' && plainDecimalAt(view, contentAt, length - 24, this.plain)) {
        this.shapes.notePlain(type.entry.typeName, this.plain.digits, this.plain.scale);
        appendPlainText(this.bigNumbers, idLow, idHigh, typeLow, typeHigh, view, this.plain.at, this.plain.count);
        return false;
      }
      const chars = charsOfContent(view, contentAt, length - 24);
      // Not the usual shape: the handler's layout says what is wrong with it.
      if (chars === undefined) return true;
      let text: string;
      try {
        text = type.fromChars(chars);
      } catch {
        return true; // a text Java cannot read as a number: the handler's renderer decides
      }
      if (type.value === 'decimal') this.shapes.note(type.entry.typeName, text);
      appendText(type.value === 'decimal' ? this.bigNumbers : this.values, idLow, idHigh, typeLow, typeHigh, text);
      return false;
    }
    return type.value !== undefined || type.staging !== undefined;
  };

  private readonly handle = (record: LatestRecord): Promise<void> | void => {
    const known = this.perType.get(record.typeId);
    if (known === undefined) return this.typeOf(record.typeId).then((type) => this.append(record, type));
    this.append(record, known);
  };

  private append(record: LatestRecord, type: PerType | null): void {
    if (type === null) {
      this.unknownLatest++;
      return;
    }
    const prestaged = type.prestaged;
    // An entity whose table is filled later is not decoded now (type-fill.ts does, and reports its problems).
    if (type.later || (type.value === undefined && type.staging === undefined && prestaged === undefined)) return;
    let layout: EntityLayout;
    try {
      layout = layoutEntity(type.entry, record.content, { file: record.file, offset: record.offset + 24 });
    } catch (error) {
      if (!isAppError(error)) throw error;
      // A prestaged type's problem is its fill's, told if its rows are taken (not the build's).
      if (prestaged !== undefined) prestaged.type.problems.push(error.message);
      else this.problem(error.message);
      return;
    }
    if (prestaged !== undefined) {
      appendEntity(prestaged.staging, prestaged.columns, record, layout);
      return;
    }
    if (type.value !== undefined) {
      appendValue(type.value === 'decimal' ? this.bigNumbers : this.values, record, layout, type.value, this.storage.dictionary, this.shapes);
      return;
    }
    appendEntity(type.staging!, type.columns!, record, layout);
  }

  /** What the pass does with a type id's records, learnt when its first record is met. */
  private async typeOf(typeId: bigint): Promise<PerType | null> {
    const known = this.perType.has(typeId) ? this.perType.get(typeId)! : this.typeNow(typeId, false);
    if (known !== undefined) return known;
    // A type staged with the base tables met first: its staging table is made before its rows.
    const entry = this.storage.dictionary.byId.get(typeId)!;
    const plan = planTypeTable(entry.typeName, this.storage.dictionary.entries.filter((e) => e.typeName === entry.typeName), this.storage.dictionary);
    const staging = await createStaging(this.duck, this.connection, plan, `__stage_${this.stagings.size}`);
    this.stagings.set(entry.typeName, staging);
    return this.learnt(typeId, entry, undefined, plan, staging);
  }

  /**
   * What the pass does with a type id's records, learnt when its first record is met, where no
   * table must be made first (every type but one staged with the base tables met for the first
   * time: undefined, `typeOf` learns it): the header visitor learns it at once. Handed to the
   * handler instead, every latest record of a type not learnt yet became a record object with
   * two bigints until the end of its chunk: all of the first chunk's 110,000 at 10M, 25 MB and
   * 0.15 s of garbage collection.
   */
  private typeNow(typeId: bigint, rowless = true): PerType | null | undefined {
    const dictionary = this.storage.dictionary;
    const entry = dictionary.byId.get(typeId);
    if (entry === undefined) {
      this.remember(typeId, null);
      return null;
    }
    const value = valueKindOfEntry(entry, dictionary);
    if (value !== undefined) return rowless && !this.isLater(entry, value) ? undefined : this.learnt(typeId, entry, value, undefined, undefined);
    const staging = this.stagings.get(entry.typeName);
    if (staging !== undefined) return rowless ? undefined : this.learnt(typeId, entry, undefined, staging.plan, staging);
    let plan = this.deferred.get(entry.typeName);
    if (plan === undefined) {
      plan = this.prestaged?.planOf(entry.typeName) ?? planTypeTable(entry.typeName, dictionary.entries.filter((e) => e.typeName === entry.typeName), dictionary);
      if (stagedWithBase(plan)) return undefined;
      this.deferred.set(entry.typeName, plan);
    }
    return this.learnt(typeId, entry, undefined, plan, undefined);
  }

  /** A value type whose rows the base pass leaves for later (value-fill.ts). */
  private isLater(entry: TypeEntry, value: ValueKind): boolean {
    return this.options.everyValue !== true && !inBaseValues(entry.typeName, value) && this.options.valuesToo?.has(entry.typeId) !== true;
  }

  private learnt(typeId: bigint, entry: TypeEntry, value: ValueKind | undefined, plan: TypeTablePlan | undefined, staging: Staging | undefined): PerType {
    const later = value !== undefined && this.isLater(entry, value);
    // Staged for the first statement only where its table is filled later (not with the base tables).
    const prestaged = plan !== undefined && staging === undefined ? this.prestaged?.targetOf(entry, plan) : undefined;
    const known: PerType = { entry, value, plan, staging, columns: plan?.fieldOfColumn.get(typeId), fromChars: value === 'text' || value === 'decimal' ? textFromChars(entry) : undefined, later, prestaged };
    this.remember(typeId, known);
    return known;
  }

  private remember(typeId: bigint, type: PerType | null): void {
    this.perType.set(typeId, type);
    if (typeId < 0n || typeId >= 1n << 32n) return;
    this.perSmallType.set(Number(typeId), type);
    // Known to have objects, and not decoded here: its other records are not asked about.
    if (type !== null && (type.later || (type.value === undefined && type.staging === undefined && type.prestaged === undefined))) this.passedOver.add(Number(typeId));
  }
}
