import { describe, expect, it } from 'vitest';
import { openStorageSource } from '../../../src/storage/open-source.js';
import { Storage } from '../../../src/storage/storage.js';
import { AFS_ROOT_TABLE, AFS_SQL_SETS, casesFile } from '../../helpers/corpora/afs-sql.js';
import { loadCases } from '../../helpers/corpora/conformance.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { replayRecordedCases } from '../../helpers/serving/replay-served.js';

/**
 * Replays every request recorded while EclipseStore 4.2 served its storages kept in MariaDB
 * (conformance-afs-sql) against our server reading the dumps loaded into a real MariaDB server,
 * as a user with nothing but SELECT on the storage tables, over a real socket: status, content
 * type and body bytes.
 */
const info = mariadbInfo();
describe.skipIf(info === null).each(AFS_SQL_SETS)('conformance (MariaDB, EclipseStore 4.2): %s', (set) => {
  const { header, cases } = loadCases(casesFile('mariadb', set));
  const served = replayRecordedCases(header, cases, () =>
    Storage.open(openStorageSource(mariadbReaderUrl(info!, `es_${set}`), { table: AFS_ROOT_TABLE, passwordFile: info!.passwordFile })),
  );

  it('reads the storage the recording was made from', () => {
    expect(header.storageDir).toBe(AFS_ROOT_TABLE);
    expect(served.storage.source.kind).toBe('mariadb');
    expect(served.storage.warnings).toEqual([]);
  });
});
