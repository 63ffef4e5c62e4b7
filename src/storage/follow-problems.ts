import { AppError, FormatError } from '../errors.js';

/**
 * What is wrong while following a storage (a damaged log, a deleted or truncated data file, a
 * missing dictionary, lost permissions, no descriptors left), kept as a set of current problems:
 * each is reported once when it appears and once when it clears, not on every look; a problem
 * that comes and goes is reported at most twice a minute (then with how often it changed).
 */

export interface FollowProblem {
  /** Identity while it lasts: the error code with the file (or the message) it is about. */
  readonly key: string;
  /** An error code (docs/errors.md), or the system's error name (`EACCES`, `EMFILE`). */
  readonly code: string;
  /** What is wrong, naming the file (and offset) where known. */
  readonly message: string;
  /** Epoch milliseconds when it was first seen (in its current stretch). */
  readonly since: number;
}

/** A problem as one look saw it. */
export type SeenProblem = Omit<FollowProblem, 'since'>;

export interface ProblemReport {
  readonly kind: 'appeared' | 'cleared';
  readonly problem: FollowProblem;
  /** Times it appeared or cleared in between, since the last report, held back by the rate limit. */
  readonly unreported: number;
}

/** At most REPORTS_PER_INTERVAL reports per problem within this long. */
export const PROBLEM_REPORT_INTERVAL_MS = 60_000;
/** An appearance and its clearing are both told at once; more changes wait for the interval. */
const REPORTS_PER_INTERVAL = 2;

/** The problem an error of a refresh stands for. */
export function problemOf(error: unknown): SeenProblem {
  if (error instanceof AppError) {
    const file = error instanceof FormatError ? error.file : undefined;
    return { key: `${error.code}:${file ?? error.message}`, code: error.code, message: error.message };
  }
  const errno = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(error);
  // One problem per kind of system error, whatever file it hit this time.
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return { key: `errno:${errno}`, code: errno, message };
  return { key: `error:${message}`, code: 'INTERNAL', message };
}

interface Tracked {
  problem: FollowProblem;
  present: boolean;
  /** What was last reported: present or not (nothing reported yet counts as absent). */
  reportedPresent: boolean;
  /** When the latest reports were made (at most REPORTS_PER_INTERVAL kept). */
  reportedAt: number[];
  unreported: number;
}

export class ProblemTracker {
  private readonly tracked = new Map<string, Tracked>();

  constructor(
    private readonly report: (report: ProblemReport) => void,
    private readonly intervalMs: number = PROBLEM_REPORT_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The problems of the latest look, oldest first. */
  get current(): readonly FollowProblem[] {
    return [...this.tracked.values()].filter((t) => t.present).map((t) => t.problem);
  }

  /** Problems already told (startup warnings): current, but not reported as appearing. */
  seed(problems: readonly SeenProblem[]): void {
    const now = this.now();
    for (const p of problems) {
      this.tracked.set(p.key, { problem: { ...p, since: now }, present: true, reportedPresent: true, reportedAt: [now], unreported: 0 });
    }
  }

  /** The problems one look saw (all of them): reports what appeared and what cleared. */
  update(seen: readonly SeenProblem[]): void {
    const now = this.now();
    const seenKeys = new Set<string>();
    for (const p of seen) {
      seenKeys.add(p.key);
      const t = this.tracked.get(p.key);
      if (t === undefined) {
        this.tracked.set(p.key, { problem: { ...p, since: now }, present: true, reportedPresent: false, reportedAt: [], unreported: 1 });
      } else if (!t.present) {
        t.present = true;
        t.problem = { ...p, since: now };
        t.unreported++;
      } else {
        // Same problem, perhaps in other words (an offset that moved): keep its start.
        t.problem = { ...p, since: t.problem.since };
      }
    }
    for (const t of this.tracked.values()) {
      if (t.present && !seenKeys.has(t.problem.key)) {
        t.present = false;
        t.unreported++;
      }
    }
    for (const [key, t] of this.tracked) {
      t.reportedAt = t.reportedAt.filter((at) => now - at < this.intervalMs);
      if (t.present !== t.reportedPresent && t.reportedAt.length < REPORTS_PER_INTERVAL) {
        // The change reported now is not "unreported"; only the ones the limit held back are.
        const unreported = Math.max(0, t.unreported - 1);
        t.reportedPresent = t.present;
        t.reportedAt.push(now);
        t.unreported = 0;
        this.report({ kind: t.present ? 'appeared' : 'cleared', problem: t.problem, unreported });
      }
      if (!t.present && !t.reportedPresent && t.reportedAt.length === 0) this.tracked.delete(key);
    }
  }
}
