/**
 * Admission of big answers. A request whose answer turns out to be big (over BIG_ANSWER_BYTES by
 * its lower bound, or describing more than BIG_ANSWER_READS objects) must be admitted before it is
 * built: its connection's earlier answers sent (pipelining), one of a few building slots free
 * (so that concurrent huge answers queue instead of piling up in memory together), and room among
 * the bytes held for answers that clients have not read yet (unsent-answers.ts). Small requests
 * never wait.
 *
 * The waiting happens outside the request's consistent view of a following storage: a request
 * that finds out it is big stops describing, answers NEEDS_ADMISSION instead of an answer (what it
 * built is dropped), waits for admission, and runs again, admitted (http/java/java-requests.ts).
 * (Waiting inside the view would hold back the follower's next update, and with it every new
 * request.)
 */

export const BIG_ANSWER_BYTES = 1024 * 1024;
export const BIG_ANSWER_READS = 1000;
/** Big answers built at a time. */
export const BIG_ANSWER_SLOTS = 2;

export function isBig(lowerBound: number, reads: number): boolean {
  return lowerBound >= BIG_ANSWER_BYTES || reads >= BIG_ANSWER_READS;
}

class Slots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(count: number) {
    this.free = count;
  }

  /** A slot (resolves with its release), or the signal's reason once it aborts first. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.free > 0) this.free--;
    else {
      await new Promise<void>((resolve, reject) => {
        const granted = (): void => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        };
        const aborted = (): void => {
          const at = this.waiting.indexOf(granted);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal?.reason);
        };
        this.waiting.push(granted);
        signal?.addEventListener('abort', aborted, { once: true });
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next !== undefined) next();
      else this.free++;
    };
  }
}

/** Building slots of the process. */
export const bigAnswerSlots = new Slots(BIG_ANSWER_SLOTS);

/**
 * What a request answers instead of its answer when that turned out big and the request has not
 * been admitted yet: its HTTP layer waits for admission (outside the consistent view) and asks again.
 */
export const NEEDS_ADMISSION: unique symbol = Symbol('needs admission');
export type NeedsAdmission = typeof NEEDS_ADMISSION;

/** What a big answer waits for besides a slot (until the deadline, epoch ms); from the HTTP layer. */
export interface BuildConditions {
  /** The earlier answers of the request's connection have been sent. */
  readonly connectionDrained: (deadline: number, signal: AbortSignal | undefined) => Promise<void>;
  /** The unsent bytes of all connections are below their limit. */
  readonly room: (deadline: number, signal: AbortSignal | undefined) => Promise<void>;
  /** Aborts waiting (the server shuts down: answers not started yet are not built any more). */
  readonly signal?: AbortSignal;
}

/** One request's admission: acquired outside its consistent view, kept until its answer is built. */
export class BigAnswerAdmission {
  private release: (() => void) | undefined;

  constructor(
    private readonly conditions: BuildConditions,
    readonly deadline: number,
  ) {}

  get admitted(): boolean {
    return this.release !== undefined;
  }

  /**
   * Waits for the connection, then a slot, then room (room is checked while holding the slot, so
   * that requests queued for a slot do not all pass it while it is still empty). Throws the
   * conditions' errors (a 503 at the deadline) or the signal's reason.
   */
  async acquire(): Promise<void> {
    if (this.release !== undefined) return;
    const signal = this.conditions.signal;
    await this.conditions.connectionDrained(this.deadline, signal);
    const release = await bigAnswerSlots.acquire(signal);
    try {
      await this.conditions.room(this.deadline, signal);
    } catch (error) {
      release();
      throw error;
    }
    this.release = release;
  }

  /** The answer is built (or failed): frees the slot. */
  finish(): void {
    this.release?.();
  }
}
