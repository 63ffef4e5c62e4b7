import { chunkProblems } from '../check/chunk-problems.js';
import { verifyChunkFiles } from '../storage/checksums/chunk-verification.js';
import type { Storage } from '../storage/storage.js';
import type { StorageDamage } from './readable-part.js';

/**
 * Serving an EclipseStore 4.2 storage whose chunks fail their checksums: what `check` finds
 * (check/chunk-problems.ts) becomes damage shown beside the answers (`/api/v1/storage`), and the
 * objects whose records lie in a damaged chunk are marked (`/api/v1/objects/{oid}`). The
 * Java-compatible routes answer as EclipseStore 4.2 without a checksum setting does: the bytes
 * as they are. `--strict` refuses the storage as 4.2 with the writer's setting does.
 */

export interface ChunkDamage {
  /** The damaged chunks (and chunks that cannot be verified), with 4.2's message. */
  readonly damage: readonly StorageDamage[];
  /** Object id (decimal) → the damage of the chunk its record lies in. */
  readonly objects: ReadonlyMap<string, StorageDamage>;
  /** What 4.2 with the writer's setting refuses with, when it does (the first refusing damage). */
  readonly refusal: string | undefined;
}

/** Verifies the chunks of an opened storage's committed bytes (nothing is read when no file has checksum records). */
export async function chunkDamageOf(storage: Storage): Promise<ChunkDamage> {
  const files = storage.channels.flatMap((c) => c.files);
  if (!files.some((f) => f.metaLength > 0)) return { damage: [], objects: new Map(), refusal: undefined };
  const verification = await verifyChunkFiles(
    files.map((f) => ({ channel: f.channel, fileNumber: f.fileNumber, path: f.path, validLength: f.totalLength })),
    { read: (path, position, length) => storage.readFileRange(path, position, length) },
  );
  const damage: StorageDamage[] = [];
  const objects = new Map<string, StorageDamage>();
  let refusal: string | undefined;
  const byPlace = new Map<string, StorageDamage>();
  for (const p of chunkProblems(verification, storage.dictionary)) {
    if (p.severity === 'harmless' && p.code !== 'CHUNK_NOT_VERIFIABLE') continue;
    const java = p.java === undefined ? '' : ` (EclipseStore 4.2 with the writer's checksum setting: ${p.java.exception}: ${p.java.message})`;
    const d: StorageDamage = { code: p.code, severity: p.severity, file: p.file, offset: p.offset, message: `${p.meaning}${java}` };
    damage.push(d);
    if (p.severity === 'refuses-start') {
      refusal ??= p.java === undefined ? p.meaning : `${p.java.exception}: ${p.java.message}`;
      byPlace.set(`${p.file ?? ''}@${p.offset ?? -1}`, d);
    }
  }
  // Only objects whose newest version lies in a damaged chunk are marked (older versions there do not count).
  const slots = new Map(files.map((f) => [f.path, f] as const));
  for (const file of verification.files) {
    const stored = slots.get(file.path);
    if (stored === undefined) continue;
    for (const anomaly of file.walk.anomalies) {
      const d = byPlace.get(`${file.path}@${anomaly.chunkStart}`);
      if (d === undefined) continue;
      for (const r of anomaly.records) {
        const low = Number(BigInt.asIntN(32, r.objectId));
        const high = Number(BigInt.asIntN(32, r.objectId >> 32n));
        if (storage.channels[stored.channel]!.objects.isLatest(low, high, stored.slot, r.offset)) objects.set(r.objectId.toString(), d);
      }
    }
  }
  return { damage, objects, refusal };
}
