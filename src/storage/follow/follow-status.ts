import type { FollowProblem } from '../follow-problems.js';
import type { FollowEvent } from './follow.js';

/**
 * How well following keeps up, from the follower's refresh events: since when the served state is
 * known to be current (the follow lag), the last failure, refresh counts by outcome. `/ready` and
 * `/metrics` read it; nothing here touches the storage.
 */

export type RefreshOutcome = FollowEvent['kind'];

export interface FollowStatusOptions {
  /** False for --no-follow: the state is fixed at startup, never behind. */
  readonly following: boolean;
  /** Not ready once the state has not been confirmed current for this long (e.g. 10 polls). */
  readonly staleAfterMs: number;
  /** What is wrong while following (`StorageFollower.problems`), for /ready. */
  readonly problems?: () => readonly FollowProblem[];
  readonly now?: () => number;
}

export class FollowStatus {
  /** Refreshes by outcome since startup. */
  readonly refreshes: Record<RefreshOutcome, number> = { changed: 0, unchanged: 0, deferred: 0, failed: 0 };
  private currentAt: number;
  private lastFailure: { readonly at: number; readonly message: string } | undefined;
  private lastDeferral: string | undefined;
  private readonly now: () => number;

  constructor(private readonly options: FollowStatusOptions) {
    this.now = options.now ?? Date.now;
    this.currentAt = this.now();
  }

  get following(): boolean {
    return this.options.following;
  }

  /** The follower's current problems (none when not following). */
  currentProblems(): readonly FollowProblem[] {
    return this.options.problems?.() ?? [];
  }

  /** Feed for `StorageFollower`'s `onRefresh`. */
  record(event: FollowEvent): void {
    this.refreshes[event.kind]++;
    const now = this.now();
    switch (event.kind) {
      case 'changed':
      case 'unchanged':
        // The refresh saw everything committed before it began.
        this.currentAt = Math.max(this.currentAt, now - event.ms);
        this.lastFailure = undefined;
        this.lastDeferral = undefined;
        break;
      case 'deferred':
        this.lastDeferral = event.reason;
        break;
      case 'failed':
        this.lastFailure = { at: now, message: event.error instanceof Error ? event.error.message : String(event.error) };
        break;
    }
  }

  /** Seconds since the served state was last confirmed to be the directory's latest (0 when not following). */
  lagSeconds(): number {
    return this.options.following ? Math.max(0, this.now() - this.currentAt) / 1000 : 0;
  }

  /** Why the service is not ready, or undefined when it is. */
  problem(): string | undefined {
    if (!this.options.following) return undefined;
    if (this.lastFailure !== undefined) {
      return `following failed: ${this.lastFailure.message} (at ${new Date(this.lastFailure.at).toISOString()}); serving the previous state`;
    }
    const lagMs = this.now() - this.currentAt;
    if (lagMs > this.options.staleAfterMs) {
      const why = this.lastDeferral === undefined ? '' : ` (${this.lastDeferral})`;
      return `following is behind: the storage was last seen current ${(lagMs / 1000).toFixed(1)} s ago${why}`;
    }
    return undefined;
  }
}
