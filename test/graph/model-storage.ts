import type { TypeEntry } from '../../src/format/type-dictionary.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';

/**
 * A storage written together with a model of its objects, so that the graph's answers are known
 * by construction: which objects are reachable, which are garbage, which ids are referenced but
 * never stored, how many records each object has. Objects are `gen.Node`s (a name, a `next`
 * node, a `children` list, a `lazy` reference and a `weight`), strings, ArrayLists, HashMaps and
 * Lazy references; every store goes to disk as one commit.
 */

export interface ModelObject {
  readonly typeName: string;
  /** Non-null references, in storage order (duplicates kept). */
  readonly refs: readonly bigint[];
  /** Bytes of the latest record. */
  readonly bytes: number;
}

export interface NodeSpec {
  readonly name?: string;
  readonly next?: bigint;
  readonly children?: bigint;
  readonly lazy?: bigint;
  readonly weight?: number;
}

export class ModelStorage {
  /** Objects as stored (latest version), built-in ones included only as ids in `builtins`. */
  readonly objects = new Map<bigint, ModelObject>();
  /** Records written per object id (all versions). */
  readonly records = new Map<bigint, number>();
  private store: ReturnType<StorageWriter['beginStore']>;
  private readonly node: TypeEntry;

  private constructor(private writer: StorageWriter) {
    this.node = writer.dictionary.versions('gen.Node').at(-1) ?? writer.defineType('gen.Node', NODE_MEMBERS);
    this.store = writer.beginStore();
  }

  static create(directory: string, channelCount = 2): ModelStorage {
    return new ModelStorage(StorageWriter.create(directory, { channelCount, fileMaximumSize: 2048 }));
  }

  /** Continues a storage written by `create` (the model must be carried over by the caller). */
  static async reopen(directory: string, model: ModelStorage): Promise<ModelStorage> {
    const next = new ModelStorage(await StorageWriter.open(directory, { fileMaximumSize: 2048 }));
    for (const [id, o] of model.objects) next.objects.set(id, o);
    for (const [id, n] of model.records) next.records.set(id, n);
    return next;
  }

  newId(): bigint {
    return this.writer.newObjectId();
  }

  get rootObjectId(): bigint {
    return this.writer.rootObjectId;
  }

  /** Stores a gen.Node (new when `id` is omitted). */
  putNode(spec: NodeSpec, id = this.newId()): bigint {
    const name = spec.name === undefined ? null : this.putString(spec.name);
    const values = [name, spec.next ?? null, spec.children ?? null, spec.lazy ?? null, spec.weight ?? 0];
    this.add(this.node, id, values, [name, spec.next, spec.children, spec.lazy]);
    return id;
  }

  putString(text: string, id = this.newId()): bigint {
    this.add(this.writer.dictionary.require('java.lang.String'), id, [text], []);
    return id;
  }

  putList(elements: readonly bigint[], id = this.newId()): bigint {
    this.add(this.writer.dictionary.require('java.util.ArrayList'), id, [BigInt64Array.from(elements)], elements);
    return id;
  }

  putMap(entries: readonly (readonly [bigint, bigint])[], id = this.newId()): bigint {
    this.add(this.writer.dictionary.require('java.util.HashMap'), id, [entries.map(([k, v]) => [k, v])], entries.flat());
    return id;
  }

  putLazy(subject: bigint, id = this.newId()): bigint {
    this.add(this.writer.dictionary.require('one.microstream.reference.Lazy$Default'), id, [subject], [subject]);
    return id;
  }

  setRoot(id: bigint): void {
    this.writer.setRoot(id);
  }

  /** Writes what was added as one store (one commit in every channel's log). */
  commit(): void {
    this.writer.store(this.store);
    this.store.clear();
  }

  close(): void {
    this.writer.close();
  }

  private add(entry: TypeEntry, id: bigint, values: Parameters<ReturnType<StorageWriter['beginStore']>['add']>[2], refs: readonly (bigint | null | undefined)[]): void {
    const before = this.store.byteLength;
    this.store.add(entry, id, values);
    this.objects.set(id, {
      typeName: entry.typeName,
      refs: refs.filter((r): r is bigint => r !== null && r !== undefined && r !== 0n),
      bytes: this.store.byteLength - before,
    });
    this.records.set(id, (this.records.get(id) ?? 0) + 1);
  }
}

const NODE_MEMBERS = reflectiveMembers('gen.Node', [
  { name: 'name', type: 'java.lang.String' },
  { name: 'next', type: 'gen.Node' },
  { name: 'children', type: 'java.util.List' },
  { name: 'lazy', type: 'one.microstream.reference.Lazy' },
  { name: 'weight', type: 'int' },
]);

/** An id far outside the storage's id range, never stored. */
export const FAR_MISSING_ID = 8_000_000_000_000_000_000n;

/**
 * Writes the storage the graph tests share: reachable nodes through a list, a map and a Lazy; a
 * cycle; a missing id inside the id range (allocated, never stored) and one far outside it;
 * garbage (a cycle, and a node that refers to live objects); and `a` stored twice.
 */
export function writeModelStorage(directory: string): { model: ModelStorage; ids: Record<string, bigint> } {
  const model = ModelStorage.create(directory);
  const hole = model.newId();
  const d = model.putNode({ name: 'd', weight: 4 });
  const lazy = model.putLazy(d);
  const b = model.newId();
  const c = model.newId();
  model.putNode({ name: 'b', next: c }, b);
  model.putNode({ name: 'c', next: b }, c);
  const d2 = model.putNode({ name: 'd2', next: FAR_MISSING_ID });
  const map = model.putMap([[model.putString('k'), d2]]);
  const list = model.putList([b, c, hole, 0n, map, b]);
  const a = model.putNode({ name: 'a' });
  const root = model.putNode({ name: 'root', next: a, children: list, lazy });
  const g1 = model.newId();
  const g2 = model.newId();
  model.putNode({ name: 'g1', next: g2 }, g1);
  model.putNode({ name: 'g2', next: g1 }, g2);
  const g3 = model.putNode({ name: 'g3', next: a, children: model.putList([g1, FAR_MISSING_ID]) });
  model.setRoot(root);
  model.commit();
  model.putNode({ name: 'a, version 2' }, a);
  model.commit();
  model.close();
  return { model, ids: { hole, d, lazy, b, c, d2, map, list, a, root, g1, g2, g3 } };
}
