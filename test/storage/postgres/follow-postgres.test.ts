import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { compareWithCase, type RecordedCase } from '../../helpers/corpora/conformance.js';
import { loadStateCases, loadTransitions, SEQUENCE_DIR, type FileOp, type StateCases } from '../../helpers/corpora/follow-sequence.js';
import { adminClient, createEmptyDatabase, dropDatabase, grantReader, postgresInfo, READER_PASSWORD, readerUrl, tablesDigest } from '../../helpers/real-systems/postgres.js';
import { SqlConnector } from '../../helpers/real-systems/sql-connector.js';
import { writeFileSync } from 'node:fs';

/**
 * Following a storage kept in PostgreSQL while a writer changes its tables the way MicroStream's
 * SQL file system does (rows appended, files deleted, the dictionary deleted and inserted anew,
 * every statement committed on its own): the file operations a running Java process performed
 * (follow/SEQ1) are replayed as SQL, and every answer is checked against the Java service's
 * answers for each state. Two inspectors follow at once; neither writes anything.
 */
const ROOT = 'ms_tracker';

/** Refreshes a follower has completed (changed or unchanged), and promises of the ones to come. */
class Polls {
  private count = 0;
  private waiters: { until: number; resolve: () => void }[] = [];

  completed(): void {
    this.count++;
    this.waiters = this.waiters.filter((w) => (w.until <= this.count ? (w.resolve(), false) : true));
  }

  /** Resolves once `n` more refreshes have completed. */
  next(n: number): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ until: this.count + n, resolve }));
  }
}

describe('following a storage kept in PostgreSQL', () => {
  const transitions = loadTransitions();
  let database: string;
  let writerClient: pg.Client;
  let writer: SqlConnector;
  const inspectors: { storage: Storage; follower: StorageFollower; app: ReturnType<typeof buildApp>; events: string[]; polls: Polls }[] = [];

  beforeAll(async () => {
    database = await createEmptyDatabase('follow');
    writerClient = await adminClient(database);
    writer = new SqlConnector(writerClient, ROOT);
    await writer.loadDirectory(join(SEQUENCE_DIR, 'states', 'S0'));
    await grantReader(writerClient, database, [ROOT, `${ROOT}_channel_0`]);
    const passwordFile = join(postgresInfo().root, `follow-password-${process.pid}`);
    writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
    for (let i = 0; i < 2; i++) {
      const storage = await Storage.open(openStorageSource(readerUrl(database), { table: ROOT, passwordFile }));
      const events: string[] = [];
      const polls = new Polls();
      const follower = new StorageFollower(storage, {
        pollIntervalMs: 50,
        onRefresh: (e) => {
          if (e.kind === 'failed') events.push(`failed: ${String(e.error)}`);
          if (e.kind === 'changed' || e.kind === 'unchanged') polls.completed();
        },
      });
      const app = buildApp(storage, { instance: 'microstream', catchUp: () => follower.refreshNow() });
      follower.start();
      inspectors.push({ storage, follower, app, events, polls });
    }
  });
  afterAll(async () => {
    for (const { follower, app, storage } of inspectors) {
      await follower.stop();
      await app.close();
      await storage.close();
    }
    await writerClient?.end();
    if (database !== undefined) await dropDatabase(database);
  });

  /** The recorded answer as MicroStream's SQL file system would print it: file names of the tables. */
  function asStoredInTables(c: RecordedCase, storageDir: string): RecordedCase {
    if (c.kind !== 'filesStatistics' || c.body === undefined) return c;
    return { ...c, body: c.body.split(`"${storageDir}/channel_0/`).join(`"${ROOT}_channel_0_`) };
  }

  async function mismatches(inspector: number, state: StateCases, kinds: ReadonlySet<string>, sampleEvery = 1): Promise<string[]> {
    const problems: string[] = [];
    let n = 0;
    for (const recorded of state.cases) {
      if (!kinds.has(recorded.kind)) continue;
      if (recorded.kind === 'object' && n++ % sampleEvery !== 0) continue;
      const c = asStoredInTables(recorded as RecordedCase, state.storageDir);
      const response = await inspectors[inspector]!.app.inject({ method: 'GET', url: c.request, headers: { host: '127.0.0.1:4567' } });
      const problem = compareWithCase(c, state.storageDir, state.storageDir, {
        status: response.statusCode,
        contentType: response.headers['content-type'] as string | undefined,
        body: response.rawPayload,
      });
      if (problem !== undefined) problems.push(`${c.request}: ${problem}`);
    }
    return problems;
  }

  /**
   * Problems once the inspector's own polling has read the tables after the last write: two
   * refreshes completed from now on (the first may have started before the write). A state to
   * wait for, not a time: on a busy machine polling is slower, never wrong.
   */
  async function afterPolling(inspector: number, state: StateCases, kinds: ReadonlySet<string>): Promise<string[]> {
    await inspectors[inspector]!.polls.next(2);
    return mismatches(inspector, state, kinds);
  }

  async function apply(op: FileOp, range?: { start: number; end: number }): Promise<void> {
    switch (op.op) {
      case 'create':
        break; // a file without rows does not exist: the connector's first write creates it
      case 'append': {
        const data = Buffer.from(op.data ?? '', 'base64');
        await writer.append(op.path, range === undefined ? data : data.subarray(range.start, range.end));
        break;
      }
      case 'truncate':
        if ((op.length ?? 0) === 0) await writer.delete(op.path);
        else await writer.truncate(op.path, op.length ?? 0);
        break;
      case 'delete':
        await writer.delete(op.path);
        break;
    }
  }

  async function dictionaryIsWhole(from: StateCases, to: StateCases): Promise<void> {
    for (const { app } of inspectors) {
      const body = (await app.inject({ url: '/microstream/dictionary' })).body;
      const texts = [from, to].map((s) => s.cases.find((c) => c.kind === 'dictionary')?.body);
      const whole = texts.includes(body) || (body.endsWith('}\n') && (texts[1] ?? '').startsWith(body) && body.startsWith(texts[0] ?? ''));
      expect(whole, `dictionary of ${body.length} characters`).toBe(true);
    }
  }

  const ALL = new Set(['root', 'dictionary', 'filesStatistics', 'object', 'objectReferences', 'absent']);
  const STABLE = new Set(['root', 'object', 'objectReferences', 'absent']);

  it('serves the first state', async () => {
    expect((await mismatches(0, loadStateCases('S0'), ALL)).slice(0, 5)).toEqual([]);
  });

  for (const transition of transitions) {
    // Each operation is written, refreshed and compared: the bound grows with their number (the
    // housekeeping transitions have 80-102; about 60 s for them at load 20 beside the suite).
    it(`${transition.from} → ${transition.to} (${transition.kind}, ${transition.ops.length} operations as SQL)`, { timeout: 60_000 + transition.ops.length * 2_000 }, async () => {
      const from = loadStateCases(transition.from);
      const to = loadStateCases(transition.to);
      const commitOp = transition.commitOp ?? -1;
      for (let i = 0; i < transition.ops.length; i++) {
        const op = transition.ops[i]!;
        if (op.op === 'append' && (op.length ?? 0) > 1 && (i < commitOp || transition.kind === 'housekeeping')) {
          // Half a write (a record or log entry cut in the middle, as a row of its own) stays invisible.
          const half = Math.floor((op.length ?? 0) / 2);
          await apply(op, { start: 0, end: half });
          await inspectors[0]!.follower.refreshNow();
          expect((await mismatches(0, from, STABLE, 11)).slice(0, 3), `after half of op ${i}`).toEqual([]);
          await apply(op, { start: half, end: op.length ?? 0 });
        } else {
          await apply(op);
        }
        if (i < transition.ops.length - 1) {
          await inspectors[0]!.follower.refreshNow();
          const expected = i < commitOp ? from : transition.kind === 'housekeeping' ? from : to;
          expect((await mismatches(0, expected, STABLE, 11)).slice(0, 3), `after op ${i} (${op.op} ${op.path})`).toEqual([]);
          await dictionaryIsWhole(from, to);
        }
      }
      // Polling alone (tables have no file system events) shows the new state, to both inspectors.
      expect((await afterPolling(0, to, ALL)).slice(0, 5)).toEqual([]);
      expect((await afterPolling(1, to, ALL)).slice(0, 5)).toEqual([]);
    });
  }

  it('never failed a refresh, and wrote nothing', async () => {
    expect(inspectors.flatMap((i) => i.events)).toEqual([]);
    const before = await tablesDigest(writerClient, ROOT);
    for (const { follower } of inspectors) await follower.refreshNow();
    expect(await tablesDigest(writerClient, ROOT)).toBe(before);
  });
});
