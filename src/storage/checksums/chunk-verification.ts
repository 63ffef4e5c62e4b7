import { algorithmOfKind, verifyFileChunks, type ChunkAlgorithm, type FileChunkWalk } from '../../format/chunk-checksums.js';
import { FILE_HEADER_LENGTH, KIND_FILE_HEADER, META_MARKER, OFFSET_FILE_HEADER_CHECKSUM_KIND, OFFSET_META_KIND, OFFSET_META_MARKER } from '../../format/meta-record.js';
import { WorkerThread } from '../../threads/worker-thread.js';
import { LOCAL_FILES } from '../source/directory-source.js';
import type { SourceReads } from '../source/source.js';
import type { ValidDataFile, ValidStorage } from '../valid-lengths.js';

/**
 * Every chunk checksum of a storage's committed bytes verified as EclipseStore 4.2 verifies them
 * when it starts with the checksum setting its files name (the writer's setting): the algorithm
 * most file headers name. Each data file is read once, up to its committed length; a file shorter
 * than that is left to the length check (4.2 refuses it before any chunk is verified).
 */

/** One data file verified. */
export interface VerifiedDataFile {
  readonly channel: number;
  readonly fileNumber: bigint;
  readonly path: string;
  readonly walk: FileChunkWalk;
}

export interface ChunkVerification {
  /** The algorithm the file headers name (most of them), or undefined: no file has a header naming one. */
  readonly algorithm: ChunkAlgorithm | undefined;
  /** Files whose header names another selection than `algorithm` (4.2 does not look at it). */
  readonly otherSelections: readonly { readonly path: string; readonly selection: number }[];
  /** Files with a header, verified. */
  readonly files: readonly VerifiedDataFile[];
  /** Files not verified and why (too large to hold, cut short). */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/** What the verification thread (chunk-verification-worker.ts) answers. */
export type VerificationReply = { readonly ok: true; readonly verification: ChunkVerification } | { readonly ok: false; readonly message: string };

/** Bytes of one file held at once; a larger file is reported as not verified. */
export const MAX_VERIFIED_FILE_BYTES = 1024 * 1024 * 1024;

/**
 * Verifies `valid`'s files through `reads`. `algorithm` overrides the writer's setting (what a
 * start with another setting would verify); `onProgress` gets the committed bytes done and total.
 */
export async function verifyStorageChunks(
  valid: ValidStorage,
  reads: SourceReads,
  options: { readonly onProgress?: (done: number, total: number) => void } = {},
): Promise<ChunkVerification> {
  return verifyChunkFiles(valid.channels.flatMap((c) => c.files), reads, options);
}

/** A data file to verify: its committed bytes, and its size on disk when known. */
export type ChunkFile = Pick<ValidDataFile, 'channel' | 'fileNumber' | 'path' | 'validLength'> & { readonly size?: number; readonly committedLength?: number | undefined };

/** The checksum selection a data file's header names, or undefined: the file has no chunk file header. */
async function headerSelection(file: ChunkFile, reads: Pick<SourceReads, 'read'>): Promise<number | undefined> {
  if (file.validLength < FILE_HEADER_LENGTH || (file.size !== undefined && file.size < FILE_HEADER_LENGTH)) return undefined;
  const head = await reads.read(file.path, 0, FILE_HEADER_LENGTH);
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  if (view.getBigInt64(0, true) !== BigInt(-FILE_HEADER_LENGTH)) return undefined;
  if (view.getUint16(OFFSET_META_MARKER, true) !== META_MARKER || view.getUint16(OFFSET_META_KIND, true) !== KIND_FILE_HEADER) return undefined;
  return view.getUint16(OFFSET_FILE_HEADER_CHECKSUM_KIND, true);
}

/** `verifyStorageChunks` over a list of files (an opened storage's, say). */
export async function verifyChunkFiles(
  all: readonly ChunkFile[],
  reads: Pick<SourceReads, 'read'>,
  options: { readonly onProgress?: (done: number, total: number) => void } = {},
): Promise<ChunkVerification> {
  const files = all.filter((f) => f.validLength >= FILE_HEADER_LENGTH);
  const selections = new Map<ChunkFile, number>();
  const votes = new Map<number, number>();
  for (const file of files) {
    const selection = await headerSelection(file, reads);
    if (selection === undefined) continue;
    selections.set(file, selection);
    votes.set(selection, (votes.get(selection) ?? 0) + 1);
  }
  const ranked = [...votes].filter(([kind]) => algorithmOfKind(kind) !== undefined).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  const writerKind = ranked[0]?.[0];
  const algorithm = writerKind === undefined ? undefined : algorithmOfKind(writerKind);
  if (algorithm === undefined) return { algorithm, otherSelections: [], files: [], skipped: [] };
  const known = new Set<ChunkAlgorithm>([algorithm]);
  const verified: VerifiedDataFile[] = [];
  const skipped: { path: string; reason: string }[] = [];
  const otherSelections = [...selections].filter(([, s]) => s !== writerKind).map(([f, selection]) => ({ path: f.path, selection }));
  const headed = files.filter((f) => selections.has(f));
  const total = headed.reduce((n, f) => n + f.validLength, 0);
  let done = 0;
  for (const file of headed) {
    const size = file.size ?? file.validLength;
    if (size < file.validLength || (file.committedLength !== undefined && size < file.committedLength)) {
      skipped.push({ path: file.path, reason: `the file is shorter than its committed length: its chunks are not verified` });
      continue;
    }
    if (file.validLength > MAX_VERIFIED_FILE_BYTES) {
      skipped.push({ path: file.path, reason: `${file.validLength} committed bytes, more than the ${MAX_VERIFIED_FILE_BYTES} verified in one piece: its chunks are not verified` });
      continue;
    }
    const bytes = await reads.read(file.path, 0, file.validLength);
    verified.push({ channel: file.channel, fileNumber: file.fileNumber, path: file.path, walk: verifyFileChunks(bytes, known) });
    done += file.validLength;
    options.onProgress?.(done, total);
  }
  return { algorithm, otherSelections, files: verified, skipped };
}

/**
 * `verifyStorageChunks` for a storage in a local directory, in a worker thread of its own
 * (chunk-verification-worker.ts), so that it runs beside the starting thread's work. A storage of
 * fewer committed bytes than `minBytes` is verified here: starting a thread costs more.
 */
export async function verifyStorageChunksBeside(valid: ValidStorage, minBytes = 64 * 1024 * 1024): Promise<ChunkVerification> {
  const files: ChunkFile[] = valid.channels.flatMap((c) =>
    c.files.map((f) => ({ channel: f.channel, fileNumber: f.fileNumber, path: f.path, validLength: f.validLength, size: f.size, committedLength: f.committedLength })),
  );
  if (files.reduce((n, f) => n + f.validLength, 0) < minBytes) return verifyChunkFiles(files, LOCAL_FILES);
  // Without a file header naming checksums (every storage but EclipseStore 4.2's with them) there
  // is nothing to verify: the headers are read here rather than a thread started to read them.
  let headed = false;
  for (const file of files) {
    if ((await headerSelection(file, LOCAL_FILES)) === undefined) continue;
    headed = true;
    break;
  }
  if (!headed) return verifyChunkFiles(files, LOCAL_FILES);
  const thread = new WorkerThread<ChunkFile[], VerificationReply>(import.meta.url, 'chunk-verification-worker', (code) => `the chunk verification thread stopped (exit code ${code})`);
  try {
    const reply = await thread.ask(files);
    if (reply instanceof Error) throw reply;
    if (!reply.ok) throw new Error(reply.message);
    return reply.verification;
  } finally {
    await thread.terminate();
  }
}
