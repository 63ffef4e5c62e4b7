import { membersNamed, type TypeTablePlan } from './tables/column-model.js';

/**
 * What a build of the tables (built-tables.ts) has filled since, or is filling: per entity
 * type's table, per value type's `_values` rows, `_objects`, `_commits`, the link tables; and
 * under which names the table cache keeps that (`filled`). A fill under way is its promise, so
 * that a second statement waits for it instead of filling again.
 */

/** What `filled` names besides type names: with a colon, which no Java type name has. */
const FILLED_OBJECTS = ':objects';
const FILLED_COMMITS = ':commits';
const FILLED_LINKS = ':links';
/** What `filled` names for a value type's `_values` rows made after the build: this and its type id. */
const FILLED_VALUES = ':values:';
/**
 * What `filled` names for a type table filled with some of its members: this, the members'
 * column indexes, a colon and the type name (`:members:2,3:gen.Book`). The last such name of a
 * type says what its table holds (a fill that failed may have left fewer than an earlier one).
 */
const FILLED_MEMBERS = ':members:';

/** A fill of some type tables: the plans to fill, the members each leaves NULL, the value types whose rows it needs first. */
export interface TypeFillPlan {
  readonly missing: TypeTablePlan[];
  readonly skipped: Map<TypeTablePlan, ReadonlySet<number>>;
  readonly before: Promise<unknown>[];
  readonly valueIds: Set<bigint>;
}

export class FillLedger {
  /** Per full type name: its table filled (or being filled), with some or all of its members. */
  readonly fills = new Map<string, Promise<boolean>>();
  /**
   * Per full type name in `fills`: the members (column indexes) its rows have, or undefined for
   * all. A table with fewer is partial: filled again, with what it has and what the statement
   * names, for a statement that names another of its members; `filled` names a complete table by
   * its type name, a partial one with its members (FILLED_MEMBERS), so that a run taking the
   * tables from the cache knows which members they hold.
   */
  readonly members = new Map<string, ReadonlySet<number> | undefined>();
  /** Per value type id made after the build (value-fill.ts): its `_values` rows made (or being made). */
  readonly valueFills = new Map<bigint, Promise<boolean>>();
  /** `_elements` and `_references` filled (or being filled). */
  links: Promise<boolean> | undefined;
  /** `_objects` filled (or being filled). */
  objects: Promise<boolean> | undefined;
  /** `_commits` filled (or being filled). */
  commits: Promise<boolean> | undefined;
  /** Tables filled since the build: type names, and the names above. */
  readonly filled = new Set<string>();

  /** A database kept with the names `filled` (table-cache.ts): those tables are there already. */
  restore(filled: readonly string[]): void {
    for (const name of filled) {
      this.filled.add(name);
      const done = Promise.resolve(true);
      if (name === FILLED_OBJECTS) this.objects = done;
      else if (name === FILLED_COMMITS) this.commits = done;
      else if (name === FILLED_LINKS) this.links = done;
      else if (name.startsWith(FILLED_VALUES)) this.valueFills.set(BigInt(name.slice(FILLED_VALUES.length)), done);
      else if (name.startsWith(FILLED_MEMBERS)) {
        const rest = name.slice(FILLED_MEMBERS.length);
        const colon = rest.indexOf(':');
        const typeName = rest.slice(colon + 1);
        // A complete table stays complete; of partial ones the last named is what the table holds.
        if (this.members.has(typeName) && this.members.get(typeName) === undefined) continue;
        this.fills.set(typeName, done);
        this.members.set(typeName, new Set(rest.slice(0, colon).split(',').filter((i) => i !== '').map(Number)));
      } else {
        this.fills.set(name, done);
        this.members.set(name, undefined);
      }
    }
  }

  /** Value types whose `_values` rows the build made itself (`everyValue`). */
  valuesMade(typeIds: Iterable<bigint>): void {
    for (const id of typeIds) {
      this.valueFills.set(id, Promise.resolve(true));
      this.filled.add(`${FILLED_VALUES}${id}`);
    }
  }

  /** The `_values` rows of `typeIds` being made by `pass`. */
  valuesFilling(typeIds: ReadonlySet<bigint>, pass: Promise<boolean>): Promise<boolean> {
    const settled = forgottenUnlessDone(
      pass,
      () => typeIds.forEach((id) => this.valueFills.delete(id)),
      () => typeIds.forEach((id) => this.filled.add(`${FILLED_VALUES}${id}`)),
    );
    for (const id of typeIds) this.valueFills.set(id, settled);
    return settled;
  }

  /**
   * What a fill of `plans` for a statement naming `columns` (undefined: any) has to do, the
   * tables noted as being filled with the members it gives them; `laterValueIds` the value types
   * a value member's rows may be of.
   */
  planTypeFill(plans: ReadonlySet<TypeTablePlan>, columns: ReadonlySet<string> | undefined, laterValueIds: (declared: string) => Iterable<bigint>): TypeFillPlan {
    const missing: TypeTablePlan[] = [];
    const skipped = new Map<TypeTablePlan, ReadonlySet<number>>();
    const before: Promise<unknown>[] = [];
    const valueIds = new Set<bigint>();
    for (const plan of plans) {
      const all = membersNamed(plan, undefined);
      const wanted = membersNamed(plan, columns);
      const filling = this.fills.has(plan.typeName);
      const has = filling ? this.members.get(plan.typeName) : new Set<number>();
      if (filling && (has === undefined || [...wanted].every((i) => has.has(i)))) continue;
      // What the table will have: what it had and what this statement names.
      const next = new Set([...(has ?? all), ...wanted]);
      const skip = new Set([...all].filter((i) => !next.has(i)));
      for (const i of next) {
        const role = plan.columns[i]!.role;
        if (role.kind === 'value') for (const id of laterValueIds(role.declared)) valueIds.add(id);
      }
      const previous = this.fills.get(plan.typeName);
      if (previous !== undefined) before.push(previous.catch(() => undefined));
      missing.push(plan);
      skipped.set(plan, skip);
      this.members.set(plan.typeName, skip.size === 0 ? undefined : next);
    }
    return { missing, skipped, before, valueIds };
  }

  /** The tables of `fill` being filled by `pass`. */
  typesFilling(fill: TypeFillPlan, pass: Promise<boolean>): void {
    const settled = forgottenUnlessDone(
      pass,
      () =>
        fill.missing.forEach((plan) => {
          if (this.fills.get(plan.typeName) !== settled) return;
          this.fills.delete(plan.typeName);
          this.members.delete(plan.typeName);
        }),
      () =>
        fill.missing.forEach((plan) => {
          const skipped = fill.skipped.get(plan)!;
          if (skipped.size === 0) {
            this.filled.add(plan.typeName);
            return;
          }
          const kept = plan.columns.flatMap((_, i) => (skipped.has(i) ? [] : [i]));
          const name = `${FILLED_MEMBERS}${kept.join(',')}:${plan.typeName}`;
          // Last, even when named before (a fill that failed since may have left fewer members).
          this.filled.delete(name);
          this.filled.add(name);
        }),
    );
    for (const plan of fill.missing) this.fills.set(plan.typeName, settled);
  }

  /**
   * The link tables kept as the Parquet files an export wrote (built-tables.ts `linkFiles`), not
   * filled here: the entry names them filled, and a run taking it reads them through views.
   */
  linksKeptAsFiles(): void {
    this.filled.add(FILLED_LINKS);
  }

  /** The link tables kept as files could not be taken (a damaged cache entry): not filled, to be filled anew. */
  linksLost(): void {
    this.links = undefined;
    this.filled.delete(FILLED_LINKS);
  }

  linksFilling(pass: () => Promise<boolean>): Promise<boolean> {
    this.links ??= forgottenUnlessDone(pass(), () => (this.links = undefined), () => this.filled.add(FILLED_LINKS));
    return this.links;
  }

  objectsFilling(pass: () => Promise<boolean>): Promise<boolean> {
    this.objects ??= forgottenUnlessDone(pass(), () => (this.objects = undefined), () => this.filled.add(FILLED_OBJECTS));
    return this.objects;
  }

  commitsFilling(pass: () => Promise<boolean>): Promise<boolean> {
    this.commits ??= forgottenUnlessDone(pass(), () => (this.commits = undefined), () => this.filled.add(FILLED_COMMITS));
    return this.commits;
  }
}

/** `pass` as it settles, calling `forget` unless it was done, so that a later statement tries again; `remember` when it was. */
function forgottenUnlessDone(pass: Promise<boolean>, forget: () => void, remember: () => void): Promise<boolean> {
  return pass.then(
    (done) => {
      if (done) remember();
      else forget();
      return done;
    },
    (error: unknown) => {
      forget();
      throw error;
    },
  );
}
