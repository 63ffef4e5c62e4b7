import { parentPort } from 'node:worker_threads';
import { verifyChunkFiles, type ChunkFile, type VerificationReply } from './chunk-verification.js';
import { LOCAL_FILES } from '../source/directory-source.js';

/**
 * Worker thread entry (chunk-verification.ts starts it): verifies the chunk checksums of the data
 * files it is sent, reading them by path, read-only, while the starting thread walks the records
 * (check): on a second core the verification costs little more than its own reads.
 */

parentPort?.on('message', (files: ChunkFile[]) => {
  verifyChunkFiles(files, LOCAL_FILES).then(
    (verification) => parentPort?.postMessage({ ok: true, verification } satisfies VerificationReply),
    (error: unknown) => parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) } satisfies VerificationReply),
  );
});
