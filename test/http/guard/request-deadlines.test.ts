import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RequestDeadlines } from '../../../src/http/guard/request-deadlines.js';

/** RequestDeadlines: one timer for every request in flight, each answered by its deadline. */
describe('request deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const never = <T>(): Promise<T> => new Promise<T>(() => undefined);
  const after = <T>(ms: number, value: T): Promise<T> => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

  it('gives the answer when it comes in time, and the timeout answer when it does not', async () => {
    const deadlines = new RequestDeadlines(1000, () => 'timed out');
    const fast = deadlines.within(after(10, 'fast'));
    const slow = deadlines.within(never<string>());
    await vi.advanceTimersByTimeAsync(999);
    await expect(fast).resolves.toBe('fast');
    let settled = false;
    void slow.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await expect(slow).resolves.toBe('timed out');
  });

  it('times out each request at its own deadline, in the order they came, whatever was answered between', async () => {
    const deadlines = new RequestDeadlines(100, () => 'timed out');
    const outcomes: string[] = [];
    const track = (name: string, pending: Promise<string>): void => {
      void deadlines.within(pending).then((outcome) => outcomes.push(`${name}: ${outcome}`));
    };
    track('a', never());
    await vi.advanceTimersByTimeAsync(30);
    track('b', after(10, 'answered'));
    track('c', never());
    await vi.advanceTimersByTimeAsync(30);
    track('d', never());
    await vi.advanceTimersByTimeAsync(39);
    expect(outcomes).toEqual(['b: answered']);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcomes).toEqual(['b: answered', 'a: timed out']);
    await vi.advanceTimersByTimeAsync(30);
    expect(outcomes).toEqual(['b: answered', 'a: timed out', 'c: timed out']);
    await vi.advanceTimersByTimeAsync(30);
    expect(outcomes).toEqual(['b: answered', 'a: timed out', 'c: timed out', 'd: timed out']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps watching the others when a request that timed out fails afterwards', async () => {
    const deadlines = new RequestDeadlines(100, () => 'timed out');
    let fail: (error: Error) => void = () => undefined;
    const first = deadlines.within(new Promise<string>((_resolve, reject) => (fail = reject)));
    await vi.advanceTimersByTimeAsync(50);
    const outcomes: string[] = [];
    void deadlines.within(never<string>()).then((outcome) => outcomes.push(`second: ${outcome}`));
    await vi.advanceTimersByTimeAsync(50);
    await expect(first).resolves.toBe('timed out');
    fail(new Error('too late'));
    await vi.advanceTimersByTimeAsync(49);
    expect(outcomes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcomes).toEqual(['second: timed out']);
  });

  it('keeps watching the others when a request that timed out is answered afterwards', async () => {
    const deadlines = new RequestDeadlines(100, () => 'timed out');
    let answer: (value: string) => void = () => undefined;
    const first = deadlines.within(new Promise<string>((resolve) => (answer = resolve)));
    await vi.advanceTimersByTimeAsync(50);
    const outcomes: string[] = [];
    void deadlines.within(never<string>()).then((outcome) => outcomes.push(`second: ${outcome}`));
    await vi.advanceTimersByTimeAsync(50);
    await expect(first).resolves.toBe('timed out');
    answer('too late');
    await vi.advanceTimersByTimeAsync(49);
    expect(outcomes).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(outcomes).toEqual(['second: timed out']);
  });

  it('times nothing out once closed', async () => {
    const deadlines = new RequestDeadlines(100, () => 'timed out');
    let settled = false;
    void deadlines.within(never<string>()).then(() => (settled = true));
    expect(vi.getTimerCount()).toBe(1);
    deadlines.close();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(1000);
    expect(settled).toBe(false);
  });

  it('passes a failure on, and an answer after the timeout changes nothing', async () => {
    const deadlines = new RequestDeadlines(50, () => 'timed out');
    const failing = deadlines.within(Promise.reject(new Error('broken')));
    await expect(failing).rejects.toThrow('broken');
    const late = deadlines.within(after(80, 'late'));
    await vi.advanceTimersByTimeAsync(100);
    await expect(late).resolves.toBe('timed out');
  });
});
