import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffStorages, type ObjectChange } from '../../../src/diff/storage-diff.js';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR, expectedBody, loadCases } from '../../helpers/corpora/conformance.js';
import { cloneStorageDatabase, dropDatabase, postgresInfo, READER_PASSWORD, readerUrl, SQL_CONFORMANCE_DIR } from '../../helpers/real-systems/postgres.js';

/**
 * `diff` of a storage kept in PostgreSQL: the `graph` storage a real MicroStream 4.1 wrote into
 * PostgreSQL against the `graph` storage it wrote into a directory (two runs of the same
 * application). Objects are matched by id; the diff reports exactly the objects whose recorded
 * Java answers differ between the two corpora (none: the same objects with the same values, kept
 * in different files and rows), and a storage is equal to itself.
 */

let database: string;
let passwordFile: string;

beforeAll(async () => {
  database = await cloneStorageDatabase('graph', 'diff');
  passwordFile = join(postgresInfo().root, `diff-password-${process.pid}`);
  writeFileSync(passwordFile, `${READER_PASSWORD}\n`, { mode: 0o600 });
});

afterAll(async () => {
  await dropDatabase(database);
});

const IDENTITY_HASH = /("(?:[A-Za-z_$][A-Za-z0-9_$]*\.)+[A-Za-z_$][A-Za-z0-9_$]*)@[0-9a-f]{1,8}"/g;

/** Object id → Java's answer, with what its `vary` names masked (an identity hash differs from run to run). */
function answers(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of loadCases(file).cases) {
    const id = c.kind === 'object' ? /\/object\/(\d+)$/.exec(c.request)?.[1] : undefined;
    const body = expectedBody(c).toString('utf8');
    if (id !== undefined) out.set(id, c.vary?.includes('identityHashCode') ? body.replace(IDENTITY_HASH, '$1@*"') : body);
  }
  return out;
}

describe('diff with a storage kept in PostgreSQL', () => {
  it('reports exactly the objects whose Java answers differ from the directory storage', async () => {
    const inDatabase = await Storage.open(openStorageSource(readerUrl(database), { table: 'ms_graph', passwordFile }));
    const inDirectory = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'));
    try {
      const found: ObjectChange[] = [];
      const report = await diffStorages(inDirectory, inDatabase, { limit: Number.MAX_SAFE_INTEGER, onObject: (c) => void found.push(c) });
      const a = answers(join(CONFORMANCE_DIR, 'cases', 'graph.jsonl'));
      const b = answers(join(SQL_CONFORMANCE_DIR, 'cases', 'graph.jsonl'));
      const expected = [
        ...[...a].filter(([id, body]) => b.has(id) && b.get(id) !== body).map(([id]) => `changed ${id}`),
        ...[...a.keys()].filter((id) => !b.has(id)).map((id) => `removed ${id}`),
        ...[...b.keys()].filter((id) => !a.has(id)).map((id) => `added ${id}`),
      ].sort();
      expect(found.map((c) => `${c.change} ${c.objectId}`).sort()).toEqual(expected);
      expect(report.summary.unchanged + report.summary.changed + report.summary.removed).toBe(a.size);
      expect(a.size).toBeGreaterThan(1000);
    } finally {
      await inDatabase.close();
      await inDirectory.close();
    }
  });

  it('a storage in PostgreSQL is not opened on a basis (as the diff command asks): opened whole, the same report', async () => {
    const url = readerUrl(database);
    const inDirectory = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'graph'), { countLatestTypes: true });
    const whole = await Storage.open(openStorageSource(url, { table: 'ms_graph', passwordFile }));
    const onBasis = await Storage.open(openStorageSource(url, { table: 'ms_graph', passwordFile }), { basis: inDirectory });
    const selfOnBasis = await Storage.open(openStorageSource(url, { table: 'ms_graph', passwordFile }), { basis: whole });
    try {
      expect([onBasis.basisOpening, selfOnBasis.basisOpening]).toEqual([undefined, undefined]);
      expect(onBasis.entityCount).toBe(whole.entityCount);
      const options = { limit: Number.MAX_SAFE_INTEGER };
      expect(await diffStorages(inDirectory, onBasis, options)).toEqual(await diffStorages(inDirectory, whole, options));
    } finally {
      await Promise.all([selfOnBasis.close(), onBasis.close(), whole.close(), inDirectory.close()]);
    }
  });

  it('storage-inspector diff takes PostgreSQL storages and exits 0 when equal', async () => {
    const { code, stderr } = await runCliInProcess(['diff', readerUrl(database), readerUrl(database), '--table', 'ms_graph', '--pg-password-file', passwordFile]);
    expect(code, stderr).toBe(0);
  });
});
