import { describe, expect, it } from 'vitest';
import { FollowStatus } from '../../../src/storage/follow/follow-status.js';

function clock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('FollowStatus', () => {
  it('is always ready and never behind when not following', () => {
    const c = clock();
    const status = new FollowStatus({ following: false, staleAfterMs: 1000, now: c.now });
    c.advance(60_000);
    expect(status.problem()).toBeUndefined();
    expect(status.lagSeconds()).toBe(0);
  });

  it('measures the lag from the start of the last successful refresh', () => {
    const c = clock();
    const status = new FollowStatus({ following: true, staleAfterMs: 10_000, now: c.now });
    c.advance(2000);
    expect(status.lagSeconds()).toBe(2);
    status.record({ kind: 'unchanged', ms: 300 });
    expect(status.lagSeconds()).toBeCloseTo(0.3);
    c.advance(500);
    status.record({ kind: 'changed', generation: 2, ms: 100 });
    expect(status.lagSeconds()).toBeCloseTo(0.1);
    expect(status.refreshes).toEqual({ changed: 1, unchanged: 1, deferred: 0, failed: 0 });
  });

  it('is not ready after a failed refresh until one succeeds', () => {
    const c = clock();
    const status = new FollowStatus({ following: true, staleAfterMs: 10_000, now: c.now });
    status.record({ kind: 'failed', error: new Error('channel_0/transactions_0.sft: malformed entry at offset 52') });
    expect(status.problem()).toMatch(/^following failed: channel_0\/transactions_0\.sft: malformed entry at offset 52 \(at .*\); serving the previous state$/);
    expect(status.refreshes.failed).toBe(1);
    status.record({ kind: 'unchanged', ms: 1 });
    expect(status.problem()).toBeUndefined();
  });

  it('is not ready once the state has not been confirmed current for too long, naming a deferral', () => {
    const c = clock();
    const status = new FollowStatus({ following: true, staleAfterMs: 10_000, now: c.now });
    status.record({ kind: 'deferred', reason: 'type dictionary is being rewritten (type id 1000100 missing)' });
    c.advance(9_000);
    expect(status.problem()).toBeUndefined();
    c.advance(2_000);
    expect(status.problem()).toBe(
      'following is behind: the storage was last seen current 11.0 s ago (type dictionary is being rewritten (type id 1000100 missing))',
    );
    status.record({ kind: 'unchanged', ms: 0 });
    expect(status.problem()).toBeUndefined();
  });
});
