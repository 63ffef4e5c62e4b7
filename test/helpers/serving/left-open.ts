import type { Socket } from 'node:net';
import { afterEach, vi } from 'vitest';

/**
 * What a test of stalled answers leaves open: the raw clients it made stop reading, and the server
 * that waits on them. Such a client never closes by itself, and a server does not finish closing
 * while its connections stay open, so the sockets go first.
 */
export interface LeftOpen {
  /** The test's raw clients: destroyed after it. */
  readonly sockets: Socket[];
  /** How the test's server closes, set when it starts one: called after its clients are destroyed, then forgotten. */
  closeServer: (() => Promise<void>) | undefined;
}

/**
 * Registers, for the calling test file, what is done after each test: real timers back (a test may
 * fake them to count a stall watch's, and one that fails would leave them faked for the next), the
 * clients' sockets destroyed, the server closed. Call it once, at the top of the file.
 */
export function closedAfterEach(): LeftOpen {
  const open: LeftOpen = { sockets: [], closeServer: undefined };
  afterEach(async () => {
    vi.useRealTimers();
    for (const socket of open.sockets.splice(0)) socket.destroy();
    const close = open.closeServer;
    open.closeServer = undefined;
    await close?.();
  });
  return open;
}
