import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregateTransactionLog, parseTransactionLog } from '../../src/format/transaction-log.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { cutAfterBytes, cutInside, planByteLength } from '../../src/writer/store-plan.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { dataFiles, get, objectIds, recomputeStatistics } from './storage-checks.js';

const ENTITIES = 600;

let base: string;
let template: string;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'writer-append-'));
  template = join(base, 'template');
  generateStorage({ directory: template, entities: ENTITIES, channelCount: 2, seed: 5, fileMaximumSize: 8 * 1024, entitiesPerStore: 100 });
});

afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

/** A fresh copy of the generated storage. */
function copy(name: string): string {
  const dir = join(base, name);
  cpSync(template, dir, { recursive: true });
  return dir;
}

function logOf(dir: string, channel: number) {
  const path = join(dir, `channel_${channel}`, `transactions_${channel}.sft`);
  return parseTransactionLog(readFileSync(path), path);
}

async function withStorage<T>(dir: string, use: (storage: Storage) => Promise<T>): Promise<T> {
  const storage = await Storage.open(dir);
  try {
    return await use(storage);
  } finally {
    await storage.close();
  }
}

const NOTE_MEMBERS = reflectiveMembers('gen.Note', [
  { name: 'text', type: 'java.lang.String' },
  { name: 'priority', type: 'int' },
]);

/** Opens the writer, adds a gen.Note with its text, optionally as the new root. */
async function appendNote(dir: string, options: { setRoot?: boolean; fileMaximumSize?: number } = {}) {
  const writer = await StorageWriter.open(dir, { fileMaximumSize: options.fileMaximumSize ?? 8 * 1024 });
  const note = writer.defineType('gen.Note', NOTE_MEMBERS);
  const store = writer.beginStore();
  const noteId = writer.newObjectId();
  const textId = writer.newObjectId();
  store.add(note, noteId, [textId, 3]);
  store.add(writer.dictionary.require('java.lang.String'), textId, ['appended']);
  if (options.setRoot === true) writer.setRoot(noteId);
  const result = writer.store(store);
  writer.close();
  return { noteId, textId, noteType: note.typeId, result };
}

describe('appending to an existing storage', () => {
  it('continues object ids, type ids, file numbers and timestamps', async () => {
    const dir = copy('append');
    const before = await withStorage(dir, async (s) => ({ max: objectIds(s).at(-1)!, count: s.entityCount, root: s.rootObjectId }));
    const maxTypeBefore = (await withStorage(dir, async (s) => s.dictionary.entries.at(-1)!.typeId));
    const logsBefore = [0, 1].map((c) => logOf(dir, c).entries);
    const headsBefore = [0, 1].map((c) => dataFiles(dir, c).at(-1)!.fileNumber);

    const { noteId, textId, noteType } = await appendNote(dir, { fileMaximumSize: 1 });
    expect(noteId).toBe(before.max + 1n);
    expect(textId).toBe(before.max + 2n);
    expect(noteType).toBe(maxTypeBefore + 1n);

    await withStorage(dir, async (storage) => {
      expect(storage.warnings).toEqual([]);
      expect(storage.entityCount).toBe(before.count + 2);
      expect(storage.rootObjectId).toBe(before.root);
      const answer = await get(storage, `object/${noteId}`);
      expect(answer.status).toBe(200);
      expect(answer.body.toString()).toContain(`"typeId":"${noteType}"`);
      expect(answer.body.toString()).toContain(`"${textId}","3"`);
      const stats = recomputeStatistics(dir);
      for (const channel of storage.channels) {
        for (const f of channel.files) expect({ live: f.liveLength, total: f.totalLength }).toEqual(stats.get(f.path));
      }
    });
    // Every channel rolled over (maximum size 1) and logged one more store with a later timestamp.
    for (const c of [0, 1]) {
      expect(dataFiles(dir, c).at(-1)!.fileNumber).toBe(headsBefore[c]! + 1);
      const entries = logOf(dir, c).entries;
      const added = entries.slice(logsBefore[c]!.length);
      expect(added.map((e) => e.type)).toEqual(['creation', 'store']);
      const lastBefore = logsBefore[c]!.filter((e) => e.type === 'store').at(-1)!.timestamp;
      expect(added[1]!.timestamp).toBeGreaterThan(lastBefore);
      const aggregate = aggregateTransactionLog(entries);
      expect(aggregate.headLatestLength).toBe(dataFiles(dir, c).at(-1)!.size);
    }
    expect(logOf(dir, 0).entries.at(-1)!.timestamp).toBe(logOf(dir, 1).entries.at(-1)!.timestamp);
  });

  it('moves the root and keeps enum registrations', async () => {
    const dir = copy('root');
    const { noteId } = await appendNote(dir, { setRoot: true });
    await withStorage(dir, async (storage) => {
      expect(storage.rootObjectId).toBe(noteId);
      expect((await get(storage, 'root')).body.toString()).toBe(`{"name":"ROOT","objectId":"${noteId}"}`);
    });
    const writer = await StorageWriter.open(dir);
    try {
      const tag = writer.dictionary.require('gen.Tag');
      const constants = writer.enumConstants(tag);
      expect(constants).toHaveLength(6);
      const store = writer.beginStore();
      expect(writer.storeEnum(store, tag)).toBe(constants);
      expect(store.records).toBe(0);
      expect(writer.rootObjectId).toBe(noteId);
    } finally {
      writer.close();
    }
  });
});

describe('partial stores (crash tails)', () => {
  async function plannedNote(dir: string) {
    const writer = await StorageWriter.open(dir);
    const note = writer.defineType('gen.Note', NOTE_MEMBERS);
    const store = writer.beginStore();
    for (let i = 0; i < 10; i++) {
      const id = writer.newObjectId();
      store.add(note, id, [null, i]);
    }
    return { writer, plan: writer.planStore(store) };
  }

  it('lists the writes of a store in order and cuts after a byte count', async () => {
    const dir = copy('plan');
    const { writer, plan } = await plannedNote(dir);
    expect(plan.writes.map((w) => `${w.kind}${w.channel}`)).toEqual(['dictionary-1', 'data0', 'data1', 'log0', 'log1']);
    expect(cutAfterBytes(plan, planByteLength(plan))).toBeUndefined();
    const last = plan.writes.length - 1;
    expect(cutAfterBytes(plan, planByteLength(plan) - 1)).toEqual({ write: last, bytes: 17 });
    expect(cutInside(plan, { kind: 'log', channel: 1, occurrence: 'last' }, 5)).toEqual({ write: last, bytes: 5 });
    writer.close();
  });

  it('leaves an uncommitted data tail that readers ignore and a reopening writer cuts', async () => {
    const dir = copy('data-tail');
    const count = await withStorage(dir, async (s) => s.entityCount);
    const sizes = [0, 1].map((c) => dataFiles(dir, c).at(-1)!.size);
    const { writer, plan } = await plannedNote(dir);
    const result = writer.applyStore(plan, cutInside(plan, { kind: 'data', channel: 0 }, 30));
    expect(result.complete).toBe(false);
    expect(() => writer.store(writer.beginStore())).toThrow(/unusable/);
    writer.close();
    expect(dataFiles(dir, 0).at(-1)!.size).toBe(sizes[0]! + 30);
    expect(dataFiles(dir, 1).at(-1)!.size).toBe(sizes[1]);

    await withStorage(dir, async (storage) => {
      expect(storage.entityCount).toBe(count);
      expect(storage.dictionary.currentByName.has('gen.Note')).toBe(true); // the dictionary was written first
    });
    await expect(StorageWriter.open(dir)).rejects.toThrow(/uncommitted bytes/);
    await appendNoteWithRepair(dir);
    expect(logOf(dir, 0).entries.some((e) => e.type === 'truncation' && e.fileLength === sizes[0] && e.specialOffset === sizes[0]! + 30)).toBe(true);
    await withStorage(dir, async (storage) => {
      expect(storage.warnings).toEqual([]);
      expect(storage.entityCount).toBe(count + 2);
    });
  });

  it('rolls back a store that reached only some channels (cut inside the last store log entry)', async () => {
    const dir = copy('log-tail');
    const count = await withStorage(dir, async (s) => s.entityCount);
    const { writer, plan } = await plannedNote(dir);
    writer.applyStore(plan, cutInside(plan, { kind: 'log', channel: 1, occurrence: 'last' }, 10));
    writer.close();
    expect(logOf(dir, 1).incompleteTailOffset).toBeDefined();
    expect(logOf(dir, 0).incompleteTailOffset).toBeUndefined();
    await withStorage(dir, async (storage) => {
      expect(storage.entityCount).toBe(count);
      expect(storage.warnings.some((w) => w.includes('incomplete entry'))).toBe(true);
    });
    await expect(StorageWriter.open(dir)).rejects.toThrow(/incomplete entry/);
    await appendNoteWithRepair(dir);
    await withStorage(dir, async (storage) => {
      expect(storage.warnings).toEqual([]);
      expect(storage.entityCount).toBe(count + 2);
      for (const id of objectIds(storage).slice(-4)) expect((await get(storage, `object/${id}`)).status).toBe(200);
    });
  });

  it('can cut the dictionary file itself', async () => {
    const dir = copy('dictionary-tail');
    const writer = await StorageWriter.open(dir);
    const store = writer.beginStore();
    store.add(writer.defineType('gen.Note', NOTE_MEMBERS), writer.newObjectId(), [null, 1]);
    const result = writer.store(store, (plan) => cutAfterBytes(plan, 100));
    expect(result.complete).toBe(false);
    writer.close();
    expect(statSync(join(dir, 'PersistenceTypeDictionary.ptd')).size).toBe(100);
    await expect(Storage.open(dir)).rejects.toThrow();
    writeFileSync(join(dir, 'PersistenceTypeDictionary.ptd'), readFileSync(join(template, 'PersistenceTypeDictionary.ptd')));
    await withStorage(dir, async (storage) => expect(storage.entityCount).toBe(ENTITIES));
  });
});

async function appendNoteWithRepair(dir: string): Promise<void> {
  const writer = await StorageWriter.open(dir, { repairTails: true });
  expect(writer.repairs.length).toBeGreaterThan(0);
  const store = writer.beginStore();
  const note = writer.defineType('gen.Note', NOTE_MEMBERS);
  const noteId = writer.newObjectId();
  const textId = writer.newObjectId();
  store.add(note, noteId, [textId, 1]);
  store.add(writer.dictionary.require('java.lang.String'), textId, ['after repair']);
  writer.store(store);
  writer.close();
}
