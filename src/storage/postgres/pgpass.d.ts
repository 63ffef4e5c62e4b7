/** The `pgpass` module (node-postgres' reader of libpq password files); it ships no types. */
declare module 'pgpass' {
  interface ConnectionInfo {
    readonly host?: string | undefined;
    readonly port?: number | string | undefined;
    readonly database?: string | undefined;
    readonly user?: string | undefined;
  }
  /** Looks the connection up in PGPASSFILE or ~/.pgpass (ignored unless only its owner can read it). */
  function pgpass(connection: ConnectionInfo, callback: (password: string | undefined) => void): void;
  export default pgpass;
}
