import pg from 'pg';

/**
 * A client that closes its socket when connecting fails. The pool forgets such a client without
 * ending it; a server still waiting in the middle of authentication would keep it open
 * (postgres-password.ts says why). Its own module, loaded with node-postgres when a storage kept
 * in PostgreSQL is first read.
 */
export class ClosingClient extends pg.Client {
  override connect(): Promise<pg.Client>;
  override connect(callback: (err: Error | null) => void): void;
  override connect(callback?: (err: Error | null) => void): Promise<pg.Client> | void {
    if (callback === undefined) {
      return super.connect().catch((error: unknown) => {
        this.closeAfterFailure();
        throw error;
      });
    }
    super.connect((error: Error | null) => {
      if (error) this.closeAfterFailure();
      callback(error);
    });
  }

  private closeAfterFailure(): void {
    // `end` would send a Terminate message that a server in mid-authentication does not expect.
    this.connection.stream.destroy();
  }
}
