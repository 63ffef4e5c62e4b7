import { DirectorySource } from '../../storage/source/directory-source.js';
import { FileReadAhead } from '../../storage/source/file-read-ahead.js';
import type { ObjectIndexParts } from '../../storage/index/object-index.js';
import { readHeadAhead, SYNC_LOCAL_FILES } from '../../storage/source/sync-file-chunks.js';
import type { Storage, StorageChannel } from '../../storage/storage.js';
import { Adjacency, rowStartsFromDegrees } from '../model/adjacency.js';
import { shared, unshared } from './build-memory.js';
import { BuildState, type BuildProblem } from './build-state.js';
import { FileClaim } from './decode-messages.js';
import { DecodeThread, DecodeThreadError, wantsDecodeThread } from './decode-thread.js';
import { GraphIndex } from '../model/graph-index.js';
import { countReferrers, splitByRows, writeForwardHalves, writeReferrerHalves } from './link-steps.js';
import { NodeIds } from '../model/node-ids.js';
import { histogramLength } from '../model/referrer-rows.js';
import { computeReachability } from '../model/reachability.js';
import { ReachabilityThread, wantsReachabilityThread } from './reachability-thread.js';
import { RecordDecoder } from './record-decoder.js';
import { NOT_STORED, TypeTable } from '../model/type-table.js';

export type { BuildProblem } from './build-state.js';

/**
 * Builds the graph index of a storage in one pass over its data files: every record that is the
 * latest of its object (the primary index says where that is) is decoded with its type's
 * reference plan; older records are only noted (for object versions). A large directory
 * storage's files are shared with a worker thread, which decodes its part into the same per-node
 * arrays (shared memory) and sends the rest of each file's findings back (decode-thread.ts; the
 * primary indexes it looks at are snapshots taken when the build starts, as the list of files is:
 * commits taken over meanwhile are applied afterwards, see graph-service.ts).
 * The forward lists collected in file order are then laid out as rows in node order and reversed
 * (adjacency.ts; the worker thread writes part of the forward halves, link-steps.ts), and
 * reachability is computed from the roots entity, in the decode thread (or a thread of its own
 * when there is none) while the rows' referrer halves are written.
 */

/** What the build reads from a storage. */
export type GraphSource = Pick<Storage, 'channels' | 'dictionary' | 'rootsObjectId' | 'source'>;

export interface BuildProgress {
  readonly phase: 'reading' | 'linking';
  readonly bytesDone: number;
  readonly bytesTotal: number;
  readonly filesDone: number;
  readonly filesTotal: number;
}

export interface BuildOptions {
  readonly onProgress?: (progress: BuildProgress) => void;
  /** Awaited between chunks of a file, so that other work (requests) can run. */
  readonly pause?: () => Promise<void>;
  /**
   * Whether the build uses worker threads: one decoding about half the files of a directory
   * storage, one channel or many (decode-thread.ts; by default from 512 MiB of files on), which
   * then also sweeps reachability while the rows' referrer halves are laid out; without it, a
   * thread of its own sweeps (reachability-thread.ts; by default from a million entities on);
   * none with a single processor. true or false decides for all.
   */
  readonly threads?: boolean;
}

export interface BuildResult {
  readonly graph: GraphIndex;
  /** The first problems found (at most 100) and how many there were. */
  readonly problems: readonly BuildProblem[];
  readonly problemCount: number;
  readonly records: number;
}

export async function buildGraph(source: GraphSource, options: BuildOptions = {}): Promise<BuildResult> {
  const entities = source.channels.reduce((sum, c) => sum + c.objects.size, 0);
  // A build with a decode thread sweeps in that thread (idle by then): a thread of its own for
  // the sweep cost its start-up, about 45 ms of CPU while both processors decode.
  const decodes = decodesInThread(source, options);
  const threads: BuildThreads = {
    decodes,
    reachability: !decodes && wantsReachabilityThread(options.threads, entities) ? new ReachabilityThread() : undefined,
    decoding: undefined,
    snapshots: [],
  };
  try {
    return await build(source, options, threads);
  } catch (error) {
    // Whatever failed there (a thread that cannot start, a file deleted meanwhile), this thread
    // decodes every file again itself and meets it in its own terms.
    if (!(error instanceof DecodeThreadError)) throw error;
  } finally {
    await Promise.all([threads.reachability?.close(), threads.decoding?.close()]);
    for (const release of threads.snapshots) release();
  }
  return buildGraph(source, { ...options, threads: false });
}

/** The worker threads of one build (closed by `buildGraph` however the build ends). */
interface BuildThreads {
  /** Whether a decode thread shares the files (`decodesInThread`); it then sweeps too. */
  readonly decodes: boolean;
  readonly reachability: ReachabilityThread | undefined;
  /** Started by `build` once it knows which channels the thread takes. */
  decoding: DecodeThread | undefined;
  /** Releases the snapshots of primary indexes the decode thread reads, once the thread is closed. */
  readonly snapshots: (() => void)[];
}

async function build(source: GraphSource, options: BuildOptions, threads: BuildThreads): Promise<BuildResult> {
  const decoded = await decodeFiles(source, options, threads);
  options.onProgress?.({ phase: 'linking', ...decoded.progress });
  await options.pause?.();
  return linkGraph(source, decoded, threads.reachability);
}

/** What reading and decoding every data file left for linking (`decodeFiles`). */
interface DecodedFiles {
  readonly nodes: NodeIds;
  readonly types: TypeTable;
  readonly state: BuildState;
  readonly decoder: RecordDecoder;
  readonly decoding: DecodeThread | undefined;
  /** Shared memory when another thread reads and writes the build's arrays. */
  readonly memory: typeof shared;
  readonly progress: { readonly bytesDone: number; readonly bytesTotal: number; readonly filesDone: number; readonly filesTotal: number };
}

/**
 * The first phase: every data file read and its latest records decoded into forward lists, the
 * decode thread (when there is one) taking the channels of at least half the bytes.
 */
async function decodeFiles(source: GraphSource, options: BuildOptions, threads: BuildThreads): Promise<DecodedFiles> {
  const channels = source.channels;
  const files = channels.flatMap((c) => c.files.map((f) => ({ channel: c, file: f })));
  const bytesTotal = files.reduce((sum, f) => sum + f.file.totalLength, 0);
  let bytesDone = 0;
  let filesDone = 0;
  const progress = (bytes: number): void => {
    bytesDone += bytes;
    filesDone++;
    options.onProgress?.({ phase: 'reading', bytesDone, bytesTotal, filesDone, filesTotal: files.length });
  };
  const local = source.source instanceof DirectorySource;
  // A worker thread decodes the files of channels holding at least half the bytes, reading them
  // itself; it gets their primary indexes first (snapshots over shared memory, copied only if a
  // commit changes them meanwhile). This thread decodes the other channels' files and then the
  // worker's from the last one back, until the two meet: each file is claimed first (`claims`,
  // shared memory).
  const theirs = threads.decodes ? channelsForThread(channels) : new Set<StorageChannel>();
  const orderOf = new Map(files.map(({ file }, order) => [file, order]));
  const theirFiles = [...theirs].flatMap((channel) => channel.files.map((file) => ({ channel, file, order: orderOf.get(file)! })));
  const claims = new Int32Array(new SharedArrayBuffer(4 * theirFiles.length));
  const decoding = (threads.decoding =
    theirs.size === 0
      ? undefined
      : new DecodeThread(
          {
            kind: 'channels',
            channelCount: channels.length,
            entries: source.dictionary.entries,
            channels: [...theirs].map((c) => ({
              index: c.index,
              objects: snapshotOf(c, threads),
              files: c.files.map((f) => ({ path: f.path, totalLength: f.totalLength, slot: f.slot, order: orderOf.get(f)! })),
            })),
            claims,
          },
          (file) => {
            state.merge(file);
            progress(file.bytes);
          },
        ));
  const nodes = NodeIds.fromChannels(channels);
  const n = nodes.count;
  // What another thread reads and writes is in shared memory.
  const thread = threads.reachability;
  const memory = thread === undefined && decoding === undefined ? unshared : shared;
  const types = new TypeTable(source.dictionary);
  const state = new BuildState(n, memory, types);
  decoding?.start({ kind: 'start', nodes: nodes.toParts(), arrays: state.sharedArrays });
  const ours = files.map((f, order) => ({ ...f, order })).filter((f) => !theirs.has(f.channel));
  const decoder = new RecordDecoder(nodes, types, channels.length);
  // Local files are read as the decode thread reads them, in small synchronous reads that the
  // kernel's read-ahead keeps ahead of (sync-file-chunks.ts), the next file's head read ahead while
  // one is decoded (readHeadAhead: the disk does not wait for each file's first read); between two
  // reads the build yields (pause).
  // Measured at 10M entities with the page cache dropped: reading and decoding took 0.94–0.97 s
  // so, against 1.09–1.14 s with the next file read ahead in 8 MiB reads on libuv's threads (the
  // same with a warm cache). Other sources' files are read ahead (file-read-ahead.ts).
  const reads = local ? undefined : new FileReadAhead(source.source.background ?? source.source, ours.map(({ file }) => ({ path: file.path, from: 0, to: file.totalLength })));
  const decodeHere = async (channel: StorageChannel, file: StorageChannel['files'][number], order: number, chunks: AsyncIterable<Uint8Array>): Promise<void> => {
    state.startFile(channel.index, order);
    await decoder.decodeFile(chunks, file, channel.index, channel.objects, state, options.pause);
    progress(file.totalLength);
    // Lets the worker thread's files be merged as they come (bounded memory).
    if (decoding !== undefined) await new Promise((resolve) => setImmediate(resolve));
  };
  try {
    for (const [index, { channel, file, order }] of ours.entries()) {
      const next = ours[index + 1];
      if (local && next !== undefined) readHeadAhead(next.file.path);
      await decodeHere(channel, file, order, reads === undefined ? SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength) : reads.chunks(index));
    }
  } finally {
    await reads?.close();
  }
  for (let k = theirFiles.length - 1; k >= 0 && Atomics.compareExchange(claims, k, FileClaim.unclaimed, FileClaim.buildingThread) === FileClaim.unclaimed; k--) {
    const { channel, file, order } = theirFiles[k]!;
    if (k > 0) readHeadAhead(theirFiles[k - 1]!.file.path);
    await decodeHere(channel, file, order, SYNC_LOCAL_FILES.chunks(file.path, 0, file.totalLength));
  }
  if (decoding !== undefined) state.adoptWorkerLists(await decoding.done());
  return { nodes, types, state, decoder, decoding, memory, progress: { bytesDone, bytesTotal, filesDone, filesTotal: files.length } };
}

/**
 * The second phase: referrer counts, the rows of forward and referrer halves (shared with the
 * decode thread when there is one), reachability from the roots (swept in another thread when
 * one is there), the graph index.
 */
async function linkGraph(source: GraphSource, decoded: DecodedFiles, thread: ReachabilityThread | undefined): Promise<BuildResult> {
  const { nodes, types, state, decoder, decoding, memory } = decoded;
  const { typeOfNode, degrees } = state;
  const n = nodes.count;
  const rootsNode = source.rootsObjectId === 0n ? -1 : nodes.nodeOfId(source.rootsObjectId);
  const sweepable = rootsNode >= 0 && typeOfNode[rootsNode] !== NOT_STORED;
  const reach = memory.u8(Math.ceil(n / 8));
  let swept: Promise<boolean> | undefined;
  const share = state.linkShare;
  // Referrer counts, from the forward lists at once rather than per record (cache-friendlier), in
  // one thread: counted in parallel (the worker into counts of its own, added in with the row
  // starts), the same count took longer on this machine. With the decode thread, it counts while
  // this thread sorts the older versions.
  const superseded = state.superseded;
  superseded.bulk = false;
  if (decoding === undefined) {
    countReferrers(share, degrees);
    superseded.merge();
  } else {
    const counted = decoding.link({ kind: 'count', lists: state.lists.toParts() });
    superseded.merge();
    await counted;
  }
  const rows = memory.u32(rowStartsFromDegrees(degrees, n));
  // Where the referrers go, counted per block of sources and range of targets as the forward halves are written.
  const histogram = memory.u32(histogramLength(n));
  // The list starts are not needed once the forward halves are written: they become the rows' fill cursors.
  if (decoding === undefined) writeForwardHalves(share, rows, histogram, 0, n);
  else {
    // The decode thread writes the later sources' halves.
    const split = splitByRows(degrees, n);
    const asked = decoding.link({ kind: 'forward', lists: state.lists.toParts(), rows, histogram, from: split, to: n });
    writeForwardHalves(share, rows, histogram, 0, split);
    await asked;
  }
  // The sweep reads forward entries only: it runs beside the referrer halves, in the decode thread
  // or a thread of its own.
  if (sweepable && (decoding !== undefined || thread !== undefined)) {
    const allStored = decoder.latestRecords + state.latestRecords === n;
    const input = { rows, rowStart: degrees, baseNodes: n, types: typeOfNode, nodeCount: n, reach, roots: rootsNode, allStored };
    const sweep = decoding !== undefined ? decoding.link({ kind: 'sweep', input }) : thread!.sweep(input);
    // A thread that failed leaves the sweep to this one.
    swept = sweep.then(
      () => true,
      () => false,
    );
  }
  writeReferrerHalves(share, rows, histogram);
  const adjacency = new Adjacency(degrees, rows, n);
  const graph = new GraphIndex(nodes, types, typeOfNode, adjacency, reach, state.missing, superseded, rootsNode);
  if (!(await swept)) computeReachability(graph);
  return { graph, problems: state.problems(), problemCount: state.problemCount, records: decoder.records + state.records };
}

/** Whether a build shares the files with a decode thread: a directory storage, large enough (decode-thread.ts). */
function decodesInThread(source: GraphSource, options: BuildOptions): boolean {
  const bytes = source.channels.reduce((sum, c) => c.files.reduce((n, f) => n + f.totalLength, sum), 0);
  return source.source instanceof DirectorySource && wantsDecodeThread(options.threads, bytes);
}

/** The channel's primary index as it is now, for the decode thread (ObjectIndex.snapshot). */
function snapshotOf(channel: StorageChannel, threads: BuildThreads): ObjectIndexParts {
  const { parts, release } = channel.objects.snapshot();
  threads.snapshots.push(release);
  return parts;
}

/** Channels holding at least half the bytes (the largest first), for the decode thread. */
function channelsForThread(channels: readonly StorageChannel[]): Set<StorageChannel> {
  const bytes = (c: StorageChannel): number => c.files.reduce((sum, f) => sum + f.totalLength, 0);
  const total = channels.reduce((sum, c) => sum + bytes(c), 0);
  const theirs = new Set<StorageChannel>();
  let given = 0;
  for (const channel of channels.filter((c) => bytes(c) > 0).sort((a, b) => bytes(b) - bytes(a))) {
    if (given >= total / 2) break;
    theirs.add(channel);
    given += bytes(channel);
  }
  return theirs;
}
