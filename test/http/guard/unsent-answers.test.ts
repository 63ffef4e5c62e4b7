import { getEventListeners } from 'node:events';
import { request, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_UNSENT_BYTES, UnsentAnswers } from '../../../src/http/guard/unsent-answers.js';
import { heldResponses } from '../../helpers/serving/held-responses.js';

/**
 * The bytes of answers not yet taken by their clients (unsent-answers.ts), on real responses of a
 * loopback server: what is counted and when it is released, streamed answers, and `room`.
 */

const server = heldResponses();
afterEach(() => {
  vi.useRealTimers();
});

// Each test takes milliseconds; one that waits for room that never comes fails in five seconds, not in the suite's sixty.
vi.setConfig({ testTimeout: 5_000 });

/** A response of the server, not yet answered; `done` resolves once the client has read it all. */
async function response(): Promise<{ response: ServerResponse; done: Promise<string> }> {
  const handed = server.handed();
  const done = new Promise<string>((resolve, reject) => {
    const client = request({ host: '127.0.0.1', port: server.port(), agent: false }, (answer) => {
      let body = '';
      answer.on('data', (chunk: Buffer) => (body += chunk.toString()));
      answer.on('end', () => resolve(body));
      answer.on('error', reject);
    });
    client.on('error', reject);
    client.end();
  });
  return { response: await handed, done };
}

/** Resolves once the response has closed (sent completely, or cut). */
function closed(response: ServerResponse): Promise<void> {
  return new Promise((resolve) => (response.closed ? resolve() : response.once('close', () => resolve())));
}

describe('unsent answers', () => {
  it('counts an answer until its response is sent, once per response, and nothing for an empty one', async () => {
    const answers = new UnsentAnswers(1000);
    expect(new UnsentAnswers().capacity).toBe(DEFAULT_MAX_UNSENT_BYTES);
    expect(DEFAULT_MAX_UNSENT_BYTES).toBe(64 * 1024 * 1024);
    const a = await response();
    const b = await response();
    answers.hold(300, a.response);
    answers.hold(500, a.response);
    answers.hold(0, b.response);
    answers.hold(-5, b.response);
    expect(answers.held).toBe(300);
    answers.hold(200, b.response);
    expect(answers.held).toBe(500);
    a.response.end('a');
    await closed(a.response);
    expect(await a.done).toBe('a');
    expect(answers.held).toBe(200);
    b.response.end('b');
    await closed(b.response);
    expect(answers.held).toBe(0);
    // A response already sent is not counted any more.
    answers.hold(100, a.response);
    expect(answers.held).toBe(0);
  });

  it('releases an answer whose connection is cut before it was sent', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    a.done.catch(() => undefined);
    answers.hold(700, a.response);
    a.response.destroy();
    await closed(a.response);
    expect(answers.held).toBe(0);
    answers.hold(700, a.response);
    expect(answers.held).toBe(0);
    // Cut before anything was counted on it: a stream is not counted on it either.
    const b = await response();
    b.done.catch(() => undefined);
    b.response.destroy();
    await closed(b.response);
    expect(b.response.writableFinished).toBe(false);
    expect(answers.holdStream(b.response)).toBeUndefined();
  });

  it('stops counting a streamed answer once its connection is cut', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    a.done.catch(() => undefined);
    const setHeld = answers.holdStream(a.response)!;
    setHeld(300);
    a.response.destroy();
    await closed(a.response);
    expect(answers.held).toBe(0);
    expect(a.response.writableFinished).toBe(false);
    setHeld(900);
    expect(answers.held).toBe(0);
  });

  it('leaves no timer and no listener on the signal behind once room is found', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const answers = new UnsentAnswers(1000);
    const a = await response();
    answers.hold(1000, a.response);
    const shutdown = new AbortController();
    const waiting = answers.room(Date.now() + 60_000, shutdown.signal);
    await vi.waitFor(() => expect(answers.waiters).toBe(1));
    expect(vi.getTimerCount()).toBe(1);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
    a.response.end();
    await waiting;
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
    vi.useRealTimers();
  });

  it('counts a streamed answer as it is produced and handed on, until it is done', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    const setHeld = answers.holdStream(a.response)!;
    expect(answers.holdStream(a.response)).toBeUndefined();
    answers.hold(50, a.response);
    expect(answers.held).toBe(0);
    setHeld(400);
    expect(answers.held).toBe(400);
    setHeld(150);
    expect(answers.held).toBe(150);
    setHeld(150);
    expect(answers.held).toBe(150);
    a.response.end('streamed');
    await closed(a.response);
    expect(answers.held).toBe(0);
    setHeld(900);
    expect(answers.held).toBe(0);
    const b = await response();
    b.response.end();
    await closed(b.response);
    expect(answers.holdStream(b.response)).toBeUndefined();
  });

  it('has room below its capacity, and wakes the waiters once bytes are released below it', async () => {
    const answers = new UnsentAnswers(1000);
    await answers.room(Number.POSITIVE_INFINITY);
    const a = await response();
    answers.hold(1000, a.response);
    let roomFound = false;
    const waiting = answers.room(Number.POSITIVE_INFINITY).then(() => (roomFound = true));
    await vi.waitFor(() => expect(answers.waiters).toBe(1));
    expect(roomFound).toBe(false);
    a.response.end();
    await waiting;
    expect(answers.held).toBe(0);
    expect(answers.waiters).toBe(0);
  });

  it('keeps waiting while a release leaves the bytes at the capacity', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    const setHeld = answers.holdStream(a.response)!;
    setHeld(1200);
    let roomFound = false;
    const waiting = answers.room(Number.POSITIVE_INFINITY).then(() => (roomFound = true));
    await vi.waitFor(() => expect(answers.waiters).toBe(1));
    setHeld(1000);
    expect(answers.waiters).toBe(1);
    setHeld(999);
    await waiting;
    expect(roomFound).toBe(true);
    a.response.end();
    await closed(a.response);
  });

  it('answers 503 naming the bytes held and the limit once the deadline passes without room', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    answers.hold(1000, a.response);
    await expect(answers.room(Date.now() - 1)).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      status: 503,
      message: 'the server holds 1000 bytes of answers that their clients have not read yet, at or above its limit of 1000 bytes (--max-unsent-bytes); try again in a moment',
    });
    vi.useFakeTimers({ now: 10_000 });
    const late = answers.room(10_050);
    const outcome = late.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(49);
    expect(answers.waiters).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: 'SERVER_BUSY' });
    expect(answers.waiters).toBe(0);
    vi.useRealTimers();
    a.response.end();
    await closed(a.response);
  });

  it('stops waiting for room when the signal aborts', async () => {
    const answers = new UnsentAnswers(1000);
    const a = await response();
    answers.hold(1000, a.response);
    const abort = new AbortController();
    const waiting = answers.room(Number.POSITIVE_INFINITY, abort.signal);
    await vi.waitFor(() => expect(answers.waiters).toBe(1));
    abort.abort(new Error('shutting down'));
    await expect(waiting).rejects.toThrow('shutting down');
    expect(answers.waiters).toBe(0);
    a.response.end();
    await closed(a.response);
  });
});
