import { checkStorage, type CheckReport } from '../../src/check/check-storage.js';
import { analyzeStartup } from '../../src/check/java-startup.js';
import { checkServable } from '../../src/http/java/integrity.js';
import { answerRequest, type Answer } from '../../src/http/java/java-service.js';
import { rescueStorage, type RescueReport } from '../../src/rescue/rescue-storage.js';
import { scanStorageDirectory } from '../../src/storage/source/storage-dir.js';
import { Storage } from '../../src/storage/storage.js';
import { expect } from 'vitest';
import { diffSnapshots, snapshotTree } from '../security/snapshot.js';

/**
 * Check and rescue a damaged storage, then judge the result:
 * - `check` of the damaged storage, `rescue` into `out`, `check` of the rescued storage;
 * - the answers of the rescued storage against those of our server on the damaged original. When
 *   `serve` refuses the damaged original (a file the log names is missing, say), the reference is
 *   the original read the way rescue reads it, file by file as far as records are complete.
 *   Every object that answered 200 must answer the same (plainly and with references=true),
 *   except objects rescue reports as kept in an older version; objects that answered 500 (their
 *   newest version is unreadable) must be reported as kept in an older version or as lost;
 * - the damaged original's files (bytes and times) must not have changed.
 */

export interface RescueOutcome {
  readonly before: CheckReport;
  readonly rescue: RescueReport;
  readonly after: CheckReport;
  /** Whether our server starts on the damaged original as it is. */
  readonly served: boolean;
  readonly compared: number;
  readonly mismatches: readonly string[];
  readonly originalChanged: readonly string[];
}

export async function checkAndRescue(dir: string, out: string): Promise<RescueOutcome> {
  const snapshot = snapshotTree(dir);
  const before = await checkStorage(dir);
  const rescue = await rescueStorage(dir, { out });
  const after = await checkStorage(out);
  const { reference, served } = await openReference(dir);
  const rescued = await Storage.open(out);
  const mismatches: string[] = [];
  let compared = 0;
  try {
    const older = new Set(rescue.olderVersions.map((o) => o.objectId));
    const lost = new Set(rescue.lost.map((l) => l.objectId));
    // Objects whose references to lost objects rescue replaced answer with the replacement (checked
    // member by member in the Java laboratory); with references=true, so do the objects referring to them.
    const replacedOwners = new Set(rescue.replaced.map((r) => r.owner));
    expect(rescue.replaced.length).toBe(rescue.replacedCount);
    const showsReplaced = (id: bigint, answer: Answer, query: string): boolean =>
      answer.status === 200 && (replacedOwners.has(id) || (query !== '' && [...replacedOwners].some((o) => answer.body.includes(`"${o}"`))));
    for (const url of ['/microstream/root', '/microstream/dictionary']) {
      const [a, b] = [await ask(reference, url), await ask(rescued, url)];
      if (!same(a, b)) mismatches.push(`${url}: ${describe(b)} instead of ${describe(a)}`);
    }
    for (const id of objectIds(reference)) {
      for (const query of ['', '?references=true&variableLength=64']) {
        const url = `/microstream/object/${id}${query}`;
        const a = await ask(reference, url);
        const b = await ask(rescued, url);
        compared++;
        if (older.has(id) && b.status === 200) continue;
        if (showsReplaced(id, b, query)) continue;
        // A referenced object that was lost makes the whole references=true answer a 404.
        const missing = /^No entity found for objectId (\d+)$/.exec(b.body.toString());
        const referenceLost = query !== '' && b.status === 404 && missing !== null && lost.has(BigInt(missing[1]!));
        if (a.status === 200) {
          if (same(a, b) || referenceLost) continue;
          mismatches.push(`${url}: ${describe(b)} instead of ${describe(a)}`);
        } else if (a.status === 500) {
          if ((lost.has(id) && b.status === 404) || referenceLost) continue;
          if (query !== '' && b.status === 200) continue; // a referenced damaged object kept in an older version
          mismatches.push(`${url}: the original answered ${describe(a)}; rescued ${describe(b)}, reported neither as older version nor as lost`);
        }
      }
    }
  } finally {
    await rescued.close();
    await reference.close();
  }
  return { before, rescue, after, served, compared, mismatches, originalChanged: diffSnapshots(snapshot, snapshotTree(dir)) };
}

async function openReference(dir: string): Promise<{ reference: Storage; served: boolean }> {
  try {
    const storage = await Storage.open(dir);
    try {
      checkServable(storage);
      return { reference: storage, served: true };
    } catch (error) {
      await storage.close();
      throw error;
    }
  } catch {
    const startup = await analyzeStartup(await scanStorageDirectory(dir));
    return { reference: await Storage.open(dir, { committedLengths: async () => startup.readableLengths }), served: false };
  }
}

function ask(storage: Storage, url: string): Promise<Answer> {
  return storage.consistent(() => answerRequest(storage, { instance: 'microstream' }, { method: 'GET', url, headers: {} }));
}

function same(a: Answer, b: Answer): boolean {
  return a.status === b.status && a.contentType === b.contentType && a.body.equals(b.body);
}

function describe(answer: Answer): string {
  const body = answer.body.length > 120 ? `${answer.body.subarray(0, 120).toString()}…` : answer.body.toString();
  return `${answer.status} ${JSON.stringify(body)}`;
}

function objectIds(storage: Storage): bigint[] {
  const ids: bigint[] = [];
  for (const channel of storage.channels) channel.objects.forEach((low, high) => ids.push((BigInt(high) << 32n) | BigInt(low >>> 0)));
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
