import type { ServerResponse } from 'node:http';
import { RequestLimitError } from './limits.js';
import type { UnsentAnswers } from './unsent-answers.js';

/**
 * The room a streamed answer (the NDJSON export; SQL's CSV, NDJSON and Parquet answers) takes in
 * the unsent-bytes budget (`--max-unsent-bytes`, unsent-answers.ts), the same way for each: its
 * bytes in this process are counted (`UnsentAnswers.holdStream`), it asks for room before it
 * starts (`roomBeforeStream`: a 503 with Retry-After before any byte when none comes in time) and
 * before it produces each further piece (`roomForMore`). A stream does not know how big its next
 * piece will be until it has it, and many streams can find room at the same moment (a release
 * wakes every waiter); so a producer may count what it expects the moment it finds room (`claim`,
 * called in the same turn as the look that found it), and the next one looks at a budget that
 * holds it: the bytes of all streams together stay within the budget plus one piece.
 */

/** How often a producer waiting for room looks again at what its own client has taken meanwhile. */
const ROOM_RECHECK_MS = 100;

/**
 * Before its first byte a streamed answer waits for room, for one stall bound at most (every
 * answer stalled now has been ended by then, so the budget is held by readers that read) and
 * within 90 % of the request timeout: past that it is refused with a RequestLimitError (503
 * SERVER_BUSY, Retry-After), not a connection cut by the idle-socket timeout once its headers had
 * gone. Both 0: it waits. A client that goes away meanwhile (or has gone already) ends the wait at
 * once with a ClientGone: nothing is claimed, and the answer is no failure of the server's (its
 * error handler answers 499 to no one, as for a search whose client left). `claim` is called once
 * room is found, in the same turn.
 */
export async function roomBeforeStream(unsent: UnsentAnswers | undefined, requestTimeoutMs: number, response: ServerResponse, claim: () => void = nothing): Promise<void> {
  if (unsent === undefined) return;
  if (unsent.held < unsent.capacity) {
    claim();
    return;
  }
  // Its close came already: no listener would ever hear it, and the wait would last its bound (or for ever).
  if (response.destroyed) throw new ClientGone();
  const gone = new AbortController();
  const leave = (): void => gone.abort();
  response.once('close', leave);
  // Before the request timeout's own 503, which says nothing of when to ask again.
  const bounds = [unsent.stallMs, requestTimeoutMs * 0.9].filter((ms) => ms > 0);
  const deadline = bounds.length === 0 ? Number.POSITIVE_INFINITY : Date.now() + Math.min(...bounds);
  try {
    for (;;) {
      try {
        await unsent.room(deadline, gone.signal);
      } catch (error) {
        // The signal's reason (an AbortError) would reach the error handler as the server's failure.
        if (gone.signal.aborted) throw new ClientGone();
        throw error;
      }
      // Every waiter is woken at once: those resumed before this one may have claimed the room.
      if (unsent.held < unsent.capacity) {
        claim();
        return;
      }
    }
  } finally {
    response.off('close', leave);
  }
}

/**
 * A streamed answer's client went away before its first byte: nobody reads what the error handler
 * sends, and it is not a server error (logged at debug, answered 499 as a cancelled search is).
 */
export class ClientGone extends Error {
  constructor() {
    super('the client went away while its answer waited for room in the unsent-bytes budget (--max-unsent-bytes)');
    this.name = 'ClientGone';
  }
}

/** How a producer's wait for room ended. */
export type RoomOutcome = 'room' | 'stopped' | 'deadline';

/**
 * Waits while answers not yet taken by their clients fill the budget, before a stream produces
 * more: `update` sets this stream's own count again (what its client took meanwhile is given back)
 * before each look, every ROOM_RECHECK_MS. 'stopped' once `signal` aborts; 'deadline' once
 * `deadline` (epoch ms) has passed without room (a statement's own time bound). `claim` is called
 * once room is found, in the same turn.
 */
export async function roomForMore(unsent: UnsentAnswers, update: () => void, signal: AbortSignal, deadline = Number.POSITIVE_INFINITY, claim: () => void = nothing): Promise<RoomOutcome> {
  for (;;) {
    update();
    if (signal.aborted) return 'stopped';
    if (unsent.held < unsent.capacity) {
      claim();
      return 'room';
    }
    if (Date.now() >= deadline) return 'deadline';
    try {
      // Resolves once there is room (or at the next look): whether it is still there is asked above.
      await unsent.room(Math.min(Date.now() + ROOM_RECHECK_MS, deadline), signal);
    } catch (error) {
      if (signal.aborted) return 'stopped';
      if (!(error instanceof RequestLimitError)) throw error;
    }
  }
}

function nothing(): void {}
