import { readFileSync } from 'node:fs';

/**
 * CPU time of the whole machine and of single processes, from Linux's /proc, so that a load run
 * can say how much of the machine it had: what the server and the load generator used, and what
 * everything else (other users, other tests) took meanwhile. Undefined where /proc is missing.
 */

/** Clock ticks per second of /proc's figures (USER_HZ; 100 on every Linux that matters). */
const TICKS_PER_SECOND = 100;

export interface CpuSnapshot {
  readonly at: number;
  /** Busy seconds of all cores together (user, nice, system, irq, softirq, steal). */
  readonly machineBusy: number;
  /** Busy seconds per process id (user + system). */
  readonly processes: ReadonlyMap<number, number>;
}

export interface CpuUse {
  /** Wall-clock seconds between the snapshots. */
  readonly seconds: number;
  /** Per process id: cores used on average (1 = one core fully busy). */
  readonly processes: ReadonlyMap<number, number>;
  /** Cores used by everything else on the machine, on average. */
  readonly others: number;
}

function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'latin1').split('\n', 1)[0] ?? '';
    const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

function processBusySeconds(pid: number): number | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
    // The command name in parentheses may contain spaces: count fields after its closing one.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

export function cpuSnapshot(pids: readonly number[]): CpuSnapshot | undefined {
  const machineBusy = machineBusySeconds();
  if (machineBusy === undefined) return undefined;
  const processes = new Map<number, number>();
  for (const pid of pids) {
    const busy = processBusySeconds(pid);
    if (busy !== undefined) processes.set(pid, busy);
  }
  return { at: performance.now(), machineBusy, processes };
}

export function cpuBetween(before: CpuSnapshot | undefined, after: CpuSnapshot | undefined): CpuUse | undefined {
  if (before === undefined || after === undefined) return undefined;
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0) return undefined;
  const processes = new Map<number, number>();
  let ours = 0;
  for (const [pid, end] of after.processes) {
    const start = before.processes.get(pid);
    if (start === undefined) continue;
    processes.set(pid, (end - start) / seconds);
    ours += end - start;
  }
  return { seconds, processes, others: Math.max(0, (after.machineBusy - before.machineBusy - ours) / seconds) };
}

/**
 * Bytes a process has had read from storage devices so far (`read_bytes` of /proc/<pid>/io):
 * reads the page cache answered are not counted, so a server that should be reading from the page
 * cache shows here what the kernel made it read from disk again. Undefined where /proc is missing.
 */
export function diskReadBytes(pid: number): number | undefined {
  try {
    const match = /^read_bytes:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'latin1'));
    return match === null ? undefined : Number(match[1]);
  } catch {
    return undefined;
  }
}
