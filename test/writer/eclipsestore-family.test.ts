/**
 * The writer for the EclipseStore family: EclipseStore 4.1's fresh dictionary (type ids and the
 * serializer's type names) and the same built-in objects, so that tests and benchmarks can cover
 * EclipseStore storages of any size.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTransactionLog } from '../../src/format/transaction-log.js';
import { answerRequest } from '../../src/http/java/java-service.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { CORPORA } from '../helpers/corpora/conformance.js';
import { objectIds } from './storage-checks.js';

const ES = CORPORA.find((c) => c.generation.startsWith('EclipseStore'))!;

let base: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'writer-es-'));
});
afterAll(() => {
  rmSync(base, { recursive: true, force: true });
});

const get = (storage: Storage, path: string): ReturnType<typeof answerRequest> =>
  answerRequest(storage, { instance: 'store-data' }, { method: 'GET', url: `/store-data/${path}`, headers: { host: 'x' } });

describe('StorageWriter.create with family eclipsestore', () => {
  it('writes what EclipseStore 4.1 writes on a first start (the EclipseStore noroot storage)', () => {
    const dir = join(base, 'fresh');
    StorageWriter.create(dir, { family: 'eclipsestore', now: () => 1_700_000_000_000 }).close();
    for (const file of ['PersistenceTypeDictionary.ptd', 'channel_0/channel_0_1.dat']) {
      expect(readFileSync(join(dir, file)).equals(readFileSync(join(ES.dir, 'storages', 'noroot', file))), file).toBe(true);
    }
    const log = parseTransactionLog(readFileSync(join(dir, 'channel_0', 'transactions_0.sft')));
    expect(log.entries.map((e) => [e.type, e.fileLength, e.fileNumber])).toEqual([
      ['creation', 0, 1n],
      ['store', 2552, undefined],
    ]);
  });
});

describe('a generated EclipseStore storage', () => {
  let dir: string;
  let storage: Storage;
  let rootObjectId: bigint;
  beforeAll(async () => {
    dir = join(base, 'generated');
    ({ rootObjectId } = generateStorage({ directory: dir, entities: 3000, channelCount: 2, seed: 7, fileMaximumSize: 32 * 1024, family: 'eclipsestore' }));
    storage = await Storage.open(dir);
  });
  afterAll(async () => {
    await storage.close();
  });

  it('is an EclipseStore storage through and through: no MicroStream type names', () => {
    expect(storage.family.name).toBe('eclipsestore');
    expect(storage.warnings).toEqual([]);
    expect(storage.entityCount).toBe(3000);
    const text = storage.dictionaryBytes.toString('utf8');
    expect(text).not.toContain('one.microstream.');
    expect(text).toContain('org.eclipse.serializer.reference.Lazy gen.Shelf#books');
    // Built-in type ids are EclipseStore's, application types follow its last built-in one.
    expect(storage.dictionary.currentByName.get('org.eclipse.serializer.persistence.types.PersistenceRoots$Default')?.typeId).toBe(1000070n);
    expect(storage.dictionary.currentByName.get('java.time.LocalDate')?.typeId).toBe(1000021n);
    expect(storage.dictionary.currentByName.get('gen.Tag')?.typeId).toBe(1000082n);
  });

  it('answers every object under /store-data and finds the root', async () => {
    for (const id of objectIds(storage)) {
      const answer = await get(storage, `object/${id}`);
      if (answer.status !== 200) throw new Error(`object ${id}: ${answer.status} ${answer.body.toString()}`);
    }
    expect(storage.rootObjectId).toBe(rootObjectId);
    expect((await get(storage, 'root')).body.toString()).toBe(`{"name":"ROOT","objectId":"${rootObjectId}"}`);
    const lazy = storage.dictionary.currentByName.get('org.eclipse.serializer.reference.Lazy$Default')!;
    const entities = await Promise.all(objectIds(storage).map((id) => storage.readEntity(id)));
    expect(entities.filter((e) => e?.typeId === lazy.typeId).length).toBeGreaterThan(0);
  });
});

describe('StorageWriter.open on an EclipseStore storage', () => {
  it('continues it as EclipseStore: its roots type, its type ids', async () => {
    const dir = join(base, 'graph');
    cpSync(join(ES.dir, 'storages', 'graph'), dir, { recursive: true });
    const writer = await StorageWriter.open(dir);
    expect(writer.family.family.name).toBe('eclipsestore');
    const note = writer.defineType('gen.Note', reflectiveMembers('gen.Note', [{ name: 'text', type: 'java.lang.String' }]));
    expect(note.typeId).toBe(1000098n);
    const store = writer.beginStore();
    const noteId = writer.newObjectId();
    const textId = writer.newObjectId();
    store.add(writer.dictionary.require('java.lang.String'), textId, ['written by the writer']);
    store.add(note, noteId, [textId]);
    writer.setRoot(noteId);
    writer.store(store);
    writer.close();
    const storage = await Storage.open(dir);
    try {
      expect(storage.warnings).toEqual([]);
      expect(storage.family.name).toBe('eclipsestore');
      expect(storage.rootObjectId).toBe(noteId);
      expect((await get(storage, `object/${noteId}`)).body.toString()).toContain(`"data":["${textId}"]`);
    } finally {
      await storage.close();
    }
  });
});
