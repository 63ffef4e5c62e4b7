import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CommitHistory } from '../../../src/storage/history/commit-history.js';
import { scanStorageDirectory } from '../../../src/storage/source/storage-dir.js';
import { expectedBody } from '../../helpers/corpora/conformance.js';
import { loadStateCases, SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';
import { graphsBuilt, registeredStorages, type RegisteredStorages } from '../../helpers/serving/registered-storage.js';

/**
 * The history routes on SEQ1, a storage a running Java application wrote (commit 2 made S0, 3-6
 * made S1-S4, housekeeping then deleted files 1 and 2, 7-9 made S6-S8, 10 made S10). Per commit,
 * the objects listed as new or with member changes must be exactly those whose recorded Java
 * answers differ between the states before and after it; commits whose bytes housekeeping deleted
 * are marked incomplete; the diff routes agree with the recorded states.
 */

const dir = (state: string): string => join(SEQUENCE_DIR, 'states', state);

function answers(state: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of loadStateCases(state).cases) if (c.kind === 'object') out.set(/\/object\/(\d+)$/.exec(c.request)![1]!, expectedBody(c).toString('utf8'));
  return out;
}

function javaDifference(from: string, to: string): { added: string[]; changed: string[]; removed: string[] } {
  const a = answers(from);
  const b = answers(to);
  return {
    added: [...b.keys()].filter((id) => !a.has(id)).sort(),
    changed: [...a].filter(([id, body]) => b.has(id) && b.get(id) !== body).map(([id]) => id).sort(),
    removed: [...a.keys()].filter((id) => !b.has(id)).sort(),
  };
}

let registered: RegisteredStorages;
let app: ReturnType<typeof buildApp>;

beforeAll(async () => {
  registered = await registeredStorages({ s8: dir('S8'), s4: dir('S4'), s6: dir('S6'), s10: dir('S10') });
  app = buildApp(registered.storages[0]!, { instance: 'microstream', api: registered.registry });
  await graphsBuilt(registered.registry);
});

afterAll(async () => {
  await app.close();
  await registered.close();
});

interface CommitJson {
  number: number;
  timestamp: string;
  time: string;
  bytes: number;
  objects: number;
  newObjects: number;
  updatedObjects: number;
  complete: boolean;
  types: { typeName: string; objects: number }[];
}

const get = async (url: string) => app.inject({ url });

describe('GET /api/v1/commits', () => {
  it('lists every commit newest first, marking those housekeeping deleted bytes of', async () => {
    const history = await CommitHistory.read(await scanStorageDirectory(dir('S8')));
    const response = await get('/api/v1/commits');
    expect(response.statusCode).toBe(200);
    const body = response.json() as { total: number; commits: CommitJson[] };
    expect(body.total).toBe(history.size);
    expect(body.commits.map((c) => c.number)).toEqual(Array.from({ length: history.size }, (_, i) => history.size - i));
    expect(body.commits.map((c) => c.timestamp)).toEqual([...history.commits()].reverse().map((c) => String(c.timestamp)));
    // Files 1 and 2 (commits 1-6) were dissolved by housekeeping (S5); 7-9 are whole.
    expect(body.commits.map((c) => [c.number, c.complete])).toEqual([[9, true], [8, true], [7, true], [6, false], [5, false], [4, false], [3, false], [2, false], [1, false]]);
    const page = (await get('/api/v1/commits?offset=1&limit=2')).json() as { commits: CommitJson[] };
    expect(page.commits.map((c) => c.number)).toEqual([8, 7]);
  });

  it('counts what each commit stored, new and updated, as the recorded states differ', async () => {
    const commits = ((await get('/api/v1/storages/s4/commits')).json() as { commits: CommitJson[] }).commits;
    const byNumber = new Map(commits.map((c) => [c.number, c]));
    for (const [n, from, to] of [[3, 'S0', 'S1'], [4, 'S1', 'S2'], [5, 'S2', 'S3'], [6, 'S3', 'S4']] as const) {
      const c = byNumber.get(n)!;
      const d = javaDifference(from, to);
      expect(c.complete).toBe(true);
      expect(c.newObjects, `commit ${n}`).toBe(d.added.length);
      expect(c.objects).toBe(c.newObjects + c.updatedObjects);
      expect(c.updatedObjects, `commit ${n}`).toBeGreaterThanOrEqual(d.changed.length);
      expect(c.types.reduce((sum, t) => sum + t.objects, 0)).toBe(c.objects);
    }
  });
});

describe('GET /api/v1/commits/{timestamp}', () => {
  it.each([
    ['s4', 3, 'S0', 'S1'],
    ['s4', 4, 'S1', 'S2'],
    ['s4', 5, 'S2', 'S3'],
    ['s4', 6, 'S3', 'S4'],
    ['s8', 7, 'S5', 'S6'],
    ['s8', 8, 'S6', 'S7'],
    ['s8', 9, 'S7', 'S8'],
  ] as const)('%s commit %i lists as new or changed exactly the objects whose answers differ from %s to %s', async (storage, n, from, to) => {
    const list = (await get(`/api/v1/storages/${storage}/commits`)).json() as { commits: CommitJson[] };
    const commit = list.commits.find((c) => c.number === n)!;
    const objects: { objectId: string; change: string; members: unknown[] | null }[] = [];
    for (let offset = 0; offset < commit.objects; offset += 200) {
      const response = await get(`/api/v1/storages/${storage}/commits/${commit.timestamp}?offset=${offset}&limit=200`);
      expect(response.statusCode).toBe(200);
      objects.push(...(response.json() as { objects: typeof objects }).objects);
    }
    expect(objects).toHaveLength(commit.objects);
    const d = javaDifference(from, to);
    expect(objects.filter((o) => o.change === 'new').map((o) => o.objectId).sort()).toEqual(d.added);
    // Every updated object is compared with its version before (all still on disk here).
    const updated = objects.filter((o) => o.change === 'updated');
    expect(updated.every((o) => o.members !== null)).toBe(true);
    expect(updated.filter((o) => o.members!.length > 0).map((o) => o.objectId).sort()).toEqual(d.changed);
  });

  it('answers 404 for a timestamp that is no commit', async () => {
    const response = await get('/api/v1/commits/123');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ detail: expect.stringContaining('no commit with timestamp 123') });
  });
});

describe('GET /api/v1/diff', () => {
  it('compares two points of the storage', async () => {
    const response = await get('/api/v1/storages/s4/diff?from=3&to=6&limit=1000');
    expect(response.statusCode).toBe(200);
    const body = response.json() as { summary: { added: number; removed: number; changed: number }; total: number; objects: { objectId: string; change: string }[]; a: { commit: { number: number } } };
    const d = javaDifference('S1', 'S4');
    expect([body.summary.added, body.summary.removed, body.summary.changed]).toEqual([d.added.length, d.removed.length, d.changed.length]);
    expect(body.objects.filter((o) => o.change === 'changed').map((o) => o.objectId).sort()).toEqual(d.changed);
    expect(body.a.commit.number).toBe(3);
    const paged = (await get('/api/v1/storages/s4/diff?from=3&to=6&offset=2&limit=3')).json() as { objects: unknown[] };
    expect(paged.objects).toEqual(body.objects.slice(2, 5));
  });

  it('without from, shows what the last commit changed', async () => {
    const body = (await get('/api/v1/storages/s4/diff')).json() as { summary: { added: number; removed: number; changed: number }; a: { commit: { number: number } } };
    const d = javaDifference('S3', 'S4');
    expect([body.summary.added, body.summary.removed, body.summary.changed]).toEqual([d.added.length, d.removed.length, d.changed.length]);
    expect(body.a.commit.number).toBe(5);
  });

  it('compares two served storages', async () => {
    const body = (await get('/api/v1/diff?a=s4&b=s6')).json() as { summary: { added: number; removed: number; changed: number }; a: { storage: string } };
    const d = javaDifference('S4', 'S6');
    expect([body.summary.added, body.summary.removed, body.summary.changed]).toEqual([d.added.length, d.removed.length, d.changed.length]);
    expect(body.a.storage).toBe('s4');
  });

  it('names the files housekeeping deleted when a point is gone, and refuses bad points', async () => {
    const gone = await get('/api/v1/storages/s10/diff?from=2');
    expect(gone.statusCode).toBe(409);
    expect(gone.json()).toMatchObject({ detail: expect.stringContaining('channel 0 file 1 (48514 bytes then, deleted since)') });
    expect((await get('/api/v1/diff?from=yesterday')).statusCode).toBe(400);
    expect((await get('/api/v1/diff?a=s4&b=nothing')).statusCode).toBe(404);
  });

  it('is in the OpenAPI document', async () => {
    const paths = Object.keys((await get('/api/v1/openapi.json')).json().paths as object);
    for (const path of ['/commits', '/commits/{timestamp}', '/diff']) {
      expect(paths).toContain(`/api/v1${path}`);
      expect(paths).toContain(`/api/v1/storages/{storage}${path}`);
    }
  });
});
