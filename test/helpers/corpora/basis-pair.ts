import { expect } from 'vitest';
import { diffStorages, type DiffReport } from '../../../src/diff/storage-diff.js';
import { Storage } from '../../../src/storage/storage.js';

/**
 * A storage B diffed against A with B opened on A as its basis (as the diff command opens two
 * storages) and opened whole: the reports and B's states, which must be the same either way
 * (test/diff/basis-*.test.ts).
 */

/** The report of A against B, B opened whole or on A; whether B continued A. */
export async function diff(a: string, b: string, onBasis: boolean, typeNames?: string[], limit = 10_000): Promise<{ report: DiffReport; continued: boolean }> {
  const sa = await Storage.open(a, { countLatestTypes: onBasis });
  try {
    if (onBasis) expect([...sa.latestTypeCounts!.values()].reduce((n, k) => n + k, 0)).toBe(sa.entityCount);
    const sb = await Storage.open(b, onBasis ? { basis: sa } : {});
    try {
      const report = await diffStorages(sa, sb, { limit, ...(typeNames === undefined ? {} : { typeNames }) });
      return { report, continued: sb.basisOpening !== undefined };
    } finally {
      await sb.close();
    }
  } finally {
    await sa.close();
  }
}

/** Every index entry, file and figure a storage's state holds, to compare an open on a basis with a whole one. */
export function stateOf(s: Storage): unknown {
  const entries: string[] = [];
  for (const channel of s.channels) channel.objects.forEach((low, high, slot, offset, length) => void entries.push(`${low}/${high} ${channel.fileAt(slot)!.path}@${offset}+${length}`));
  entries.sort();
  const files = s.channels.map((c) => c.files.map((f) => [f.path, f.fileNumber, f.totalLength, f.liveLength, f.metaLength]));
  return { entries, files, root: s.rootObjectId, roots: s.rootsObjectId, last: s.lastCommitTimestamp, warnings: s.warnings, dictionary: s.dictionaryBytes.toString('utf8') };
}

/** B opened on A and opened whole: the same state; whether the basis was taken. */
export async function sameState(a: string, b: string): Promise<boolean> {
  const sa = await Storage.open(a, { countLatestTypes: true });
  const onBasis = await Storage.open(b, { basis: sa });
  const whole = await Storage.open(b);
  try {
    expect(stateOf(onBasis)).toEqual(stateOf(whole));
    return onBasis.basisOpening !== undefined;
  } finally {
    await Promise.all([sa.close(), onBasis.close(), whole.close()]);
  }
}

/** The whole walk's report, and the basis taken or not as `taken` says. */
export async function expectSameReport(a: string, b: string, taken: boolean, typeNames?: string[], limit?: number): Promise<DiffReport> {
  const whole = await diff(a, b, false, typeNames, limit);
  const onBasis = await diff(a, b, true, typeNames, limit);
  expect(onBasis.continued).toBe(taken);
  expect(onBasis.report).toEqual(whole.report);
  return whole.report;
}
