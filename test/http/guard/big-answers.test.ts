import { afterEach, describe, expect, it, vi } from 'vitest';
import { BIG_ANSWER_BYTES, BIG_ANSWER_READS, BIG_ANSWER_SLOTS, BigAnswerAdmission, bigAnswerSlots, isBig, type BuildConditions } from '../../../src/http/guard/big-answers.js';
import { RequestBudget, RequestLimitError } from '../../../src/http/guard/limits.js';

/**
 * Big answers' admission (big-answers.ts) and a request's budget of bytes and time (limits.ts),
 * without a server: what is big, the building slots (a few at a time, handed on in order, given
 * back once), the order an admission waits in, and the budget's exact limits.
 */

afterEach(() => {
  vi.useRealTimers();
});

// Each test takes milliseconds; one that waits for a slot or for room that never comes fails in five seconds, not in the suite's sixty.
vi.setConfig({ testTimeout: 5_000 });

/** Whether a building slot is free now: takes one and gives it back, or stops waiting for one. */
async function slotFree(): Promise<boolean> {
  const abort = new AbortController();
  const waiting = bigAnswerSlots.acquire(abort.signal);
  const outcome = await Promise.race([waiting, new Promise<'waiting'>((resolve) => setImmediate(() => resolve('waiting')))]);
  if (outcome === 'waiting') {
    abort.abort(new Error('only looking'));
    await expect(waiting).rejects.toThrow('only looking');
    return false;
  }
  outcome();
  return true;
}

/** Takes every building slot; the releases. */
async function takeAll(): Promise<(() => void)[]> {
  const releases: (() => void)[] = [];
  for (let i = 0; i < BIG_ANSWER_SLOTS; i++) releases.push(await bigAnswerSlots.acquire());
  return releases;
}

describe('what is big', () => {
  it('is an answer of a mebibyte by its lower bound, or of a thousand objects read', () => {
    expect([BIG_ANSWER_BYTES, BIG_ANSWER_READS, BIG_ANSWER_SLOTS]).toEqual([1024 * 1024, 1000, 2]);
    expect(isBig(BIG_ANSWER_BYTES - 1, BIG_ANSWER_READS - 1)).toBe(false);
    expect(isBig(BIG_ANSWER_BYTES, 0)).toBe(true);
    expect(isBig(0, BIG_ANSWER_READS)).toBe(true);
  });
});

describe('building slots', () => {
  it('gives two at a time, the next to whoever waited first, each release counting once', async () => {
    const [first, second] = await takeAll();
    expect(await slotFree()).toBe(false);
    const order: string[] = [];
    const a = bigAnswerSlots.acquire().then((release) => (order.push('a'), release));
    const b = bigAnswerSlots.acquire().then((release) => (order.push('b'), release));
    first!();
    first!();
    const releaseA = await a;
    expect(order).toEqual(['a']);
    second!();
    const releaseB = await b;
    expect(order).toEqual(['a', 'b']);
    releaseA();
    expect(await slotFree()).toBe(true);
    releaseB();
    expect(await slotFree()).toBe(true);
    const all = await takeAll();
    expect(await slotFree()).toBe(false);
    for (const release of all) release();
  });

  it('stops waiting when the signal aborts, and the slot goes to the next in line', async () => {
    const all = await takeAll();
    const abort = new AbortController();
    const given = bigAnswerSlots.acquire(abort.signal);
    const next = bigAnswerSlots.acquire();
    abort.abort(new Error('shutting down'));
    await expect(given).rejects.toThrow('shutting down');
    all[0]!();
    const release = await next;
    expect(await slotFree()).toBe(false);
    release();
    all[1]!();
    expect(await slotFree()).toBe(true);
    const aborted = new AbortController();
    aborted.abort(new Error('already'));
    await expect(bigAnswerSlots.acquire(aborted.signal)).rejects.toThrow('already');
  });
});

describe('a big answer\'s admission', () => {
  function conditions(steps: string[], room: () => Promise<void> = async () => undefined): BuildConditions {
    return {
      connectionDrained: async (deadline) => {
        steps.push(`drained ${deadline} (slot free: ${await slotFree()})`);
      },
      room: async (deadline) => {
        steps.push(`room ${deadline} (slot free: ${await slotFree()})`);
        await room();
      },
    };
  }

  it('waits for its connection, then a slot, then room, holding the slot until it finishes', async () => {
    const steps: string[] = [];
    const admission = new BigAnswerAdmission(conditions(steps), 1234);
    expect(admission.deadline).toBe(1234);
    expect(admission.admitted).toBe(false);
    await admission.acquire();
    expect(admission.admitted).toBe(true);
    // Room is asked while the slot is held: one slot of the two is left.
    expect(steps).toEqual(['drained 1234 (slot free: true)', 'room 1234 (slot free: true)']);
    const other = await bigAnswerSlots.acquire();
    expect(await slotFree()).toBe(false);
    await admission.acquire();
    expect(steps).toHaveLength(2);
    admission.finish();
    expect(await slotFree()).toBe(true);
    other();
  });

  it('gives the slot back when there is no room before the deadline', async () => {
    const admission = new BigAnswerAdmission(conditions([], async () => {
      throw new RequestLimitError('SERVER_BUSY', 503, 'no room');
    }), 0);
    await expect(admission.acquire()).rejects.toThrow('no room');
    expect(admission.admitted).toBe(false);
    const all = await takeAll();
    expect(all).toHaveLength(2);
    for (const release of all) release();
  });

  it('waits no more once its signal aborts', async () => {
    const all = await takeAll();
    const abort = new AbortController();
    const steps: string[] = [];
    const admission = new BigAnswerAdmission({ ...conditions(steps), signal: abort.signal }, 99);
    const acquired = admission.acquire();
    await vi.waitFor(() => expect(steps).toHaveLength(1));
    abort.abort(new Error('closing'));
    await expect(acquired).rejects.toThrow('closing');
    expect(admission.admitted).toBe(false);
    for (const release of all) release();
    expect(await slotFree()).toBe(true);
  });
});

describe('a request\'s budget', () => {
  it('allows exactly its bytes, and refuses the next one with a 413 naming the limit', () => {
    const budget = new RequestBudget(100, 0);
    budget.charge(60);
    budget.charge(40);
    expect(budget.chargedBytes).toBe(100);
    let error: unknown;
    try {
      budget.charge(1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RequestLimitError);
    expect(error).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 413, name: 'RequestLimitError' });
    expect((error as Error).message).toBe(
      'the answer would be larger than the response size limit of 100 bytes (--max-response-bytes); ask for less with fixedLength, variableLength, valueLength or without references=true',
    );
    expect(budget.tooLarge()).toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 413, message: (error as Error).message });
  });

  it('runs out of time after its timeout, or at its admission\'s deadline; never without a timeout', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const timed = new RequestBudget(100, 500);
    const unbounded = new RequestBudget(100, 0);
    const admitted = new RequestBudget(100, 500, new BigAnswerAdmission(conditions(), 1_000_100));
    vi.setSystemTime(1_000_100);
    timed.checkTime();
    admitted.checkTime();
    vi.setSystemTime(1_000_101);
    expect(() => admitted.checkTime()).toThrow(expect.objectContaining({ code: 'REQUEST_TIMEOUT', status: 503, message: 'the request took longer than the request timeout of 500 ms (--request-timeout)' }));
    vi.setSystemTime(1_000_500);
    timed.checkTime();
    vi.setSystemTime(1_000_501);
    expect(() => timed.checkTime()).toThrow(/the request took longer than the request timeout of 500 ms/);
    vi.setSystemTime(1e15);
    unbounded.checkTime();

    function conditions(): BuildConditions {
      return { connectionDrained: async () => undefined, room: async () => undefined };
    }
  });

  it('lets a small answer on, and a big one only once admitted by its HTTP layer', async () => {
    const ready = { connectionDrained: async () => undefined, room: async () => undefined };
    const waiting = new BigAnswerAdmission(ready, Number.POSITIVE_INFINITY);
    const budget = new RequestBudget(1e9, 0, waiting);
    expect(await budget.admitBig(BIG_ANSWER_BYTES - 1, 1)).toBe(true);
    expect(await budget.admitBig(BIG_ANSWER_BYTES, 1)).toBe(false);
    await waiting.acquire();
    expect(await budget.admitBig(BIG_ANSWER_BYTES, 1)).toBe(true);
    waiting.finish();
  });

  it('without an HTTP layer, takes a slot for a big answer once and gives it back when finished', async () => {
    const budget = new RequestBudget(1e9, 0);
    expect(await budget.admitBig(0, BIG_ANSWER_READS)).toBe(true);
    expect(await budget.admitBig(0, BIG_ANSWER_READS)).toBe(true);
    const other = await bigAnswerSlots.acquire();
    expect(await slotFree()).toBe(false);
    budget.finish();
    expect(await slotFree()).toBe(true);
    other();
    new RequestBudget(1e9, 0).finish();
    expect((await takeAll()).map((release) => (release(), 'slot'))).toEqual(['slot', 'slot']);
  });

  it('checks its time once the slot is taken', async () => {
    vi.useFakeTimers({ now: 5_000, toFake: ['Date'] });
    const all = await takeAll();
    const budget = new RequestBudget(1e9, 100);
    const admitted = budget.admitBig(BIG_ANSWER_BYTES, 0);
    vi.setSystemTime(5_101);
    all[0]!();
    await expect(admitted).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
    budget.finish();
    all[1]!();
    expect(await slotFree()).toBe(true);
  });
});
