/**
 * The time a `convert` still needs, from the phases it goes through: the check's index and its
 * record walk (which also collects the references), the search for the reachable objects over
 * them, the copy. Each has a cost of its own: the weights are the CPU shares measured on the
 * benchmark's 1M storage (index 1, checking records 2, reachability 0.5, copying 1.5). The
 * estimate is the time so far scaled by the work left, so it follows the machine's actual speed.
 */

const WEIGHTS: Readonly<Record<string, number>> = {
  indexing: 1,
  'checking records': 2,
  'verifying chunk checksums': 1,
  'finding reachable objects': 0.5,
  copying: 1.5,
};

export interface ConvertPhases {
  /** Whether reachability is walked (not with --keep-unreachable). */
  readonly reachability: boolean;
}

export interface ProgressEstimate {
  /** The share of the whole run done, 0..1. */
  readonly fraction: number;
  /** Seconds left, or undefined while too little is done to say. */
  readonly secondsLeft: number | undefined;
}

export class ConvertEta {
  private readonly plan: string[];
  private readonly total: number;
  private readonly started: number;
  /** Index in the plan of the phase reported last. */
  private at = -1;

  constructor(phases: ConvertPhases, private readonly now: () => number = Date.now) {
    this.plan = ['indexing', 'checking records', ...(phases.reachability ? ['finding reachable objects'] : []), 'copying'];
    this.total = this.plan.reduce((n, p) => n + WEIGHTS[p]!, 0);
    this.started = now();
  }

  /** The estimate after a progress report of `phase` (phases the plan lacks, such as a rescue's, count as nothing known). */
  update(phase: string, done: number, total: number): ProgressEstimate {
    // Phases come in the plan's order; a phase reported again after a later one (a rescue's) gives no estimate.
    if (this.plan[this.at] !== phase) {
      const next = this.plan.indexOf(phase, this.at + 1);
      if (next >= 0) this.at = next;
    }
    if (this.at < 0 || this.plan[this.at] !== phase) return { fraction: Math.max(0, this.doneBefore(this.at)) / this.total, secondsLeft: undefined };
    const share = total > 0 ? Math.min(1, Math.max(0, done / total)) : 1;
    const fraction = (this.doneBefore(this.at) + WEIGHTS[phase]! * share) / this.total;
    const elapsed = (this.now() - this.started) / 1000;
    // Below 1 % of the work the rate says little.
    const secondsLeft = fraction < 0.01 ? undefined : (elapsed * (1 - fraction)) / fraction;
    return { fraction, secondsLeft };
  }

  private doneBefore(index: number): number {
    let n = 0;
    for (let i = 0; i < index; i++) n += WEIGHTS[this.plan[i]!]!;
    return n;
  }
}

/** `12 s`, `3 min 5 s`, `1 h 2 min`. */
export function durationText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}
