import type { LogAggregate } from '../../format/transaction-log.js';
import type { PointInTime } from './commit-history.js';
import { ChannelLogReader } from '../log-reader.js';
import type { CommittedLengths } from '../storage.js';
import { resolveValidLengths } from '../valid-lengths.js';

/**
 * The committed bytes of every data file as of an earlier commit: each channel's log read only up
 * to the point's limit gives each file's committed length at that time (storage-format.md §6.4,
 * §6.5), and the newest record per object within those lengths is the state then. Data files are
 * append-only, so the bytes are still there unless housekeeping deleted the file since (the point
 * lists such files as missing; opening then fails naming them).
 *
 * Use with `Storage.open(dir, { committedLengths: committedLengthsAt(point) })`.
 */
export function committedLengthsAt(point: PointInTime): CommittedLengths {
  return async (layout, source) => {
    const aggregates: (LogAggregate | undefined)[] = [];
    for (const channel of layout.channels) {
      if (channel.logPath === undefined) {
        aggregates.push(undefined);
        continue;
      }
      const reader = new ChannelLogReader(channel.logPath);
      await reader.readNew(Math.min(channel.logSize, point.logLimits[channel.index] ?? 0), source);
      aggregates.push(reader.aggregate());
    }
    return resolveValidLengths(layout, aggregates, { logsEndEarlier: true });
  };
}
