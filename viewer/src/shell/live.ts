import { ApiError, type Api, type FilesStatistics } from '../model/api.js';

/**
 * Notices changes of the storage by polling the file statistics (every 2 s while the tab is
 * visible): the live and total lengths and the file numbers change with every commit and every
 * file cleanup. Works against the Java service too.
 */

export interface LiveEvents {
  /** The figures differ from the last ones seen. */
  changed(statistics: FilesStatistics): void;
  /** A check failed: the server does not answer (an ApiError of kind `unreachable`) or answers with an error. */
  down(error: unknown): void;
  /** A check succeeded after one had failed. */
  up(): void;
  /** After every check, with its outcome. */
  checked(ok: boolean): void;
}

export function statisticsSignature(statistics: FilesStatistics): string {
  const channels = Object.entries(statistics.channelStatistics)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([index, channel]) => `${index}:${channel.files.map((f) => `${f.fileNumber}/${f.liveDataLength}/${f.totalDataLength}`).join(',')}`);
  return `${statistics.fileCount}|${statistics.liveDataLength}|${statistics.totalDataLength}|${channels.join(';')}`;
}

export class LiveWatcher {
  private timer: number | undefined;
  private last: string | undefined;
  private failing = false;
  private running = false;
  lastCheck: Date | undefined;

  constructor(
    private readonly api: Api,
    private readonly events: LiveEvents,
    private readonly intervalMs = 2000,
  ) {}

  start(initial?: FilesStatistics): void {
    if (initial !== undefined) this.last = statisticsSignature(initial);
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void this.check();
    });
    this.timer = window.setInterval(() => {
      if (document.visibilityState === 'visible') void this.check();
    }, this.intervalMs);
  }

  stop(): void {
    if (this.timer !== undefined) window.clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Forget the figures and failures seen (another instance is watched from now on). */
  reset(): void {
    this.last = undefined;
    this.failing = false;
  }

  /** Take these figures as the known state (e.g. after the statistics view loaded them). */
  accept(statistics: FilesStatistics): void {
    this.last = statisticsSignature(statistics);
  }

  get paused(): boolean {
    return document.visibilityState !== 'visible';
  }

  async check(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const statistics = await this.api.statistics();
      this.lastCheck = new Date();
      if (this.failing) {
        this.failing = false;
        this.events.up();
      }
      const signature = statisticsSignature(statistics);
      const before = this.last;
      this.last = signature;
      if (before !== undefined && before !== signature) this.events.changed(statistics);
      this.events.checked(true);
    } catch (error) {
      this.failing = error instanceof ApiError && error.kind === 'unreachable';
      this.events.down(error);
      this.events.checked(false);
    } finally {
      this.running = false;
    }
  }
}
