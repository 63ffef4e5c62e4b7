import { problemOf, ProblemTracker, type FollowProblem, type ProblemReport, type SeenProblem } from '../follow-problems.js';
import type { SourceWatch } from '../source/source.js';
import type { RefreshResult, Storage } from '../storage.js';

/**
 * Keeps a Storage up to date with a storage that a running Java application writes: file system
 * events (where the source has them) trigger a refresh at once, and a polling timer catches
 * whatever events miss (network file systems, new channel directories, editors that replace
 * files, sources without events such as database tables).
 */

export interface FollowOptions {
  /** Polling interval in milliseconds (also the upper bound of the reaction time). */
  readonly pollIntervalMs?: number;
  /**
   * How long a storage may stay incomplete (a dictionary being rewritten, absent for a moment)
   * before that is reported as a problem; default 10 s.
   */
  readonly deferredProblemMs?: number;
  /** Reports the outcome of each refresh. */
  readonly onRefresh?: (event: FollowEvent) => void;
  /**
   * Hears each problem once when it appears and once when it clears (at most once a minute per
   * problem; see follow-problems.ts), instead of on every look.
   */
  readonly onProblem?: (report: ProblemReport) => void;
}

export type FollowEvent =
  | { readonly kind: 'changed'; readonly generation: number; readonly ms: number }
  /** A look found nothing new: the state was current when it began (`ms` ago). */
  | { readonly kind: 'unchanged'; readonly ms: number }
  | { readonly kind: 'deferred'; readonly reason: string }
  | { readonly kind: 'failed'; readonly error: unknown };

export const DEFAULT_POLL_INTERVAL_MS = 500;
const EVENT_DEBOUNCE_MS = 15;
/** A storage that cannot be taken over for this long (a dictionary rewrite that never ends) is a problem. */
const DEFERRED_PROBLEM_MS = 10_000;
/**
 * The next look waits at least this many times as long as the last one took: a look lists every
 * file (50,000 small data files took ~100 ms a look, and looking every 500 ms kept a quarter of a
 * core busy with a storage nobody wrote to). So following costs at most a tenth of a core
 * whatever the storage's shape; storages of a few thousand files look in milliseconds and keep
 * the interval asked for.
 */
const LOOK_COST_FACTOR = 9;

export class StorageFollower {
  private watcher: SourceWatch | undefined;
  private timer: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private readonly tracker: ProblemTracker;
  /** Since when refreshes have been deferred without a break. */
  private deferredSince: number | undefined;
  /** How long the last look took, and when it ended (LOOK_COST_FACTOR). */
  private lastLookMs = 0;
  private lastLookEnded = 0;

  constructor(
    private readonly storage: Storage,
    private readonly options: FollowOptions = {},
  ) {
    this.tracker = new ProblemTracker((report) => this.options.onProblem?.(report));
    // What the storage had at startup was told then (startup warnings).
    this.tracker.seed(storage.conditions);
  }

  /**
   * What is wrong right now, as of the latest look: the failure of the latest refresh (a damaged
   * log, a committed data file deleted, the dictionary gone or unreadable, no permission, no
   * descriptors), data files cut short inside their committed bytes, damaged records, a storage
   * that could not be taken over for a while. Empty when all is well. For `/ready` and the like.
   */
  get problems(): readonly FollowProblem[] {
    return this.tracker.current;
  }

  start(): void {
    this.watchDirectories();
    this.schedulePoll();
  }

  /**
   * Refreshes now and resolves when done; the refresh starts after any one under way, so it sees
   * every change made before the call.
   */
  async refreshNow(): Promise<void> {
    if (this.stopped) return;
    const run = this.runOnce();
    this.running = run;
    await run;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.watcher?.close();
    this.watcher = undefined;
    await this.running;
  }

  /** Milliseconds to wait before a look wanted `delay` from now may start (LOOK_COST_FACTOR). */
  private paced(delay: number): number {
    return Math.max(delay, this.lastLookEnded + LOOK_COST_FACTOR * this.lastLookMs - Date.now());
  }

  private async runOnce(): Promise<void> {
    const started = Date.now();
    let result: RefreshResult;
    try {
      result = await this.storage.refresh();
    } catch (error) {
      this.noteLook(started);
      this.deferredSince = undefined;
      this.tracker.update([...this.storage.conditions, problemOf(error)]);
      this.options.onRefresh?.({ kind: 'failed', error });
      return;
    }
    this.noteLook(started);
    const seen: SeenProblem[] = [...this.storage.conditions];
    if (result.deferred === undefined) this.deferredSince = undefined;
    else {
      this.deferredSince ??= started;
      const patience = this.options.deferredProblemMs ?? DEFERRED_PROBLEM_MS;
      if (started - this.deferredSince >= patience) {
        seen.push({
          key: 'STORAGE_DEFERRED',
          code: 'STORAGE_INCONSISTENT',
          message: `the storage has not been complete for over ${patience / 1000} s: ${result.deferred}; serving the previous state`,
        });
      }
    }
    this.tracker.update(seen);
    if (result.deferred !== undefined) {
      this.options.onRefresh?.({ kind: 'deferred', reason: result.deferred });
      // Something is being written right now: look again soon.
      this.trigger(EVENT_DEBOUNCE_MS * 4);
    } else if (result.changed) {
      this.options.onRefresh?.({ kind: 'changed', generation: this.storage.generation, ms: Date.now() - started });
      this.watchDirectories();
    } else {
      this.options.onRefresh?.({ kind: 'unchanged', ms: Date.now() - started });
    }
  }

  private noteLook(started: number): void {
    this.lastLookEnded = Date.now();
    this.lastLookMs = this.lastLookEnded - started;
  }

  private trigger(delay = EVENT_DEBOUNCE_MS): void {
    if (this.stopped || this.debounce !== undefined) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      void this.refreshNow();
    }, this.paced(delay));
    this.debounce.unref();
  }

  private schedulePoll(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.refreshNow().finally(() => this.schedulePoll());
    }, this.paced(this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS));
    this.timer.unref();
  }

  /** Watches the storage root and every channel folder, where the source has events (idempotent). */
  private watchDirectories(): void {
    if (this.stopped) return;
    this.watcher ??= this.storage.source.watch?.(() => this.trigger());
    this.watcher?.watchFolders(this.storage.channels.map((c) => c.directoryName));
  }
}
