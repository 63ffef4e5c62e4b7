import type { GraphIndex } from '../graph/model/graph-index.js';
import { GraphService } from '../graph/graph-service.js';
import { forEachLatestRecord } from '../storage/records/latest-records.js';
import { describeObjectView } from '../inspect/object-view.js';
import { referenceInfos } from '../inspect/reference-info.js';
import { lookUpType } from '../inspect/type-names.js';
import { UTC } from '../javatext/java-time-zones.js';
import { openStorageSource } from '../storage/open-source.js';
import { Storage } from '../storage/storage.js';
import type { SqlEngine } from '../sql/sql-engine.js';
import type { JsonCell } from '../sql/answers/result-values.js';
import { storedObject, type StoredObject } from './typed-values.js';

/**
 * storage-inspector as a library: open a MicroStream or EclipseStore storage (a directory, or one
 * kept in PostgreSQL) without a JVM and read it — its root, an object by id, a type's instances,
 * SQL over every type as a table. Read-only: nothing in the storage is created, changed or locked.
 *
 *     import { openStorage } from 'storage-inspector';
 *     const storage = await openStorage('./storage');
 *     try {
 *       const root = await storage.root();
 *       for await (const book of storage.instances('Book')) console.log(book.id, book.values.title);
 *       const { rows } = await storage.sql('SELECT genre, count(*) FROM Book GROUP BY genre');
 *     } finally {
 *       await storage.close();
 *     }
 */

export type { Member, Reference, StoredObject, Value } from './typed-values.js';
export type { JsonCell } from '../sql/answers/result-values.js';

export interface OpenStorageOptions {
  /** A storage kept in a database: its root table (`ms_graph`, `storage`), unless the spec names it after `#` (SQLite, MariaDB: optional for a database holding one storage). */
  readonly table?: string;
  /** A storage kept in PostgreSQL or MariaDB: a file whose first line is the password (else PGPASSWORD, ~/.pgpass; MariaDB ~/.my.cnf). */
  readonly passwordFile?: string;
  /** Follow symbolic links of the storage directory that lead outside it (refused by default). */
  readonly allowExternalLinks?: boolean;
  /** Refuse a larger type dictionary (default 64 MiB). */
  readonly maxDictionaryBytes?: number;
  /** Limits of `sql()`: a statement running longer is interrupted (default 30,000 ms; 0: never)… */
  readonly sqlTimeoutMs?: number;
  /** …and the memory DuckDB may use before it spills to a temporary directory (default 1 GiB). */
  readonly sqlMemoryLimitBytes?: number;
}

export interface ObjectOptions {
  /** The window over the elements of list and byte-array members: from this element… */
  readonly elementOffset?: number;
  /** …at most this many (default 1,000). */
  readonly elementLimit?: number;
}

export interface SqlOptions {
  /** Rows at most in the answer (default 1,000); `truncated` says when there were more. */
  readonly limit?: number;
  readonly signal?: AbortSignal;
}

export interface SqlResult {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  /** BIGINT, HUGEINT and DECIMAL values as decimal strings, timestamps ISO-8601, NULL as null. */
  readonly rows: readonly (readonly JsonCell[])[];
  readonly rowCount: number;
  readonly truncated: boolean;
  readonly elapsedMs: number;
}

export interface InspectedStorage {
  /** `microstream` or `eclipsestore`, from the type dictionary. */
  readonly family: 'microstream' | 'eclipsestore';
  /** The object id of the root (0n when no root is stored). */
  readonly rootId: bigint;
  /** The root object, as `object(rootId)`. */
  root(options?: ObjectOptions): Promise<StoredObject | undefined>;
  /** The latest version of an object, or undefined when no object has this id. */
  object(id: bigint | string, options?: ObjectOptions): Promise<StoredObject | undefined>;
  /**
   * Every instance of a type (its full name, its simple name when only one type has it, or a type
   * id), all versions of the type, in file order, one read at a time: memory stays constant.
   * Leaving the loop early (`break`) ends the pass.
   */
  instances(type: string | bigint, options?: ObjectOptions): AsyncIterableIterator<StoredObject>;
  /** One read-only SQL statement over the storage's tables (see docs/sql.md). */
  sql(statement: string, options?: SqlOptions): Promise<SqlResult>;
  /** Closes the files, the database connection and the SQL engine. */
  close(): Promise<void>;
}

const DEFAULT_ELEMENT_LIMIT = 1000;
/** A referenced JDK value's text is whole: it is the value a Java program would read. */
const REFERENCE_TEXT_LIMIT = Number.MAX_SAFE_INTEGER;

/** Opens a storage: a directory, `postgres://user@host:port/db` or `mariadb://user@host:port/db` with `table`, or a SQLite file (`sqlite:PATH`). */
export async function openStorage(location: string, options: OpenStorageOptions = {}): Promise<InspectedStorage> {
  const source = openStorageSource(location, {
    ...(options.table === undefined ? {} : { table: options.table }),
    ...(options.passwordFile === undefined ? {} : { passwordFile: options.passwordFile }),
    allowExternalLinks: options.allowExternalLinks === true,
  });
  const storage = await Storage.open(source, {
    allowExternalLinks: options.allowExternalLinks === true,
    ...(options.maxDictionaryBytes === undefined ? {} : { maxDictionaryBytes: options.maxDictionaryBytes }),
  });
  return new OpenedStorage(storage, options);
}

/** Thrown into a pass over the instances to end it when the loop was left. */
class PassEnded extends Error {}

class OpenedStorage implements InspectedStorage {
  private graph: GraphService | undefined;
  private engine: Promise<SqlEngine> | undefined;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly options: OpenStorageOptions,
  ) {}

  get family(): 'microstream' | 'eclipsestore' {
    return this.storage.family.name;
  }

  get rootId(): bigint {
    return this.storage.rootObjectId;
  }

  root(options?: ObjectOptions): Promise<StoredObject | undefined> {
    return this.object(this.storage.rootObjectId, options);
  }

  async object(id: bigint | string, options: ObjectOptions = {}): Promise<StoredObject | undefined> {
    this.checkOpen();
    const objectId = typeof id === 'bigint' ? id : parseId(id);
    const entity = await this.storage.readEntity(objectId);
    if (entity === undefined) return undefined;
    return this.view({ objectId, typeId: entity.typeId, content: entity.content, file: entity.file, offset: entity.offset }, options);
  }

  instances(type: string | bigint, options: ObjectOptions = {}): AsyncIterableIterator<StoredObject> {
    this.checkOpen();
    const typeIds = this.typeIds(type);
    // The pass pushes records, the loop pulls them: a record read waits until the loop asks for
    // it (one ahead at most), so memory stays constant however slow the loop is.
    let pending: { readonly object: StoredObject; readonly taken: () => void } | undefined;
    let waiter: { readonly resolve: (result: IteratorResult<StoredObject>) => void; readonly reject: (error: unknown) => void } | undefined;
    let finished = false;
    let failure: { readonly error: unknown } | undefined;
    let stop = false;
    let pass: Promise<void> | undefined;
    const settle = (): void => {
      const w = waiter;
      if (w === undefined) return;
      if (pending !== undefined) {
        const p = pending;
        pending = undefined;
        waiter = undefined;
        p.taken();
        w.resolve({ value: p.object, done: false });
      } else if (failure !== undefined) {
        waiter = undefined;
        w.reject(failure.error);
      } else if (finished) {
        waiter = undefined;
        w.resolve({ value: undefined, done: true });
      }
    };
    const start = (): void => {
      pass ??= forEachLatestRecord(this.storage, typeIds, async (record) => {
        if (stop || this.closed) throw new PassEnded();
        const object = await this.view(record, options);
        await new Promise<void>((taken) => {
          pending = { object, taken };
          settle();
        });
        if (stop) throw new PassEnded();
      }).then(
        () => {
          finished = true;
          settle();
        },
        (error: unknown) => {
          finished = true;
          if (!(error instanceof PassEnded)) failure = { error };
          settle();
        },
      );
    };
    const iterator: AsyncIterableIterator<StoredObject> = {
      next: () =>
        new Promise<IteratorResult<StoredObject>>((resolve, reject) => {
          if (waiter !== undefined) throw new Error('instances(): call next() again only after the last call settled');
          waiter = { resolve, reject };
          start();
          settle();
        }),
      return: async () => {
        stop = true;
        const p = pending;
        pending = undefined;
        p?.taken();
        await pass;
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async sql(statement: string, options: SqlOptions = {}): Promise<SqlResult> {
    this.checkOpen();
    const engine = await (this.engine ??= this.startEngine());
    return engine.query(statement, { limit: options.limit ?? 1000, ...(options.signal === undefined ? {} : { signal: options.signal }) });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const engine = await this.engine?.catch(() => undefined);
    engine?.close();
    this.graph?.close();
    await this.storage.close();
  }

  private async startEngine(): Promise<SqlEngine> {
    // Loaded with the first statement only: DuckDB is the heavy part of the package.
    const { SqlEngine } = await import('../sql/sql-engine.js');
    this.graph ??= new GraphService(this.storage);
    const graph = this.graph;
    return new SqlEngine({
      storage: this.storage,
      graph: (): Promise<GraphIndex> => graph.ready(),
      ...(this.options.sqlTimeoutMs === undefined ? {} : { timeoutMs: this.options.sqlTimeoutMs }),
      ...(this.options.sqlMemoryLimitBytes === undefined ? {} : { memoryLimitBytes: this.options.sqlMemoryLimitBytes }),
    });
  }

  private async view(entity: { objectId: bigint; typeId: bigint; content: Uint8Array; file: string; offset: number }, options: ObjectOptions): Promise<StoredObject> {
    const view = await describeObjectView(entity, this.storage.dictionary, {
      offset: options.elementOffset ?? 0,
      limit: options.elementLimit ?? DEFAULT_ELEMENT_LIMIT,
      timeZone: UTC,
      resolve: (ids) => referenceInfos(this.storage, ids, REFERENCE_TEXT_LIMIT),
    });
    return storedObject(view);
  }

  private typeIds(type: string | bigint): Set<bigint> {
    const dictionary = this.storage.dictionary;
    if (typeof type === 'bigint' || /^[0-9]{1,19}$/.test(type)) {
      const id = BigInt(type);
      if (!dictionary.byId.has(id)) throw new RangeError(`type id ${id} is not in the type dictionary`);
      return new Set([id]);
    }
    const found = lookUpType(dictionary, type);
    if ('error' in found) throw new RangeError(found.error);
    return new Set(found.entries.map((e) => e.typeId));
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the storage is closed');
  }
}

function parseId(text: string): bigint {
  if (!/^-?[0-9]{1,20}$/.test(text)) throw new RangeError(`not an object id: ${JSON.stringify(text)}`);
  return BigInt(text);
}
