/**
 * What API clients are not told: a storage kept in PostgreSQL is named by its URL, and the URL's
 * user, host, port and database say where the database is and who reads it (the operator sees
 * them on stderr). Every client of `/api/v1` (any holder of a token, or anyone when there is no
 * authentication) gets the URL redacted; the table stays, it names the storage.
 */

const CONNECTION_URL = /(postgres(?:ql)?|mariadb|mysql):\/\/[^\s#]*/gi;

/** `postgres://si@db.internal:5432/app (table ms_graph)` → `postgres://(redacted) (table ms_graph)`; MariaDB's and MySQL's alike. */
export function redactConnections(text: string): string {
  return text.replace(CONNECTION_URL, (_url, scheme: string) => `${scheme}://(redacted)`);
}
