import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseTransactionLog } from '../../../src/format/transaction-log.js';
import { Storage } from '../../../src/storage/storage.js';
import { bytes } from './bytes.js';

/**
 * Does what MicroStream's file cleanup does to dissolve one data file (storage-format.md §5.7):
 * copies each run of live records to the end of the channel's head file with a transfer log entry,
 * then logs the deletion and deletes the file. `step` is called after each file operation.
 */
export async function dissolveFile(dir: string, channel: number, fileNumber: bigint, step: () => Promise<void>): Promise<void> {
  const channelDir = join(dir, `channel_${channel}`);
  const source = join(channelDir, `channel_${channel}_${fileNumber}.dat`);
  const logPath = join(channelDir, `transactions_${channel}.sft`);
  const storage = await Storage.open(dir);
  const runs: { offset: number; length: number }[] = [];
  let headPath: string;
  let sourceLength: number;
  try {
    const state = storage.channels[channel]!;
    const file = state.files.find((f) => f.fileNumber === fileNumber);
    if (file === undefined) throw new Error(`no file ${fileNumber} in channel ${channel}`);
    sourceLength = file.totalLength;
    const head = state.files.at(-1)!;
    if (head.fileNumber === fileNumber) throw new Error('cannot dissolve the head file in this simulation');
    headPath = head.path;
    const live: { offset: number; length: number }[] = [];
    state.objects.forEach((_low, _high, fileSlot, offset, length) => {
      if (state.fileAt(fileSlot)?.fileNumber === fileNumber) live.push({ offset, length });
    });
    live.sort((a, b) => a.offset - b.offset);
    for (const r of live) {
      const lastRun = runs.at(-1);
      if (lastRun !== undefined && lastRun.offset + lastRun.length === r.offset) lastRun.length += r.length;
      else runs.push({ ...r });
    }
  } finally {
    await storage.close();
  }
  const data = readFileSync(source);
  let timestamp = lastTimestamp(logPath);
  for (const run of runs) {
    appendFileSync(headPath, data.subarray(run.offset, run.offset + run.length));
    await step();
    timestamp += 1n;
    appendFileSync(
      logPath,
      bytes().int8(34).int8(2).int64(timestamp).int64(BigInt(statSync(headPath).size)).int64(fileNumber).int64(BigInt(run.offset)).build(),
    );
    await step();
  }
  timestamp += 1n;
  appendFileSync(logPath, bytes().int8(26).int8(4).int64(timestamp).int64(BigInt(sourceLength)).int64(fileNumber).build());
  await step();
  rmSync(source);
  await step();
}

export function lastTimestamp(logPath: string): bigint {
  return parseTransactionLog(readFileSync(logPath)).entries.reduce((max, e) => (e.timestamp > max ? e.timestamp : max), 0n);
}
