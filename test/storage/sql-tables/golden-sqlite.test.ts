import { describe, expect, it } from 'vitest';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_SETS, casesFile, sqliteFile } from '../../helpers/corpora/afs-sql.js';
import { loadCases } from '../../helpers/corpora/conformance.js';
import { replayRecordedCases } from '../../helpers/serving/replay-served.js';

/**
 * Replays every request recorded while EclipseStore 4.2 served its storages kept in SQLite
 * (conformance-afs-sql) against our server reading the very database files, over a real socket:
 * status, content type and body bytes.
 */
describe.each(AFS_SQL_SETS)('conformance (SQLite, EclipseStore 4.2): %s', (set) => {
  const { header, cases } = loadCases(casesFile('sqlite', set));
  const served = replayRecordedCases(header, cases, () => Storage.open(openStorageSource(`sqlite:${sqliteFile(set)}`, { table: AFS_ROOT_TABLE })));

  it('reads the storage the recording was made from', () => {
    expect(header.storageDir).toBe(AFS_ROOT_TABLE);
    expect(served.storage.source.kind).toBe('sqlite');
    expect(served.storage.warnings).toEqual([]);
  });
});
