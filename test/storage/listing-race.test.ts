import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { Storage } from '../../src/storage/storage.js';
import { generateStorage } from '../../src/writer/generator/generate-storage.js';
import { reflectiveMembers } from '../../src/writer/type-definitions.js';
import { StorageWriter } from '../../src/writer/storage-writer.js';

/**
 * A commit can land while a follower lists a channel folder, between its look at a data file and
 * its look at the transaction log. Directory order decides which comes first (hash order on
 * ext4); here it is forced to "data files first", and a commit is written right before the log is
 * looked at. The log then commits bytes past the data file size listed a moment earlier: taken at
 * face value, the newest records look cut off and their objects answer 500 (a flake of the
 * follow-writer test under load).
 */
const race = vi.hoisted(() => ({ beforeLogLook: undefined as (() => void) | undefined }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const dataFilesFirst = (names: string[]): string[] => [...names].sort((a, b) => Number(b.endsWith('.dat')) - Number(a.endsWith('.dat')));
  const readdirSync = ((...args: Parameters<typeof fs.readdirSync>) => {
    const names = (fs.readdirSync as (...a: unknown[]) => unknown[])(...args);
    return names.every((n) => typeof n === 'string') ? dataFilesFirst(names as string[]) : names;
  }) as typeof fs.readdirSync;
  const lstatSync = ((...args: Parameters<typeof fs.lstatSync>) => {
    const hook = race.beforeLogLook;
    if (hook !== undefined && String(args[0]).endsWith('.sft')) {
      race.beforeLogLook = undefined;
      hook();
    }
    return (fs.lstatSync as (...a: unknown[]) => unknown)(...args);
  }) as typeof fs.lstatSync;
  return { ...fs, default: { ...fs, readdirSync, lstatSync }, readdirSync, lstatSync };
});

describe('a commit between the looks at a channel folder', () => {
  let dir: string;
  let storage: Storage;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'si-listing-race-'));
    generateStorage({ directory: dir, entities: 300, channelCount: 1, seed: 5, fileMaximumSize: 1024 * 1024, entitiesPerStore: 100 });
    storage = await Storage.open(dir);
  });
  afterAll(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is taken over whole: no lost tail, the new object answers', async () => {
    const writer = await StorageWriter.open(dir, { fileMaximumSize: 1024 * 1024 });
    const note = writer.defineType('race.Note', reflectiveMembers('race.Note', [{ name: 'serial', type: 'int' }]));
    let added: bigint | undefined;
    race.beforeLogLook = () => {
      const store = writer.beginStore();
      added = writer.newObjectId();
      store.add(note, added, [42]);
      writer.store(store);
    };
    try {
      const result = await storage.refresh();
      expect(race.beforeLogLook).toBeUndefined(); // the commit did land during the refresh
      expect(result.changed).toBe(true);
    } finally {
      race.beforeLogLook = undefined;
      writer.close();
    }
    expect(storage.warnings.filter((w) => /missing tail is lost|cut off|runs past/.test(w))).toEqual([]);
    const app = buildApp(storage, { instance: 'microstream' });
    try {
      const answer = await app.inject({ url: `/microstream/object/${added}` });
      expect([answer.statusCode, answer.headers['x-storage-inspector-error']]).toEqual([200, undefined]);
      expect(JSON.parse(answer.body).data).toEqual(['42']);
    } finally {
      await app.close();
    }
  });
});
