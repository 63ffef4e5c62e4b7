import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A plain node:http server on 127.0.0.1 whose responses the test answers itself: each request's
 * `ServerResponse` is handed to the `handed()` that was waiting first. For tests of the guard's
 * accounting of answers (unsent-answers.ts, streamed-room.ts) on real responses and sockets,
 * without an app in between. Started before the file's tests and closed after them (its open
 * connections cut first, so that a test's unread answer cannot hold the close).
 */
export function heldResponses(): { handed(): Promise<ServerResponse>; port(): number } {
  let server: Server;
  const pending: ((response: ServerResponse) => void)[] = [];
  beforeAll(async () => {
    server = createServer((_request, response) => pending.shift()!(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    handed: () => new Promise<ServerResponse>((resolve) => pending.push(resolve)),
    port: () => (server.address() as AddressInfo).port,
  };
}
