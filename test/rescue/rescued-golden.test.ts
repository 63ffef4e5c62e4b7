import { mkdtempSync, rmSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { buildApp } from '../../src/http/app.js';
import { rescueStorage, type RescueReport } from '../../src/rescue/rescue-storage.js';
import { Storage } from '../../src/storage/storage.js';
import { compareWithCase, CORPORA, loadCases, type RecordedCase } from '../helpers/corpora/conformance.js';
import { rawRequest } from '../helpers/serving/raw-http.js';
import { diffSnapshots, snapshotTree } from '../security/snapshot.js';

/**
 * The rescued copy of an undamaged storage is the same storage: every recorded request of the Java
 * service (except the file statistics, which describe the new files) gets the recorded answer
 * from the copy, byte for byte, and `check` finds nothing wrong with it.
 */

/**
 * The MicroStream 4.1 corpus, and EclipseStore's `modernjdk` (types whose handler writes another
 * layout than it declares). The other generations' storages rescue the same way; replaying all of
 * them would only add minutes to the suite.
 */
const STORAGES = CORPORA.flatMap((corpus) =>
  corpus.storages
    .filter((name) => corpus.generation === 'MicroStream 4.1' || (corpus.generation === 'EclipseStore 4.1' && name === 'modernjdk'))
    .map((name) => ({ corpus, name, label: `${corpus.generation} ${name}` })),
);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-rescued-golden-'));
});
afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

describe.each(STORAGES)('the rescued copy of $label', ({ corpus, name, label }) => {
  const { header, cases } = loadCases(join(corpus.dir, 'cases', `${name}.jsonl`));
  const source = join(corpus.dir, 'storages', name);
  let out: string;
  let report: RescueReport;
  let storage: Storage;
  let app: ReturnType<typeof buildApp>;
  let port: number;
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });

  beforeAll(async () => {
    const before = snapshotTree(source);
    out = join(work, label.replace(/\W+/g, '-'));
    report = await rescueStorage(source, { out });
    expect(diffSnapshots(before, snapshotTree(source))).toEqual([]);
    storage = await Storage.open(out);
    app = buildApp(storage, { instance: storage.family.defaultInstance });
    await app.listen({ host: '127.0.0.1', port: 0 });
    port = (app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    agent.destroy();
    await app.close();
    await storage.close();
  });

  it('keeps every object, loses nothing, and passes check', async () => {
    const original = await Storage.open(source);
    try {
      expect(report.keptObjects).toBe(original.entityCount);
      expect(storage.entityCount).toBe(original.entityCount);
      expect(storage.channels).toHaveLength(original.channels.length);
    } finally {
      await original.close();
    }
    expect(report.lost).toEqual([]);
    expect(report.danglingCount).toBe(0);
    expect(storage.warnings).toEqual([]);
    const check = await checkStorage(out);
    // Only what the original has too: EclipseStore's BitSet handler writes another layout than it declares.
    expect(check.problems.filter((p) => p.severity !== 'harmless')).toEqual([]);
    expect(check.problems.map((p) => p.code)).toEqual((await checkStorage(source)).problems.map((p) => p.code));
    expect(check.exitCode).toBe(0);
  });

  const statistics = (c: RecordedCase): boolean => c.kind === 'filesStatistics' || c.request.includes('/maintenance/filesStatistics');
  const kinds = [...new Set(cases.filter((c) => !statistics(c)).map((c) => c.kind))];
  it.each(kinds)('%s answers as recorded', async (kind) => {
    const selected = cases.filter((c) => c.kind === kind && !statistics(c));
    const results = await Promise.all(selected.map((c) => replay(c)));
    const failures = results.flatMap((problem, i) => (problem === undefined ? [] : [`${selected[i]!.method} ${selected[i]!.request}: ${problem}`]));
    expect(failures.slice(0, 10), `${failures.length} of ${selected.length} cases fail`).toEqual([]);
  });

  async function replay(c: RecordedCase): Promise<string | undefined> {
    const headers: Record<string, string> = { Host: header.host, ...(c.headers ?? {}) };
    const response = await rawRequest(agent, port, c.method, c.request, headers);
    return compareWithCase(c, header.storageDir, out, response);
  }
});
