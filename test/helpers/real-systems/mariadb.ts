import { inject } from 'vitest';
import type { MariadbTestInfo } from './mariadb-global.js';
import { MARIADB_READER } from './mariadb-server.js';

/** The run's MariaDB server (mariadb-global.ts); null when it is not installed outside CI (the tests skip). */
export function mariadbInfo(): MariadbTestInfo | null {
  return inject('mariadb');
}

/** `mariadb://si_reader@127.0.0.1:<port>/<db>`: no password in it (the password file has it). */
export function mariadbReaderUrl(info: MariadbTestInfo, database: string): string {
  return `mariadb://${MARIADB_READER}@127.0.0.1:${info.port}/${database}`;
}
