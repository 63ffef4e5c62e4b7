import { parentPort } from 'node:worker_threads';
import { createTypeDictionary } from '../format/type-dictionary.js';
import { ObjectIndex } from '../storage/object-index.js';
import { SYNC_LOCAL_FILES } from '../storage/sync-file-chunks.js';
import type { DecodedFile, DecodeJob, DecodeReply } from './decode-messages.js';
import { NodeIds } from './node-ids.js';
import { RecordDecoder, type DecodeSink } from './record-decoder.js';
import { TypeTable } from './type-table.js';

/**
 * Worker thread entry (decode-thread.ts starts it): decodes the data files of the channels it is
 * given, read by path in synchronous reads (the thread has nothing else to do meanwhile), and
 * sends each file's findings as flat arrays by transfer.
 */

const MAX_PROBLEMS_PER_FILE = 100;

/** A growable Int32Array or Uint32Array. */
class Column<T extends Int32Array | Uint32Array> {
  length = 0;
  constructor(
    public items: T,
    private readonly make: (n: number) => T,
  ) {}

  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.items.length) this.grow(this.length + 3);
    const items = this.items;
    items[this.length] = a;
    items[this.length + 1] = b;
    items[this.length + 2] = c;
    this.length += 3;
  }

  pushAll(values: Uint32Array, count: number): void {
    if (this.length + count > this.items.length) this.grow(this.length + count);
    this.items.set(values.subarray(0, count), this.length);
    this.length += count;
  }

  /** The items so far, in an array of their own (the column starts afresh). */
  take(): T {
    const out = this.items.slice(0, this.length) as T;
    this.length = 0;
    return out;
  }

  private grow(need: number): void {
    const bigger = this.make(Math.max(need, this.items.length * 2));
    bigger.set(this.items.subarray(0, this.length));
    this.items = bigger;
  }
}

class FileSink implements DecodeSink {
  readonly latestColumn = new Column(new Int32Array(3 << 14), (n) => new Int32Array(n));
  readonly targetColumn = new Column(new Uint32Array(1 << 16), (n) => new Uint32Array(n));
  readonly supersededColumn = new Column(new Int32Array(3 << 10), (n) => new Int32Array(n));
  readonly missingColumn = new Column(new Int32Array(3 << 6), (n) => new Int32Array(n));
  problems: { file: string; offset: number; message: string }[] = [];
  problemCount = 0;

  latest(v: number, type: number, targets: Uint32Array, k: number): void {
    this.latestColumn.push3(v, type, k);
    if (k > 0) this.targetColumn.pushAll(targets, k);
  }

  olderVersion(v: number, fileSlot: number, offset: number): void {
    this.supersededColumn.push3(v, fileSlot, offset | 0);
  }

  missingReference(v: number, low: number, high: number): void {
    this.missingColumn.push3(v, low, high);
  }

  problem(file: string, offset: number, message: string): void {
    this.problemCount++;
    if (this.problems.length < MAX_PROBLEMS_PER_FILE) this.problems.push({ file, offset, message });
  }
}

async function decode(job: DecodeJob): Promise<void> {
  const nodes = NodeIds.fromParts(job.nodes);
  const types = new TypeTable(createTypeDictionary(job.entries));
  const known = types.size;
  let reported = known;
  const decoder = new RecordDecoder(nodes, types);
  const sink = new FileSink();
  for (const channel of job.channels) {
    const objects = ObjectIndex.fromParts(channel.objects);
    for (const file of channel.files) {
      const before = decoder.records;
      await decoder.decodeFile(SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength), file, objects, sink);
      const addedTypes: bigint[] = [];
      for (; reported < types.size; reported++) addedTypes.push(types.at(reported).typeId);
      const message: DecodedFile = {
        kind: 'file',
        channel: channel.index,
        order: file.order,
        bytes: file.totalLength,
        records: decoder.records - before,
        latest: sink.latestColumn.take(),
        targets: sink.targetColumn.take(),
        superseded: sink.supersededColumn.take(),
        missing: sink.missingColumn.take(),
        problems: sink.problems,
        problemCount: sink.problemCount,
        addedTypes,
      };
      sink.problems = [];
      sink.problemCount = 0;
      parentPort?.postMessage(message, [message.latest, message.targets, message.superseded, message.missing].map((a) => a.buffer as ArrayBuffer));
    }
  }
}

parentPort?.once('message', (job: DecodeJob) => {
  decode(job).then(
    () => parentPort?.postMessage({ kind: 'done' } satisfies DecodeReply),
    (error: unknown) => parentPort?.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies DecodeReply),
  );
});
