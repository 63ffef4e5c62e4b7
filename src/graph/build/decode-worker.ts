import { parentPort } from 'node:worker_threads';
import { createTypeDictionary } from '../../format/type-dictionary.js';
import { ObjectIndex } from '../../storage/index/object-index.js';
import { readHeadAhead, SYNC_LOCAL_FILES } from '../../storage/source/sync-file-chunks.js';
import { shared } from './build-memory.js';
import { workerListStart, type SharedNodeArrays } from './shared-node-arrays.js';
import { FileClaim, type DecodedFile, type DecodeJob, type DecodeReply, type DecodeStart, type LinkReply, type LinkTask } from './decode-messages.js';
import { ForwardLists } from './forward-lists.js';
import { countReferrers, writeForwardHalves } from './link-steps.js';
import { NodeIds } from '../model/node-ids.js';
import { sweepReachability } from '../model/reachability.js';
import { RecordDecoder, type DecodeSink } from './record-decoder.js';
import { TypeTable } from '../model/type-table.js';

/**
 * Worker thread entry (decode-thread.ts starts it): decodes the data files of the channels it is
 * given, read by path in synchronous reads (the thread has nothing else to do meanwhile). The
 * latest records go straight into the build's shared per-node arrays and the worker's own
 * forward lists (shared memory too); the rest of each file's findings is sent as small flat
 * arrays, and the lists once every file is done. Then the thread counts the referrers and writes
 * part of the rows' forward halves (link-steps.ts).
 */

const MAX_PROBLEMS_PER_FILE = 100;

/** A growable Int32Array or Uint32Array. */
class Column<T extends Int32Array | Uint32Array> {
  length = 0;
  constructor(
    public items: T,
    private readonly make: (n: number) => T,
  ) {}

  push2(a: number, b: number): void {
    if (this.length + 2 > this.items.length) this.grow(this.length + 2);
    this.items[this.length] = a;
    this.items[this.length + 1] = b;
    this.length += 2;
  }

  push3(a: number, b: number, c: number): void {
    if (this.length + 3 > this.items.length) this.grow(this.length + 3);
    const items = this.items;
    items[this.length] = a;
    items[this.length + 1] = b;
    items[this.length + 2] = c;
    this.length += 3;
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
  readonly lists = new ForwardLists([], shared.u32);
  readonly retypedColumn = new Column(new Int32Array(2 << 4), (n) => new Int32Array(n));
  readonly supersededColumn = new Column(new Int32Array(3 << 10), (n) => new Int32Array(n));
  readonly missingColumn = new Column(new Int32Array(3 << 6), (n) => new Int32Array(n));
  problems: { file: string; offset: number; message: string }[] = [];
  problemCount = 0;

  /** `dictionaryTypes`: the types numbered alike in both threads (the dictionary's). */
  constructor(
    private readonly arrays: SharedNodeArrays,
    private readonly dictionaryTypes: number,
  ) {}

  latest(v: number, type: number, targets: Uint32Array, k: number): void {
    const { typeOfNode, listStart, degrees } = this.arrays;
    typeOfNode[v] = type;
    if (type >= this.dictionaryTypes) this.retypedColumn.push2(v, type);
    if (k === 0) return;
    listStart[v] = workerListStart(this.lists.append(targets, k));
    degrees[v] = k;
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

async function decode(job: DecodeJob, start: DecodeStart): Promise<ForwardLists> {
  const nodes = NodeIds.fromParts(start.nodes);
  const types = new TypeTable(createTypeDictionary(job.entries));
  const known = types.size;
  let reported = known;
  const decoder = new RecordDecoder(nodes, types, job.channelCount);
  const sink = new FileSink(start.arrays, known);
  let claim = 0;
  const order = job.channels.flatMap((c) => c.files);
  for (const channel of job.channels) {
    const objects = ObjectIndex.fromParts(channel.objects);
    for (const file of channel.files) {
      // The building thread took this file and the ones after it.
      if (Atomics.compareExchange(job.claims, claim++, FileClaim.unclaimed, FileClaim.worker) !== FileClaim.unclaimed) return sink.lists;
      const next = order[claim];
      if (next !== undefined) readHeadAhead(next.path);
      const before = decoder.records;
      const latestBefore = decoder.latestRecords;
      await decoder.decodeFile(SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength), file, channel.index, objects, sink);
      const addedTypes: bigint[] = [];
      for (; reported < types.size; reported++) addedTypes.push(types.at(reported).typeId);
      const message: DecodedFile = {
        kind: 'file',
        channel: channel.index,
        order: file.order,
        bytes: file.totalLength,
        records: decoder.records - before,
        latestRecords: decoder.latestRecords - latestBefore,
        retyped: sink.retypedColumn.take(),
        superseded: sink.supersededColumn.take(),
        missing: sink.missingColumn.take(),
        problems: sink.problems,
        problemCount: sink.problemCount,
        addedTypes,
      };
      sink.problems = [];
      sink.problemCount = 0;
      // Copied, not transferred: a transfer detaches a buffer, and the first detach in a thread
      // throws away all its compiled code that touches typed arrays (V8 assumed no detaching),
      // the whole decode among it, to be compiled again. These arrays are small.
      parentPort?.postMessage(message);
    }
  }
  return sink.lists;
}

/** What linking needs here once decoding is done: the job's arrays and this thread's lists. */
let decoded: { readonly arrays: SharedNodeArrays; readonly lists: ForwardLists } | undefined;

function link(task: LinkTask): LinkReply {
  if (decoded === undefined) throw new Error('asked to link before decoding');
  if (task.kind === 'sweep') {
    sweepReachability(task.input);
    return { kind: 'linked' };
  }
  const { arrays, lists } = decoded;
  const share = { arrays, lists: ForwardLists.fromParts(task.lists), workerLists: lists };
  if (task.kind === 'count') countReferrers(share, arrays.degrees);
  else writeForwardHalves(share, task.rows, task.histogram, task.from, task.to);
  return { kind: 'linked' };
}

function failed(error: unknown): void {
  parentPort?.postMessage({ kind: 'failed', message: error instanceof Error ? error.message : String(error) } satisfies DecodeReply);
}

let job: DecodeJob | undefined;

// The job comes first, then the start; link tasks come after the building thread has heard that
// decoding is done.
parentPort?.on('message', (message: DecodeJob | DecodeStart | LinkTask) => {
  if (message.kind === 'channels') {
    job = message;
    return;
  }
  if (message.kind === 'start') {
    if (job === undefined) return failed(new Error('asked to start before the job came'));
    decode(job, message).then((lists) => {
      decoded = { arrays: message.arrays, lists };
      parentPort?.postMessage({ kind: 'done', lists: lists.toParts() } satisfies DecodeReply);
    }, failed);
    return;
  }
  try {
    parentPort?.postMessage(link(message) satisfies DecodeReply);
  } catch (error) {
    failed(error);
  }
});
