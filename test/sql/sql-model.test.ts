import { readdirSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { registeredStorage } from '../helpers/serving/registered-storage.js';
import { compareTablesWithViews } from './table-views.js';

/**
 * The relational model on every vendored storage of every generation (MicroStream 4.1 and 8.1,
 * EclipseStore 4.1): each type table's rows equal the /api/v1/objects views of its instances,
 * `_elements` the views' lists, `_references` the graph index, `_objects` the /api/v1 counts.
 */

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const STORAGES = ['conformance', 'conformance-ms8', 'conformance-es'].flatMap((corpus) =>
  readdirSync(join(FIXTURES, corpus, 'storages')).map((name) => [`${corpus}/${name}`, join(FIXTURES, corpus, 'storages', name)] as const),
);

/**
 * Each storage's DuckDB file (the sandbox's, under the temporary directory) on a memory-backed
 * file system where Linux has one with room: the tables are filled table by table as the
 * statements name them, and each fill is written to that file. What the tables hold, and so what
 * is compared, does not depend on where the file lies. Measured on ext4: 36.3 and 34.4 s wall
 * against 29.5 and 27.9 s in memory (CPU 30.9/33.0 against 27.7/30.3 s).
 */
const MEMORY_BACKED = '/dev/shm';
const saved = process.env.TMPDIR;
beforeAll(() => {
  try {
    const room = statfsSync(MEMORY_BACKED);
    if (room.bavail * room.bsize >= 512 * 1024 * 1024) process.env.TMPDIR = MEMORY_BACKED;
  } catch {
    // none here: the usual temporary directory
  }
});
afterAll(() => {
  if (saved === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = saved;
});

describe.each(STORAGES)('%s', (_name, directory) => {
  it('has tables that equal the object views, the graph and the counts', { timeout: 120_000 }, async () => {
    const { storage, registry, context, close } = await registeredStorage(directory);
    const app = buildApp(storage, { instance: 'microstream', api: registry, sql: {} });
    try {
      registry.startAll();
      const graph = await context.graph.ready();
      const figures = await compareTablesWithViews(app, graph);
      expect(figures.tables).toBeGreaterThan(0);
      expect(figures.rows).toBeGreaterThan(0);
    } finally {
      await app.close();
      await close();
    }
  });
});
