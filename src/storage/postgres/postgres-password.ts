import { StorageError } from '../../errors.js';

/**
 * Where the password of a PostgreSQL storage comes from, and what happens when the server asks
 * for one that none of those places has.
 *
 * node-postgres asks its password function only when the server asks for a password. Answering
 * "none" there (undefined) leaves a SCRAM exchange half done ("client password must be a
 * string") with the socket still open: the server waits for the client's next message until its
 * authentication timeout, and the process cannot end. So a missing password is an error that says
 * where one can come from, and a connection that failed to start is closed at once.
 */

/** Where a password can come from, as messages list it. */
export const PASSWORD_SOURCES =
  'PGPASSWORD, a password file (PGPASSFILE or ~/.pgpass, lines host:port:database:user:password, readable by its owner only) or --pg-password-file (STORAGE_INSPECTOR_PG_PASSWORD_FILE)';

interface ConnectionParameters {
  readonly host?: string;
  readonly port?: number;
  readonly database?: string;
  readonly user?: string;
}

/**
 * libpq's order: PGPASSWORD, then the password file (PGPASSFILE or ~/.pgpass); with none, a
 * STORAGE_UNAVAILABLE error naming the sources.
 */
export function environmentPassword(params: ConnectionParameters): Promise<string> {
  const fromEnv = process.env['PGPASSWORD'];
  if (fromEnv !== undefined) return Promise.resolve(fromEnv);
  // Loaded here: only a storage kept in PostgreSQL needs it.
  return import('pgpass').then(
    ({ default: pgpass }) =>
      new Promise<string>((resolve, reject) => {
        pgpass(params, (password) => (password === undefined ? reject(missingPassword(params)) : resolve(password)));
      }),
  );
}

export function missingPassword(params: ConnectionParameters): StorageError {
  const where = `${params.host ?? 'localhost'}:${params.port ?? 5432}`;
  return new StorageError(
    'STORAGE_UNAVAILABLE',
    `the PostgreSQL server ${where} asks for a password for role ${params.user ?? '(default)'} (database ${params.database ?? '(default)'}) and none was found: give it in ${PASSWORD_SOURCES}`,
  );
}
