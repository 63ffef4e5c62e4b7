import { request, type ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { RequestLimitError } from '../../../src/http/guard/limits.js';
import { ClientGone, roomBeforeStream, roomForMore } from '../../../src/http/guard/streamed-room.js';
import { UnsentAnswers } from '../../../src/http/guard/unsent-answers.js';
import { heldResponses } from '../../helpers/serving/held-responses.js';

/**
 * The room a streamed answer takes in the unsent-bytes budget (streamed-room.ts), on real
 * responses of a loopback server and a real budget: the budget is filled and emptied by a
 * response's own count (`holdStream`), never by time. The waits that end at a bound end at bounds
 * of milliseconds against others of minutes, so that a bound taken wrongly is a test that never
 * ends (it fails at its five seconds), not a timing asserted.
 */

const server = heldResponses();

vi.setConfig({ testTimeout: 5_000 });

const CAPACITY = 1000;
const MINUTES = 10 * 60_000;

/** A response of the server, not yet answered; `leave` destroys its client's socket. */
async function response(): Promise<{ response: ServerResponse; leave: () => void }> {
  const handed = server.handed();
  const client = request({ host: '127.0.0.1', port: server.port(), agent: false }, (answer) => answer.resume());
  client.on('error', () => undefined);
  client.end();
  return { response: await handed, leave: () => client.destroy() };
}

/** A budget whose `bytes` are held by a stream of its own (`set` changes them). */
async function budget(bytes: number, stallMs = MINUTES): Promise<{ unsent: UnsentAnswers; set: (bytes: number) => void }> {
  const unsent = new UnsentAnswers(CAPACITY, stallMs);
  const holder = await response();
  const set = unsent.holdStream(holder.response)!;
  set(bytes);
  return { unsent, set };
}

/** Settles to what the promise came to, as a value. */
function outcome<T>(promise: Promise<T>): Promise<{ value: T } | { error: unknown }> {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe('room before a stream', () => {
  it('is no wait without a budget, and claims nothing there', async () => {
    const claim = vi.fn();
    const { response: r } = await response();
    await roomBeforeStream(undefined, MINUTES, r, claim);
    expect(claim).not.toHaveBeenCalled();
  });

  it('claims at once, in the same turn, while the budget holds less than its capacity', async () => {
    const { unsent } = await budget(CAPACITY - 1);
    const { response: r } = await response();
    const before = r.listenerCount('close');
    const claim = vi.fn();
    const started = roomBeforeStream(unsent, MINUTES, r, claim);
    // Before any other turn: those asking next find it claimed.
    expect(claim).toHaveBeenCalledTimes(1);
    await started;
    expect(r.listenerCount('close')).toBe(before);
  });

  it('waits while the budget is full (at its capacity too), claims once room comes, and leaves no close listener', async () => {
    const { unsent, set } = await budget(CAPACITY);
    const { response: r } = await response();
    const before = r.listenerCount('close');
    const claim = vi.fn();
    const waited = outcome(roomBeforeStream(unsent, MINUTES, r, claim));
    await expect.poll(() => unsent.waiters).toBe(1);
    expect(claim).not.toHaveBeenCalled();
    expect(r.listenerCount('close')).toBe(before + 1);
    set(CAPACITY - 1);
    expect(await waited).toEqual({ value: undefined });
    expect(claim).toHaveBeenCalledTimes(1);
    expect(r.listenerCount('close')).toBe(before);
  });

  it('lets the second of two woken waiters wait on when the first claimed the room', async () => {
    const { unsent, set } = await budget(CAPACITY);
    const first = await response();
    const second = await response();
    // The first to find room fills the budget again with what it expects.
    const firstClaim = vi.fn(() => set(CAPACITY));
    const secondClaim = vi.fn();
    const a = outcome(roomBeforeStream(unsent, MINUTES, first.response, firstClaim));
    await expect.poll(() => unsent.waiters).toBe(1);
    const b = outcome(roomBeforeStream(unsent, MINUTES, second.response, secondClaim));
    await expect.poll(() => unsent.waiters).toBe(2);
    set(0);
    expect(await a).toEqual({ value: undefined });
    await expect.poll(() => unsent.waiters).toBe(1);
    expect(secondClaim).not.toHaveBeenCalled();
    set(0);
    expect(await b).toEqual({ value: undefined });
    expect([firstClaim.mock.calls.length, secondClaim.mock.calls.length]).toEqual([1, 1]);
  });

  it('is refused 503 at the stall bound when it is the smaller bound', async () => {
    const { unsent } = await budget(CAPACITY, 20);
    const { response: r } = await response();
    const before = r.listenerCount('close');
    const claim = vi.fn();
    const waited = await outcome(roomBeforeStream(unsent, MINUTES, r, claim));
    expect('error' in waited && waited.error).toBeInstanceOf(RequestLimitError);
    expect('error' in waited && (waited.error as RequestLimitError).code).toBe('SERVER_BUSY');
    expect('error' in waited && (waited.error as RequestLimitError).status).toBe(503);
    expect(claim).not.toHaveBeenCalled();
    expect(r.listenerCount('close')).toBe(before);
  });

  it('is refused 503 within the request timeout when that is the smaller bound', async () => {
    const { unsent } = await budget(CAPACITY, MINUTES);
    const { response: r } = await response();
    const waited = await outcome(roomBeforeStream(unsent, 30, r));
    expect('error' in waited && (waited.error as RequestLimitError).code).toBe('SERVER_BUSY');
  });

  it('waits without a bound when both are 0, until room comes', async () => {
    const { unsent, set } = await budget(CAPACITY, 0);
    const { response: r } = await response();
    const claim = vi.fn();
    const waited = outcome(roomBeforeStream(unsent, 0, r, claim));
    await expect.poll(() => unsent.waiters).toBe(1);
    set(0);
    expect(await waited).toEqual({ value: undefined });
    expect(claim).toHaveBeenCalledTimes(1);
  });

  it('ends with ClientGone at once when its client leaves meanwhile, claiming nothing', async () => {
    const { unsent } = await budget(CAPACITY);
    const { response: r, leave } = await response();
    const claim = vi.fn();
    const waited = outcome(roomBeforeStream(unsent, MINUTES, r, claim));
    await expect.poll(() => unsent.waiters).toBe(1);
    leave();
    const ended = await waited;
    expect('error' in ended && ended.error).toBeInstanceOf(ClientGone);
    expect('error' in ended && (ended.error as Error).message).toContain('the client went away');
    // Its name is what a log's serialised error says it was.
    expect('error' in ended && (ended.error as Error).name).toBe('ClientGone');
    expect(unsent.waiters).toBe(0);
    expect(claim).not.toHaveBeenCalled();
  });

  it('ends with ClientGone at once when its response closed before it asked', async () => {
    const { unsent } = await budget(CAPACITY);
    const { response: r } = await response();
    r.destroy();
    // Its close has come and gone: a listener added now would never hear it.
    if (!r.closed) await new Promise((resolve) => r.once('close', resolve));
    const claim = vi.fn();
    const ended = await outcome(roomBeforeStream(unsent, MINUTES, r, claim));
    expect('error' in ended && ended.error).toBeInstanceOf(ClientGone);
    expect(unsent.waiters).toBe(0);
    expect(claim).not.toHaveBeenCalled();
  });

  it('claims with room even when its response is gone: the budget is not asked of it then', async () => {
    // With room there is no wait to end; the stream's own close releases what it claimed.
    const { unsent } = await budget(0);
    const { response: r } = await response();
    r.destroy();
    const claim = vi.fn();
    await roomBeforeStream(unsent, MINUTES, r, claim);
    expect(claim).toHaveBeenCalledTimes(1);
  });
});

describe('room for more of a stream', () => {
  it('finds room after setting its own count, and claims it in the same turn', async () => {
    const { unsent } = await budget(CAPACITY - 1);
    const order: string[] = [];
    const found = await roomForMore(unsent, () => order.push('update'), new AbortController().signal, Number.POSITIVE_INFINITY, () => order.push('claim'));
    expect(found).toBe('room');
    expect(order).toEqual(['update', 'claim']);
  });

  it('is stopped by its signal before it looks for room', async () => {
    const { unsent } = await budget(0);
    const abort = new AbortController();
    abort.abort();
    const claim = vi.fn();
    expect(await roomForMore(unsent, () => undefined, abort.signal, Number.POSITIVE_INFINITY, claim)).toBe('stopped');
    expect(claim).not.toHaveBeenCalled();
  });

  it('answers deadline once its deadline has passed without room', async () => {
    const { unsent } = await budget(CAPACITY);
    const claim = vi.fn();
    expect(await roomForMore(unsent, () => undefined, new AbortController().signal, Date.now() - 1, claim)).toBe('deadline');
    expect(await roomForMore(unsent, () => undefined, new AbortController().signal, Date.now() + 30, claim)).toBe('deadline');
    expect(claim).not.toHaveBeenCalled();
    expect(unsent.waiters).toBe(0);
  });

  it('looks again at what its own client took, without a release to wake it', async () => {
    // The budget is full of this stream's own bytes; its client takes them, which only `update` sees.
    const { unsent, set } = await budget(CAPACITY);
    let looks = 0;
    const update = (): void => {
      looks++;
      if (looks === 3) set(0);
    };
    const claim = vi.fn();
    expect(await roomForMore(unsent, update, new AbortController().signal, Number.POSITIVE_INFINITY, claim)).toBe('room');
    expect(looks).toBe(3);
    expect(claim).toHaveBeenCalledTimes(1);
  });

  it('finds room once another answer releases, and is stopped when its signal aborts while it waits', async () => {
    const { unsent, set } = await budget(CAPACITY);
    const found = roomForMore(unsent, () => undefined, new AbortController().signal);
    await expect.poll(() => unsent.waiters).toBe(1);
    set(0);
    expect(await found).toBe('room');
    set(CAPACITY);
    const abort = new AbortController();
    const stopped = roomForMore(unsent, () => undefined, abort.signal);
    await expect.poll(() => unsent.waiters).toBe(1);
    abort.abort();
    expect(await stopped).toBe('stopped');
    expect(unsent.waiters).toBe(0);
  });

  it('claims nothing by default', async () => {
    const { unsent } = await budget(0);
    expect(await roomForMore(unsent, () => undefined, new AbortController().signal)).toBe('room');
    const { response: r } = await response();
    await roomBeforeStream(unsent, MINUTES, r);
  });
});

