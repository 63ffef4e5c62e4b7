import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlEngine } from '../../../src/sql/sql-engine.js';
import { CommitLog } from '../../../src/storage/history/commit-log.js';
import { Storage } from '../../../src/storage/storage.js';
import { expectedBody } from '../../helpers/corpora/conformance.js';
import { loadStateCases, SEQUENCE_DIR } from '../../helpers/corpora/follow-sequence.js';

/**
 * `_commits` and `_objects.commit_timestamp` on SEQ1 in state S8 (commits 1-6 in files housekeeping
 * dissolved, 7-9 whole): a row per commit with what it stored, and every current object tied to the
 * commit that wrote it, so that "what did the last commit touch" is one query, and it names exactly
 * the objects that commit stored, which include every object whose Java answer it changed.
 */

let storage: Storage;
let engine: SqlEngine;
let log: CommitLog;

beforeAll(async () => {
  storage = await Storage.open(join(SEQUENCE_DIR, 'states', 'S8'));
  engine = new SqlEngine({ storage });
  log = await CommitLog.read(storage);
});

afterAll(async () => {
  await engine.close();
  await storage.close();
});

const query = async (sql: string): Promise<unknown[][]> => (await engine.query(sql, { limit: 10_000 })).rows as unknown[][];

function answers(state: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of loadStateCases(state).cases) if (c.kind === 'object') out.set(/\/object\/(\d+)$/.exec(c.request)![1]!, expectedBody(c).toString('utf8'));
  return out;
}

describe('_commits', () => {
  it('has a row per commit with what it stored', async () => {
    const rows = await query('SELECT "number", "timestamp", channels, bytes, objects, new_objects, updated_objects, complete FROM _commits ORDER BY "number"');
    expect(rows).toHaveLength(log.size);
    expect(rows.map((r) => Number(r[0]))).toEqual(Array.from({ length: log.size }, (_, i) => i + 1));
    for (const row of rows) {
      const s = log.summary(Number(row[0]));
      expect(row.slice(1).map(String)).toEqual([String(s.commit.timestamp), '1', String(s.bytes), String(s.objects), String(s.newObjects), String(s.updatedObjects), String(s.complete)]);
    }
    // Commit 7 (S5 -> S6) stored one new object: the renamed root's name.
    expect((await query('SELECT new_objects, complete FROM _commits WHERE "number" = 7')).map((r) => r.map(String))).toEqual([['1', 'true']]);
    expect((await query('SELECT count(*) FROM _commits WHERE NOT complete'))[0]!.map(String)).toEqual(['6']);
  });
});

describe('_objects.commit_timestamp', () => {
  it('names exactly the objects the last commit stored', async () => {
    const last = log.summary(log.size);
    const rows = await query(`SELECT oid FROM _objects WHERE commit_timestamp = (SELECT max("timestamp") FROM _commits) ORDER BY oid`);
    const stored = (await log.recordsOf(log.size, 0, Number.MAX_SAFE_INTEGER)).map((r) => String(r.objectId)).sort();
    expect(rows.map((r) => String(r[0])).sort()).toEqual(stored);
    expect(stored).toHaveLength(last.objects);
    // Among them every object whose Java answer the commit (S7 -> S8) changed or added.
    const before = answers('S7');
    const after = answers('S8');
    const changed = [...after].filter(([id, body]) => before.get(id) !== body).map(([id]) => id);
    expect(changed.length).toBeGreaterThan(0);
    for (const id of changed) expect(stored).toContain(id);
  });

  it('ties records housekeeping copied to the commit that wrote them', async () => {
    const rows = await query('SELECT count(*), count(commit_timestamp), count(DISTINCT commit_timestamp) FROM _objects');
    const [all, tied, commits] = rows[0]!.map(Number);
    expect(tied).toBe(all);
    // Objects of commits whose own files are gone (1-6) keep those commits, not the copy's.
    const early = await query('SELECT count(*) FROM _objects o JOIN _commits c ON c."timestamp" = o.commit_timestamp WHERE NOT c.complete');
    expect(Number(early[0]![0])).toBeGreaterThan(0);
    expect(commits).toBeGreaterThan(3);
  });

  it('is what the log answers for each record asked alone', async () => {
    // The pass asks the log once per store range and answers the records after it in that range
    // from the range (commit-rows.ts): each object's commit as the log answers its record alone,
    // housekeeping copies (whose answer follows each record back) included.
    const files = new Map<string, bigint>(storage.channels.flatMap((c) => c.files.map((f) => [`${c.index}:${f.path.split(/[\\/]/).slice(-2).join('/')}`, f.fileNumber] as const)));
    const rows = await query('SELECT oid, channel, file, "offset", commit_timestamp FROM _objects');
    let copied = 0;
    for (const [oid, channel, file, offset, timestamp] of rows) {
      const n = log.history.commitNumberOf(Number(channel), files.get(`${String(channel)}:${String(file)}`)!, Number(offset));
      if (n < 0) copied++;
      expect([String(oid), n === 0 ? null : String(log.history.timestampOf(Math.abs(n)))]).toEqual([String(oid), timestamp === null ? null : String(timestamp)]);
    }
    expect(rows.length).toBeGreaterThan(copied);
    expect(copied).toBeGreaterThan(0);
  });
});
