import type { ChunkAnomaly } from '../format/chunk-checksums.js';
import type { TypeDictionary } from '../format/type-dictionary.js';
import type { ChunkVerification } from '../storage/checksums/chunk-verification.js';
import type { Problem } from './problem.js';

/**
 * The findings of the chunk-checksum verification (storage/checksums/chunk-verification.ts) as problems,
 * each with what EclipseStore 4.2 does: started with the writer's setting (the algorithm the file
 * headers name, the default policy) it refuses on a checksum mismatch, a chunk-boundary mismatch
 * and uncovered data, with the exceptions and messages below (checked against 4.2.0 on the shared
 * corpus' damaged copies); started without a checksum setting it verifies nothing and serves the
 * damaged bytes. A record kind the setting does not know is skipped: its chunk is not verified.
 */

const EXCEPTIONS = 'org.eclipse.store.storage.exceptions.';
/** Objects named in a problem's text; the rest are counted. */
const NAMED_OBJECTS = 10;

export interface ChunkObject {
  readonly objectId: string;
  readonly typeName: string;
}

export function chunkProblems(verification: ChunkVerification, dictionary: TypeDictionary): Problem[] {
  const problems: Problem[] = [];
  const algorithm = verification.algorithm === 'sha256' ? 'chained SHA-256' : 'CRC32C';
  for (const file of verification.files) {
    const number = file.fileNumber.toString();
    for (const anomaly of file.walk.anomalies) {
      const objects = anomaly.records.map((r) => ({ objectId: r.objectId.toString(), typeName: dictionary.byId.get(r.typeId)?.typeName ?? `type ${r.typeId}` }));
      const base = { file: file.path, offset: anomaly.chunkStart, count: objects.length, objects };
      const range = `bytes ${anomaly.chunkStart} to ${anomaly.chunkEnd}`;
      const without =
        'EclipseStore 4.2 without a checksum setting verifies nothing: it starts and serves these bytes as they are, unless they fail it in other ways (then another problem names it); ' +
        '`serve` answers them so too, with the objects marked damaged, and `serve --strict` refuses';
      const lost = objectsText(objects);
      const rescue = `treats the chunk's objects as unreadable (older versions kept where they exist, references to the others replaced) and writes new ${algorithm} checksums`;
      switch (anomaly.kind) {
        case 'checksum-mismatch':
          problems.push({
            ...base,
            code: 'CHUNK_CHECKSUM_MISMATCH',
            severity: 'refuses-start',
            java: { exception: `${EXCEPTIONS}StorageExceptionChunkChecksumMismatch`, message: `ChunkChecksumV1 mismatch in data file #${number} at position ${anomaly.chunkStart}: expected hash ${anomaly.expected}, actual hash ${anomaly.actual}` },
            meaning: `the ${algorithm} of the chunk at ${range} does not match the one stored after it (stored ${anomaly.expected}, computed ${anomaly.actual}): a byte of the chunk, or of its checksum, changed after it was written. ${lost}. ${without}`,
            rescue,
          });
          break;
        case 'boundary-mismatch':
          problems.push({
            ...base,
            code: 'CHUNK_BOUNDARY_MISMATCH',
            severity: 'refuses-start',
            java: {
              exception: `${EXCEPTIONS}StorageExceptionChunkBoundaryMismatch`,
              message: `Chunk-boundary mismatch in data file #${number} at record position ${anomaly.recordOffset}: record covers chunk starting at ${anomaly.storedStart}, but the load walk reconstructed a chunk start of ${anomaly.chunkStart} (framing desync — a corrupted entity length rerouted the walk past a covering record).`,
            },
            meaning: `the checksum record at offset ${anomaly.recordOffset} covers a chunk starting at ${anomaly.storedStart}, but the chunk before it starts at ${anomaly.chunkStart} (${range}): a changed chunk start or entity length; the chunk cannot be verified. ${lost}. ${without}`,
            rescue,
          });
          break;
        case 'uncovered-data':
          problems.push({
            ...base,
            code: 'CHUNK_UNCOVERED_DATA',
            severity: 'refuses-start',
            java: { exception: `${EXCEPTIONS}StorageExceptionConsistency`, message: `Uncovered data (no chunk-checksum record) in data file #${number} at offset ${anomaly.chunkStart}` },
            meaning: `the committed ${range} are followed by no checksum record: they cannot be verified. ${lost}. ${without}`,
            rescue,
          });
          break;
        case 'unknown-kind':
          problems.push({
            ...base,
            code: 'CHUNK_NOT_VERIFIABLE',
            severity: 'harmless',
            meaning: `this chunk cannot be verified: the meta record at offset ${anomaly.recordOffset} has kind 0x${(anomaly.metaKind ?? 0).toString(16)}, which the writer's setting (${algorithm}) does not know; EclipseStore 4.2 skips it and starts without verifying ${range}`,
            rescue: `copies the chunk's objects as they are and writes new ${algorithm} checksums`,
          });
          break;
      }
    }
    if (file.walk.zeroLengthAt !== undefined) {
      problems.push({
        code: 'CHUNK_WALK_STOPPED',
        severity: 'refuses-start',
        file: file.path,
        offset: file.walk.zeroLengthAt,
        java: { exception: `${EXCEPTIONS}StorageExceptionConsistency`, message: 'Zero length data item.' },
        meaning: 'a zero length entry stops the walk that verifies the chunks: the chunks after it are not verified',
        rescue: 'keeps the records before it',
      });
    }
  }
  for (const other of verification.otherSelections) {
    problems.push({
      code: 'CHUNK_HEADER_SELECTION',
      severity: 'harmless',
      file: other.path,
      offset: 0,
      meaning: `the file header names checksum selection 0x${other.selection.toString(16)}, not the writer's ${algorithm}: EclipseStore 4.2 does not look at it (it verifies each chunk by its record's kind) and starts`,
      rescue: `writes a new header naming ${algorithm}`,
    });
  }
  for (const skipped of verification.skipped) {
    if (/shorter than its committed length/.test(skipped.reason)) continue; // the length check reports it
    problems.push({ code: 'CHUNK_NOT_VERIFIABLE', severity: 'harmless', file: skipped.path, meaning: `this file's chunks cannot be verified: ${skipped.reason}`, rescue: 'copies the objects as they are' });
  }
  return problems;
}

function objectsText(objects: readonly ChunkObject[]): string {
  if (objects.length === 0) return 'No object record lies in the chunk';
  const named = objects.slice(0, NAMED_OBJECTS).map((o) => `${o.objectId} (${o.typeName})`).join(', ');
  const more = objects.length > NAMED_OBJECTS ? ` and ${objects.length - NAMED_OBJECTS} more` : '';
  return `${objects.length === 1 ? 'The object' : `The ${objects.length} objects`} whose records lie in it: ${named}${more}`;
}

/** Whether the problems come from a damaged chunk (what `rescue` and serving treat as unreadable). */
export function isChunkDamage(anomaly: ChunkAnomaly): boolean {
  return anomaly.kind === 'checksum-mismatch' || anomaly.kind === 'boundary-mismatch' || anomaly.kind === 'uncovered-data';
}
