import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { loadDuck } from '../../../src/sql/duck-module.js';
import { openSandbox, prepareChecked, type Sandbox, type SandboxOptions } from '../../../src/sql/sandbox/sandbox.js';
import type { CheckedStatement } from '../../../src/sql/sandbox/statement-check.js';

/**
 * sandbox.ts's own logic, each test opening a sandbox of its own (about 0.1 s): where its
 * directory is made and when it refuses, the settings DuckDB is opened with, the seed, what `lock`
 * locks and lists, `close`, and what `prepareChecked` lets through. The layers as a whole are in
 * test/security/sql-layers.test.ts (which opens one sandbox for all its tests).
 */

const opened: Sandbox[] = [];
const removed: string[] = [];
afterEach(() => {
  for (const sandbox of opened.splice(0)) if (existsSync(sandbox.tempDirectory)) sandbox.close();
  for (const path of removed.splice(0)) rmSync(path, { recursive: true, force: true });
});

async function open(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const sandbox = await openSandbox(await loadDuck(), { memoryLimitBytes: 64 * 1024 ** 2, ...options });
  opened.push(sandbox);
  return sandbox;
}

async function setting(connection: DuckDBConnection, name: string): Promise<unknown> {
  return (await connection.runAndReadAll(`SELECT current_setting('${name}')::VARCHAR`)).getRows()[0]![0];
}

function scratch(): string {
  const path = mkdtempSync(join(realpathSync(tmpdir()), 'sandbox-test-'));
  removed.push(path);
  return path;
}

async function allowedDirectories(connection: DuckDBConnection): Promise<string[]> {
  return (await connection.runAndReadAll("SELECT unnest(current_setting('allowed_directories'))")).getRows().map((row) => String(row[0]));
}

/** The sandbox directories in the temporary directory now. */
function sandboxDirectories(): string[] {
  return readdirSync(realpathSync(tmpdir())).filter((name) => name.startsWith('storage-inspector-sql-'));
}

describe('where the sandbox lives', () => {
  it('makes a private directory of its own in the temporary directory, with the database file and a 0700 answers directory', async () => {
    const sandbox = await open();
    expect(dirname(sandbox.tempDirectory)).toBe(realpathSync(tmpdir()));
    expect(basename(sandbox.tempDirectory)).toMatch(/^storage-inspector-sql-.{6}$/);
    expect(sandbox.databaseFile).toBe(join(sandbox.tempDirectory, 'tables.duckdb'));
    expect(existsSync(sandbox.databaseFile)).toBe(true);
    expect(sandbox.exportDirectory).toBe(join(sandbox.tempDirectory, 'answers'));
    expect(statSync(sandbox.exportDirectory).mode & 0o777).toBe(0o700);
  });

  it('refuses a temporary directory inside the storage directory, or the same, before making anything', async () => {
    const base = realpathSync(tmpdir());
    const before = sandboxDirectories();
    await expect(open({ storageDirectory: '/' })).rejects.toThrow(`the temporary directory ${base} is inside the storage directory /; set TMPDIR elsewhere`);
    await expect(open({ storageDirectory: base })).rejects.toThrow(`the temporary directory ${base} is inside the storage directory ${base}; set TMPDIR elsewhere`);
    expect(sandboxDirectories()).toEqual(before);
  });

  it('follows a symbolic link to the storage directory before comparing', async () => {
    const link = join(scratch(), 'storage');
    symlinkSync('/', link);
    await expect(open({ storageDirectory: link })).rejects.toThrow(/is inside the storage directory \/; set TMPDIR elsewhere/);
  });

  it('opens beside a storage directory elsewhere, or one that is gone', async () => {
    const storage = scratch();
    expect((await open({ storageDirectory: storage })).tempDirectory.startsWith(storage)).toBe(false);
    expect(dirname((await open({ storageDirectory: join(storage, 'gone') })).tempDirectory)).toBe(realpathSync(tmpdir()));
    // A sibling of the temporary directory: it lies at `../<its name>` from there, not inside.
    const sibling = join(dirname(realpathSync(tmpdir())), 'sandbox-test-sibling-that-is-not-there');
    expect(dirname((await open({ storageDirectory: sibling })).tempDirectory)).toBe(realpathSync(tmpdir()));
  });

  it('resolves the temporary directory through links, and quotes it in the lock (a quote in TMPDIR)', async () => {
    const real = join(scratch(), "it's real");
    mkdirSync(real);
    const link = join(dirname(real), "it's a link");
    symlinkSync(real, link);
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = link;
    let sandbox: Sandbox;
    try {
      sandbox = await open();
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    expect(dirname(sandbox.tempDirectory)).toBe(real);
    const connection = await sandbox.instance.connect();
    await sandbox.lock(connection);
    expect(await allowedDirectories(connection)).toContain(`${sandbox.exportDirectory}/`);
    await connection.run(`COPY (SELECT 7 AS x) TO '${join(sandbox.exportDirectory, 'a.parquet').replaceAll("'", "''")}'`);
    expect(existsSync(join(sandbox.exportDirectory, 'a.parquet'))).toBe(true);
    connection.closeSync();
  });
});

describe('the settings DuckDB is opened with', () => {
  it('sets the memory limit in whole megabytes, at least 16, and no extensions of any kind', async () => {
    const connection = await (await open({ memoryLimitBytes: 100.9 * 1024 ** 2 })).instance.connect();
    // DuckDB shows 100 MB (10^6 bytes) in MiB.
    expect(await setting(connection, 'memory_limit')).toBe('95.3 MiB');
    for (const name of ['autoinstall_known_extensions', 'autoload_known_extensions', 'allow_community_extensions', 'allow_unsigned_extensions']) {
      expect(await setting(connection, name), name).toBe('false');
    }
    expect(await setting(connection, 'allocator_background_threads')).toBe('true');
    connection.closeSync();
    const small = await (await open({ memoryLimitBytes: 1 })).instance.connect();
    expect(await setting(small, 'memory_limit')).toBe('15.2 MiB');
    small.closeSync();
  });

  it('spills into its own directory and takes the number of threads it is given', async () => {
    const sandbox = await open({ threads: 1 });
    const connection = await sandbox.instance.connect();
    expect(await setting(connection, 'temp_directory')).toBe(join(sandbox.tempDirectory, 'spill'));
    expect(await setting(connection, 'threads')).toBe('1');
    connection.closeSync();
  });

  it('writes its blocks uncompressed only when its database is never kept (no cache), compressed otherwise', async () => {
    /** The compressions DuckDB chose for a table of a few row groups of repeated values, written out. */
    const compressions = async (options: Partial<SandboxOptions>): Promise<string[]> => {
      const connection = await (await open(options)).instance.connect();
      try {
        await connection.run("CREATE TABLE t AS SELECT i % 7 AS n, 'tag-' || (i % 5) AS tag, (i % 11) * 0.5 AS price FROM range(300000) r(i)");
        await connection.run('CHECKPOINT');
        const rows = (await connection.runAndReadAll("SELECT DISTINCT compression FROM pragma_storage_info('t') WHERE segment_type <> 'VALIDITY' ORDER BY 1")).getRows();
        expect((await connection.runAndReadAll('SELECT count(*), sum(n), sum(price) FROM t')).getRows()[0]!.map(String)).toEqual(['300000', '899997', '749994.0']);
        return rows.map((row) => String(row[0]));
      } finally {
        connection.closeSync();
      }
    };
    expect(await compressions({ neverKept: true })).toEqual(['Uncompressed']);
    for (const options of [{}, { neverKept: false }]) expect(await compressions(options)).not.toContain('Uncompressed');
  });

  it('cannot make its private directory again by spilling once it was removed (at exit, while DuckDB still runs)', async () => {
    const sandbox = await open({ memoryLimitBytes: 16 * 1024 ** 2, threads: 1 });
    const connection = await sandbox.instance.connect();
    // What the exit handler does to a sandbox DuckDB still works in, before its first spill.
    rmSync(sandbox.tempDirectory, { recursive: true, force: true });
    // More groups than 16 MB hold: DuckDB spills, making its temp_directory first. With the
    // private directory as its temp_directory, it made that again and the statement ran.
    const outcome = await connection.run('SELECT count(*) FROM (SELECT i, count(*) FROM range(2000000) t(i) GROUP BY i)').then(
      () => 'ran',
      (error: unknown) => String(error),
    );
    connection.closeSync();
    expect(existsSync(sandbox.tempDirectory)).toBe(false);
    expect(outcome).toMatch(/Failed to create directory/);
    await sandbox.close();
  });
});

describe('the seed', () => {
  it('opens the database the seed put into place, and says so', async () => {
    const duck = await loadDuck();
    let given = '';
    const sandbox = await open({
      seed: async (file) => {
        given = file;
        const instance = await duck.DuckDBInstance.create(file);
        const connection = await instance.connect();
        await connection.run('CREATE TABLE kept AS SELECT 41 + 1 AS answer');
        connection.closeSync();
        instance.closeSync();
        return true;
      },
    });
    expect(given).toBe(sandbox.databaseFile);
    expect(sandbox.seeded).toBe(true);
    const connection = await sandbox.instance.connect();
    expect(String((await connection.runAndReadAll('SELECT answer FROM kept')).getRows()[0]![0])).toBe('42');
    connection.closeSync();
  });

  it('says when the seed put nothing into place, or when there was none', async () => {
    expect((await open({ seed: async () => false })).seeded).toBe(false);
    expect((await open()).seeded).toBe(false);
  });

  it('removes its directory when the seed fails or DuckDB cannot open what it put there', async () => {
    let directory = '';
    await expect(open({ seed: async (file) => {
      directory = dirname(file);
      throw new Error('no copy today');
    } })).rejects.toThrow('no copy today');
    expect(directory).not.toBe('');
    expect(existsSync(directory)).toBe(false);
    await expect(open({ seed: async (file) => {
      directory = dirname(file);
      writeFileSync(file, 'not a database, '.repeat(1000));
      return true;
    } })).rejects.toThrow();
    expect(existsSync(directory)).toBe(false);
  });
});

describe('lock', () => {
  it('lists the main catalog\'s tables and views in lower case as the storage\'s, every other catalog\'s as reserved', async () => {
    const sandbox = await open();
    expect([...sandbox.allowed.own]).toEqual([]);
    expect([...sandbox.allowed.reserved]).toEqual([]);
    const connection = await sandbox.instance.connect();
    await connection.run('CREATE TABLE _Objects AS SELECT 1 AS oid');
    await connection.run('CREATE VIEW Book AS SELECT * FROM _Objects');
    // A storage's type may bear the name of a system view: then it is the storage's.
    await connection.run('CREATE VIEW Tables AS SELECT 1 AS t');
    await sandbox.lock(connection);
    expect([...sandbox.allowed.own].sort()).toEqual(['_objects', 'book', 'tables']);
    const reserved = sandbox.allowed.reserved;
    for (const name of ['duckdb_tables', 'duckdb_views', 'columns', 'pg_tables', 'sqlite_master']) expect(reserved.has(name), name).toBe(true);
    for (const name of ['_objects', 'book', 'tables']) expect(reserved.has(name), name).toBe(false);
    connection.closeSync();
  });

  it('turns file access and configuration changes off, leaving only the answers directory writable', async () => {
    const sandbox = await open();
    const connection = await sandbox.instance.connect();
    await sandbox.lock(connection);
    expect(await setting(connection, 'enable_external_access')).toBe('false');
    expect(await setting(connection, 'lock_configuration')).toBe('true');
    expect(await allowedDirectories(connection)).toContain(`${sandbox.exportDirectory}/`);
    await connection.run(`COPY (SELECT 1 AS x) TO '${join(sandbox.exportDirectory, 'answer.parquet')}'`);
    expect(existsSync(join(sandbox.exportDirectory, 'answer.parquet'))).toBe(true);
    const outside = join(scratch(), 'outside.parquet');
    await expect(connection.run(`COPY (SELECT 1 AS x) TO '${outside}'`)).rejects.toThrow(/Permission Error/);
    expect(existsSync(outside)).toBe(false);
    await expect(connection.run("SET memory_limit = '1GB'")).rejects.toThrow(/locked/i);
    connection.closeSync();
  });

  it('lists the tables but locks nothing when files are allowed (our own exports)', async () => {
    const sandbox = await open({ allowFiles: true });
    const connection = await sandbox.instance.connect();
    await connection.run('CREATE TABLE t AS SELECT 1 AS x');
    await sandbox.lock(connection);
    expect([...sandbox.allowed.own]).toEqual(['t']);
    expect(await setting(connection, 'enable_external_access')).toBe('true');
    expect(await setting(connection, 'lock_configuration')).toBe('false');
    const outside = join(scratch(), 'outside.parquet');
    await connection.run(`COPY (SELECT 1 AS x) TO '${outside}'`);
    expect(existsSync(outside)).toBe(true);
    connection.closeSync();
  });
});

describe('close', () => {
  it('closes DuckDB and removes the whole directory', async () => {
    const sandbox = await open();
    const connection = await sandbox.instance.connect();
    await connection.run('CREATE TABLE t AS SELECT 1 AS x');
    connection.closeSync();
    sandbox.close();
    expect(existsSync(sandbox.tempDirectory)).toBe(false);
    await expect(sandbox.instance.connect()).rejects.toThrow();
  });

  it('removes the directory only once the connections still running a statement are closed: DuckDB makes nothing again after', async () => {
    // A TMPDIR of this test's own: what appears in it is this sandbox's only.
    const temporary = scratch();
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    let sandbox: Sandbox;
    try {
      sandbox = await open({ memoryLimitBytes: 16 * 1024 ** 2, threads: 1 });
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
    const connection = await sandbox.instance.connect();
    // More groups than 16 MB hold (about 0.5 s here): DuckDB spills into its temp_directory,
    // inside the sandbox's directory, from some 0.1 s on. Before, it made the directory again
    // when it spilled after `close` had removed it; a process killed before the connection was
    // closed left it.
    const running = connection.run('SELECT count(*) FROM (SELECT i, count(*) FROM range(2000000) t(i) GROUP BY i)');
    // Its owner closes the connection once the statement has ended, as every user of a sandbox does.
    const ended = running.then(
      async (result) => String((await result.getRowsJS())[0]![0]),
      (error: unknown) => String(error),
    ).finally(() => connection.closeSync());
    let closed = false;
    const closing = Promise.resolve(sandbox.close()).then(() => (closed = true));
    // Whatever appears in the temporary directory from the moment `close` has resolved.
    const madeAfterClose: string[] = [];
    const watcher = watch(temporary, (_event, file) => {
      if (closed && file !== null && existsSync(join(temporary, file))) madeAfterClose.push(file);
    });
    try {
      const outcome = await ended;
      await closing;
      expect(madeAfterClose).toEqual([]);
      expect(readdirSync(temporary)).toEqual([]);
      // Interrupted by `close`, or run to its end if it had not started yet when `close` came.
      expect(outcome).toMatch(/^(2000000|Error: INTERRUPT Error: Interrupted!)$/);
    } finally {
      watcher.close();
    }
  });

  it('waits for a connection being made when close comes, then closes it with the others: DuckDB closed under it ended the process', async () => {
    const sandbox = await open();
    // A fill that was connecting when the statement that started it was cancelled: its connect
    // is under way in DuckDB's threads when `close` comes. Before, DuckDB was closed under it
    // at once and the process died (a segmentation fault: the test runner's worker gone).
    const connecting = sandbox.instance.connect();
    let closed = false;
    const closing = sandbox.close().then(() => (closed = true));
    const connection = await connecting;
    // Its owner uses it and closes it once done, as every user of a sandbox does.
    const answer = await connection.runAndReadAll('SELECT 42').then(
      (reader) => String(reader.getRows()[0]![0]),
      (error: unknown) => String(error),
    );
    expect(closed).toBe(false);
    expect(existsSync(sandbox.tempDirectory)).toBe(true);
    connection.closeSync();
    await closing;
    expect(existsSync(sandbox.tempDirectory)).toBe(false);
    // Interrupted by `close`, or run if the interrupt came before it started.
    expect(answer).toMatch(/^(42|Error: INTERRUPT Error: Interrupted!)$/);
    // No connection once `close` has begun.
    await expect(sandbox.instance.connect()).rejects.toThrow('instance closed');
  });
});

describe('prepareChecked: DuckDB must find the statement the check saw', () => {
  async function prepared(text: string, kind: CheckedStatement['kind'] = 'select', shift = 0): Promise<unknown> {
    const sandbox = await open();
    const connection = await sandbox.instance.connect();
    try {
      await connection.run('CREATE TABLE t AS SELECT 42 AS x');
      const statement = await prepareChecked(await loadDuck(), connection, { text, kind, shift, tables: new Set(['t']) });
      return String((await statement.runAndReadAll()).getRows()[0]![0]);
    } catch (error) {
      return error;
    } finally {
      connection.closeSync();
    }
  }

  it('prepares the one SELECT, and EXPLAIN for an explain', async () => {
    expect(await prepared('SELECT x FROM t')).toBe('42');
    expect(await prepared('EXPLAIN SELECT x FROM t', 'explain')).toBe('physical_plan');
  });

  it('refuses a statement of another type than the check found, or with parameters', async () => {
    const refused = (found: string, expected: string) => ({ kind: 'refused', message: `only read-only statements are run; DuckDB found ${found} where the check found ${expected}` });
    expect(await prepared('DELETE FROM t')).toMatchObject(refused('DELETE', 'SELECT'));
    expect(await prepared('EXPLAIN SELECT 1')).toMatchObject(refused('EXPLAIN', 'SELECT'));
    expect(await prepared('SELECT 1', 'explain')).toMatchObject(refused('SELECT', 'EXPLAIN'));
    expect(await prepared('SELECT $1')).toMatchObject(refused('SELECT', 'SELECT'));
  });

  it('refuses more than one statement', async () => {
    expect(await prepared('SELECT 1; SELECT 2')).toMatchObject({ kind: 'refused', message: 'one statement per request, 2 given' });
  });

  it('points at the error in the user\'s own text, past the EXPLAIN it added', async () => {
    expect(await prepared('SELECT * FROM nosuch')).toMatchObject({ kind: 'invalid', position: 'SELECT * FROM '.length });
    expect(await prepared('EXPLAIN SELECT * FROM nosuch', 'explain', 'EXPLAIN '.length)).toMatchObject({ kind: 'invalid', position: 'SELECT * FROM '.length });
    expect(await prepared('EXPLAIN SELECT * FROM nosuch', 'explain', 100)).toMatchObject({ kind: 'invalid', position: 0 });
    // A syntax error, found when DuckDB splits the text into statements.
    expect(await prepared('EXPLAIN SELECT 1 FROM FROM', 'explain', 'EXPLAIN '.length)).toMatchObject({ kind: 'invalid', position: 'SELECT 1 FROM '.length });
    // An error DuckDB locates nowhere keeps no position, EXPLAIN or not.
    expect(await prepared('EXPLAIN SELECT (1', 'explain', 'EXPLAIN '.length)).toMatchObject({ kind: 'invalid', message: expect.stringMatching(/syntax error at end of input/), position: undefined });
    expect(await prepared('EXPLAIN SELECT 1; SELECT 2', 'explain', 'EXPLAIN '.length)).toMatchObject({ kind: 'refused', position: undefined });
  });
});
