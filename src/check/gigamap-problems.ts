import type { TypeDictionary, TypeEntry } from '../format/type-dictionary.js';
import { GIGAMAP } from '../gigamap/gigamap-type-names.js';
import type { Storage } from '../storage/storage.js';
import type { Problem } from './problem.js';

/**
 * `check` on EclipseStore GigaMaps: collects the GigaMaps while the latest records are walked,
 * then reads each one (segments and index bitmaps) and reports what does not add up. EclipseStore
 * starts on such a storage; its GigaMap then answers queries wrongly, so these count as data lost.
 */

export class GigaMapCollector {
  readonly ids: bigint[] = [];

  /** Whether a dictionary knows the GigaMap type (else no record can be one, and the walk need not hand records over). */
  wanted(dictionary: TypeDictionary): boolean {
    for (const entry of dictionary.byId.values()) if (entry.typeName === GIGAMAP) return true;
    return false;
  }

  /** For `walkLatestRecords`' onReadable: notes the object id of every GigaMap record. */
  readonly onReadable = (record: Buffer, entry: TypeEntry): void => {
    if (entry.typeName === GIGAMAP && record.length >= 24) this.ids.push(record.readBigInt64LE(16));
  };
}

const RESCUE = 'rescue copies the GigaMap records as they are; rebuild the GigaMap (or its indices) in the application';

export async function gigaMapProblems(storage: Storage, ids: readonly bigint[]): Promise<Problem[]> {
  if (ids.length === 0) return [];
  const { reportGigaMaps } = await import('../gigamap/gigamap-report.js');
  const problems: Problem[] = [];
  for (const report of await reportGigaMaps(storage, [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))) {
    for (const finding of report.findings) {
      problems.push({ code: finding.code, severity: 'data-lost', meaning: finding.message, rescue: RESCUE, ...(finding.count === undefined ? {} : { count: finding.count }) });
    }
  }
  return problems;
}
