import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ElementsChange, MemberChange, ValueChange } from '../../src/diff/member-changes.js';
import { diffStorages, type DiffReport, type ObjectChange } from '../../src/diff/storage-diff.js';
import { Storage } from '../../src/storage/storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';

/**
 * Generated pairs: a storage written by the project's writer, and a copy changed by the writer in
 * known ways (objects added, members updated, collections grown, shrunk and reordered, a map value
 * replaced, a class given a new member). Every change must be reported, and nothing else.
 */

const ITEMS = 40;
const ITEM_FIELDS = [
  { name: 'name', type: 'java.lang.String' },
  { name: 'qty', type: 'int' },
  { name: 'price', type: 'double' },
  { name: 'tags', type: 'java.util.ArrayList' },
];

let base: string;
let before: string;
let after: string;

interface Ids {
  items: bigint[];
  names: bigint[];
  tagLists: bigint[];
  tags: bigint[][];
  index: bigint;
}

let ids: Ids;
/** What the change made, for the expectations. */
const made = { added: [] as bigint[], renamedTo: 0n, grownTag: 0n, newItem: 0n, itemTypeBefore: 0n, itemTypeAfter: 0n };

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'si-diff-pairs-'));
  before = join(base, 'before');
  after = join(base, 'after');
  const writer = StorageWriter.create(before);
  const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', ITEM_FIELDS));
  made.itemTypeBefore = item.typeId;
  const string = writer.dictionary.require('java.lang.String');
  const list = writer.dictionary.require('java.util.ArrayList');
  const map = writer.dictionary.require('java.util.HashMap');
  const store = writer.beginStore();
  ids = { items: [], names: [], tagLists: [], tags: [], index: 0n };
  for (let i = 0; i < ITEMS; i++) {
    const [itemId, nameId, tagsId] = [writer.newObjectId(), writer.newObjectId(), writer.newObjectId()];
    const tagIds = Array.from({ length: 5 }, () => writer.newObjectId());
    store.add(item, itemId, [nameId, tagsId, i + 1, i * 1.5]); // references first, as Java orders them
    store.add(string, nameId, [`item-${i}`]);
    store.add(list, tagsId, [tagIds]);
    tagIds.forEach((t, k) => store.add(string, t, [`tag-${i}-${k}`]));
    ids.items.push(itemId);
    ids.names.push(nameId);
    ids.tagLists.push(tagsId);
    ids.tags.push(tagIds);
  }
  ids.index = writer.newObjectId();
  store.add(map, ids.index, [ids.items.map((itemId, i) => [ids.names[i]!, itemId])]);
  writer.setRoot(ids.index);
  writer.store(store);
  writer.close();

  cpSync(before, after, { recursive: true });
  const w = await StorageWriter.open(after);
  const change = w.beginStore();
  const itemType = w.dictionary.require('shop.Item');
  // Members updated: a number; a name (a new String).
  change.add(itemType, ids.items[1]!, [ids.names[1]!, ids.tagLists[1]!, 99, 1.5]);
  made.renamedTo = w.newObjectId();
  change.add(w.dictionary.require('java.lang.String'), made.renamedTo, ['item-2 renamed']);
  change.add(itemType, ids.items[2]!, [made.renamedTo, ids.tagLists[2]!, 3, 3]);
  // Collections: grown by a new tag, shrunk by its last, reordered.
  made.grownTag = w.newObjectId();
  change.add(w.dictionary.require('java.lang.String'), made.grownTag, ['tag-new']);
  change.add(w.dictionary.require('java.util.ArrayList'), ids.tagLists[3]!, [[...ids.tags[3]!, made.grownTag]]);
  change.add(w.dictionary.require('java.util.ArrayList'), ids.tagLists[4]!, [ids.tags[4]!.slice(0, 4)]);
  change.add(w.dictionary.require('java.util.ArrayList'), ids.tagLists[5]!, [[ids.tags[5]![4]!, ...ids.tags[5]!.slice(0, 4)]]);
  // A map value replaced: the entry of item-6 now names item 7.
  change.add(w.dictionary.require('java.util.HashMap'), ids.index, [ids.items.map((itemId, i) => [ids.names[i]!, i === 6 ? ids.items[7]! : itemId])]);
  // An object added.
  made.newItem = w.newObjectId();
  change.add(itemType, made.newItem, [ids.names[0]!, ids.tagLists[0]!, 7, 7]);
  // A type changed: shop.Item gains a member; item 8 is stored with the new version.
  const itemV2 = w.defineType('shop.Item', reflectiveMembers('shop.Item', [...ITEM_FIELDS, { name: 'archived', type: 'boolean' }]));
  made.itemTypeAfter = itemV2.typeId;
  change.add(itemV2, ids.items[8]!, [ids.names[8]!, ids.tagLists[8]!, 9, 12, true]);
  made.added = [made.renamedTo, made.grownTag, made.newItem];
  w.store(change);
  w.close();
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

async function diff(a: string, b: string): Promise<{ report: DiffReport; objects: ObjectChange[] }> {
  const sa = await Storage.open(a);
  const sb = await Storage.open(b);
  try {
    const report = await diffStorages(sa, sb, { limit: 1000 });
    return { report, objects: [...report.objects] };
  } finally {
    await sa.close();
    await sb.close();
  }
}

const byId = (objects: readonly ObjectChange[], id: bigint): ObjectChange | undefined => objects.find((o) => o.objectId === String(id));
const members = (o: ObjectChange | undefined): readonly MemberChange[] => o?.members ?? [];

describe('diff of a storage and a copy the writer changed', () => {
  it('reports every change and nothing else', async () => {
    const { report, objects } = await diff(before, after);
    expect(report.equal).toBe(false);
    const changed = [ids.items[1]!, ids.items[2]!, ids.tagLists[3]!, ids.tagLists[4]!, ids.tagLists[5]!, ids.index, ids.items[8]!].map(String).sort();
    expect(objects.filter((o) => o.change === 'changed').map((o) => o.objectId).sort()).toEqual(changed);
    expect(objects.filter((o) => o.change === 'added').map((o) => o.objectId).sort()).toEqual(made.added.map(String).sort());
    expect(objects.filter((o) => o.change === 'removed')).toEqual([]);
    const total = ITEMS * 7 + 1;
    expect(report.summary.unchanged).toBe(total - changed.length + (await builtIns(before)));
    const items = report.summary.types.find((t) => t.typeName === 'shop.Item');
    expect(items).toEqual({ typeName: 'shop.Item', added: 1, removed: 0, changed: 3, unchanged: ITEMS - 3 });
  });

  it('shows members old → new, references with their targets', async () => {
    const { objects } = await diff(before, after);
    expect(members(byId(objects, ids.items[1]!))).toEqual([{ member: 'qty', before: 2, after: 99 }]);
    const renamed = members(byId(objects, ids.items[2]!));
    expect(renamed).toHaveLength(1);
    const name = renamed[0] as ValueChange;
    expect(name.member).toBe('name');
    expect(name.before).toEqual({ objectId: String(ids.names[2]), typeName: 'java.lang.String', text: 'item-2' });
    expect(name.after).toEqual({ objectId: String(made.renamedTo), typeName: 'java.lang.String', text: 'item-2 renamed' });
  });

  it('compares collections element by element without listing the unchanged ones', async () => {
    const { objects } = await diff(before, after);
    const elements = (id: bigint): ElementsChange => members(byId(objects, id))[0] as ElementsChange;
    const grown = elements(ids.tagLists[3]!);
    expect([grown.countBefore, grown.countAfter, grown.removed, grown.moved]).toEqual([5, 6, [], []]);
    expect(grown.added).toEqual([{ index: 5, value: { objectId: String(made.grownTag), typeName: 'java.lang.String', text: 'tag-new' } }]);
    const shrunk = elements(ids.tagLists[4]!);
    expect([shrunk.countBefore, shrunk.countAfter, shrunk.added, shrunk.moved]).toEqual([5, 4, [], []]);
    expect(shrunk.removed.map((e) => [e.index, (e.value as { text: string }).text])).toEqual([[4, 'tag-4-4']]);
    const reordered = elements(ids.tagLists[5]!);
    expect([reordered.added, reordered.removed]).toEqual([[], []]);
    expect(reordered.moved.map((m) => [m.from, m.to, (m.value as { text: string }).text])).toEqual([[4, 0, 'tag-5-4']]);
    const map = elements(ids.index);
    expect([map.added, map.removed, map.moved]).toEqual([[], [], []]);
    expect(map.changedValues).toEqual([
      {
        key: { objectId: String(ids.names[6]), typeName: 'java.lang.String', text: 'item-6' },
        before: { objectId: String(ids.items[6]), typeName: 'shop.Item' },
        after: { objectId: String(ids.items[7]), typeName: 'shop.Item' },
      },
    ]);
  });

  it('reports a type change once for the type, not in the object', async () => {
    const { report, objects } = await diff(before, after);
    expect(report.typeChanges).toEqual([
      { typeName: 'shop.Item', typeIdBefore: String(made.itemTypeBefore), typeIdAfter: String(made.itemTypeAfter), membersAdded: [{ member: 'archived', type: 'boolean' }], membersRemoved: [], membersRetyped: [] },
    ]);
    const item8 = byId(objects, ids.items[8]!)!;
    expect([item8.typeIdBefore, item8.typeIdAfter]).toEqual([String(made.itemTypeBefore), String(made.itemTypeAfter)]);
    // Its members kept their values; the new one is the type's change.
    expect(item8.members).toEqual([]);
  });

  it('the other way round, added objects are removed ones', async () => {
    const { report, objects } = await diff(after, before);
    expect(objects.filter((o) => o.change === 'removed').map((o) => o.objectId).sort()).toEqual(made.added.map(String).sort());
    expect(objects.filter((o) => o.change === 'added')).toEqual([]);
    expect(report.summary.removed).toBe(3);
    // The changed objects' earlier records lie at the same places of both storages' files, but in
    // A (the changed copy) they are no longer the latest: neither unchanged nor counted twice.
    const changed = 7;
    expect([report.summary.changed, report.summary.unchanged, report.summary.added]).toEqual([changed, ITEMS * 7 + 1 - changed + (await builtIns(before)), 0]);
    expect(report.summary.types.find((t) => t.typeName === 'shop.Item')).toEqual({ typeName: 'shop.Item', added: 0, removed: 1, changed: 3, unchanged: ITEMS - 3 });
  });

  it('a storage and its unchanged copy are equal', async () => {
    const { report } = await diff(before, before);
    expect(report.equal).toBe(true);
    expect(report.objects).toEqual([]);
  });
});

async function builtIns(dir: string): Promise<number> {
  const s = await Storage.open(dir);
  try {
    return s.entityCount - (ITEMS * 7 + 1);
  } finally {
    await s.close();
  }
}

describe('storage-inspector diff', () => {
  const run = (args: string[]) => runCliInProcess(['diff', ...args]);

  it('exits 1 with differences, one NDJSON line per differing object', async () => {
    const { code, stdout, stderr } = await run([before, after, '--ndjson']);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n').map((l) => JSON.parse(l) as ObjectChange);
    expect(lines).toHaveLength(10);
    expect(lines.find((l) => l.objectId === String(ids.items[1]))).toEqual({ change: 'changed', objectId: String(ids.items[1]), typeName: 'shop.Item', members: [{ member: 'qty', before: 2, after: 99 }] });
    expect(stderr).toContain('3 added, 0 removed, 7 changed');
  });

  it('prints the summary before the details, and --type and --limit narrow them', async () => {
    const { code, stdout } = await run([before, after, '--type', 'shop.Item', '--limit', '1']);
    expect(code).toBe(1);
    expect(stdout).toContain('1 added, 0 removed, 3 changed, 37 unchanged objects');
    expect(stdout.indexOf('unchanged objects')).toBeLessThan(stdout.indexOf(`changed shop.Item ${ids.items[1]}`));
    expect(stdout).toContain(`  qty: 2 → 99`);
    expect(stdout).toContain('… and 3 more differing objects');
  });

  it('exits 0 when equal and 2 on errors', async () => {
    expect((await run([before, before])).code).toBe(0);
    const missing = await run([before, join(base, 'nothing-here')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nothing-here');
    expect((await run([before, after, '--type', 'shop.Nothing'])).code).toBe(2);
    expect((await run([before, after, '--from', '1'])).code).toBe(2);
  });
});

describe('diff of EclipseStore storages', () => {
  it('reports the changes the writer made, nothing else', async () => {
    const dirA = join(base, 'es-before');
    const dirB = join(base, 'es-after');
    const writer = StorageWriter.create(dirA, { family: 'eclipsestore', channelCount: 2 });
    const item = writer.defineType('shop.Item', reflectiveMembers('shop.Item', ITEM_FIELDS));
    const string = writer.dictionary.require('java.lang.String');
    const store = writer.beginStore();
    const items: bigint[] = [];
    for (let i = 0; i < 20; i++) {
      const [itemId, nameId] = [writer.newObjectId(), writer.newObjectId()];
      store.add(item, itemId, [nameId, null, i, i / 2]);
      store.add(string, nameId, [`es-${i}`]);
      items.push(itemId);
    }
    writer.store(store);
    writer.close();
    cpSync(dirA, dirB, { recursive: true });
    const w = await StorageWriter.open(dirB);
    const change = w.beginStore();
    const names = new Map<bigint, bigint>();
    const a = await Storage.open(dirA);
    for (const id of items) {
      const content = (await a.readEntity(id))!.content;
      names.set(id, Buffer.from(content.buffer, content.byteOffset, content.byteLength).readBigInt64LE(0));
    }
    await a.close();
    change.add(w.dictionary.require('shop.Item'), items[3]!, [names.get(items[3]!)!, null, 333, 1.5]);
    const added = w.newObjectId();
    change.add(w.dictionary.require('shop.Item'), added, [names.get(items[0]!)!, null, 1, 1]);
    w.store(change);
    w.close();
    const { report, objects } = await diff(dirA, dirB);
    expect(objects.map((o) => `${o.change} ${o.objectId}`).sort()).toEqual([`added ${added}`, `changed ${items[3]}`].sort());
    expect(byId(objects, items[3]!)!.members).toEqual([{ member: 'qty', before: 3, after: 333 }]);
    expect(report.summary.changed + report.summary.added).toBe(2);
  });
});
