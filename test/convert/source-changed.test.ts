import { appendFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import type { ConvertReport } from '../../src/convert/convert-report.js';
import { StorageError } from '../../src/errors.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * The source is read twice (the check's record walk, then the copy); an application may write to
 * it in between. What it appends lies past the committed bytes both walks read; a data file cut or
 * deleted in between makes the copy meet other records than the check did: refused with the file
 * named and nothing written, never a storage copied from shifted records.
 */

const work = mkdtempSync(join(tmpdir(), 'si-convert-changed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A fresh copy of the corpus's `graph` storage (14 data files in channel 0, two channels). */
function sourceCopy(name: string): { dir: string; files: string[] } {
  const dir = join(work, name, 'source');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), dir, { recursive: true });
  const numbered = (f: string): number => Number(/_(\d+)\.dat$/.exec(f)![1]);
  const files = readdirSync(join(dir, 'channel_0'))
    .filter((f) => f.endsWith('.dat'))
    .sort((a, b) => numbered(a) - numbered(b))
    .map((f) => join(dir, 'channel_0', f));
  return { dir, files };
}

/** Converts `dir`, doing `between` once the check's walk is done and before the copy starts. */
function convertWith(dir: string, between: () => void): Promise<ConvertReport> {
  let done = false;
  return convertStorage(dir, {
    out: join(dir, '..', 'out'),
    onProgress: (phase) => {
      if (phase === 'finding reachable objects' && !done) {
        done = true;
        between();
      }
    },
  });
}

/** The first record boundary at or past half of a data file. */
function boundaryPastHalf(path: string): number {
  const bytes = readFileSync(path);
  let at = 0;
  while (at < bytes.length / 2) at += Number(bytes.readBigInt64LE(at));
  return at;
}

async function refusal(run: Promise<unknown>): Promise<StorageError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  return error as StorageError;
}

describe('convert, when the source changes between the check and the copy', () => {
  it('what the application appends is not read: the same copy as of an unchanged source', async () => {
    const still = sourceCopy('still');
    const expected = await convertWith(still.dir, () => undefined);
    const appended = sourceCopy('appended');
    const head = appended.files.at(-1)!;
    const report = await convertWith(appended.dir, () => appendFileSync(head, Buffer.alloc(4096, 7)));
    expect(report.written).toEqual(expected.written);
    expect(report.superseded).toEqual(expected.superseded);
    expect(report.garbage).toEqual(expected.garbage);
    expect(report.written.objects).toBeGreaterThan(1000);
  });

  it('a data file cut at a record boundary: refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('cut');
    const cut = files[0]!;
    const at = boundaryPastHalf(cut);
    const error = await refusal(convertWith(dir, () => truncateSync(cut, at)));
    expect(error.code).toBe('STORAGE_INCONSISTENT');
    expect(error.message).toContain(`${cut} ends at ${at}`);
    expect(error.message).toContain('changed while it was converted');
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });

  it('a data file cut inside a record: refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('cut-inside');
    const cut = files[1]!;
    const at = boundaryPastHalf(cut) - 10;
    const error = await refusal(convertWith(dir, () => truncateSync(cut, at)));
    expect(error.message).toContain(`${cut} ends at ${at}`);
    expect(error.message).toContain('changed while it was converted');
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });

  it('a data file deleted (housekeeping of a running application): refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('deleted');
    const gone = files[0]!;
    const error = await refusal(convertWith(dir, () => rmSync(gone)));
    expect(error.code).toBe('STORAGE_FILE_GONE');
    expect(error.message).toContain(`${gone} was deleted`);
    expect(error.message).toContain('changed while it was converted');
    expect(existsSync(join(dir, '..', 'out'))).toBe(false);
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });
});
