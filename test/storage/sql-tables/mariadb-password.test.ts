import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { optionFilePassword } from '../../../src/storage/sql-tables/mariadb-password.js';
import { AFS_ROOT_TABLE } from '../../helpers/corpora/afs-sql.js';
import { runCliInProcess } from '../../helpers/serving/cli-in-process.js';
import { mariadbInfo, mariadbReaderUrl } from '../../helpers/real-systems/mariadb.js';
import { MARIADB_READER_PASSWORD } from '../../helpers/real-systems/mariadb-server.js';

/**
 * The password of a storage kept in MariaDB from the client option file, as the mariadb and mysql
 * clients read it: the client groups only, the last value, quotes and comments.
 */
describe('the client option file', () => {
  it('takes password= of the client groups, the last one, unquoted', () => {
    expect(optionFilePassword('[mysqld]\npassword=server\n[client]\npassword = first\n[client-mariadb]\npassword="se cret" \n')).toBe('se cret');
    expect(optionFilePassword("# comment\n[client]\npassword='a#b'\n[mysqldump]\npassword=other\n")).toBe('a#b');
    expect(optionFilePassword('[client]\npassword=plain # a comment\n')).toBe('plain');
    expect(optionFilePassword('[mysqld]\npassword=server\n')).toBeUndefined();
    expect(optionFilePassword('password=outside any group\n')).toBeUndefined();
  });

  const info = mariadbInfo();
  const dir = mkdtempSync(join(tmpdir(), 'si-my-cnf-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.skipIf(info === null)('logs in with the password of the option file MARIADB_OPTION_FILE names', async () => {
    const file = join(dir, 'my.cnf');
    writeFileSync(file, `[client]\nuser=ignored\npassword="${MARIADB_READER_PASSWORD}"\n`, { mode: 0o600 });
    const before = process.env['MARIADB_OPTION_FILE'];
    process.env['MARIADB_OPTION_FILE'] = file;
    try {
      const result = await runCliInProcess(['check', mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE]);
      expect(result.code, result.stderr).toBe(0);
      writeFileSync(file, '[client]\npassword=wrong\n', { mode: 0o600 });
      const refused = await runCliInProcess(['check', mariadbReaderUrl(info!, 'es_graph'), '--table', AFS_ROOT_TABLE]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toMatch(/Access denied for user 'si_reader'/);
    } finally {
      if (before === undefined) delete process.env['MARIADB_OPTION_FILE'];
      else process.env['MARIADB_OPTION_FILE'] = before;
    }
  });
});
