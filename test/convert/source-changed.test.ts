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

/** A fresh copy of the corpus's `graph` storage (two channels) and the data files of `channel` (14 in channel 0, 10 in 1). */
function sourceCopy(name: string, channel = 0): { dir: string; files: string[] } {
  const dir = join(work, name, 'source');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), dir, { recursive: true });
  const numbered = (f: string): number => Number(/_(\d+)\.dat$/.exec(f)![1]);
  const files = readdirSync(join(dir, `channel_${channel}`))
    .filter((f) => f.endsWith('.dat'))
    .sort((a, b) => numbered(a) - numbered(b))
    .map((f) => join(dir, `channel_${channel}`, f));
  return { dir, files };
}

/**
 * Converts `dir`, doing `between` once the check's walk is done and before the copy starts.
 * `checkThreads` 2: the check walks channel 1 in a thread of its own, and the copy's decisions for
 * channel 1's files are made in one (copy-plan-thread.ts), which reads the files too.
 */
function convertWith(dir: string, between: () => void, checkThreads?: number): Promise<ConvertReport> {
  let done = false;
  return convertStorage(dir, {
    out: join(dir, '..', 'out'),
    ...(checkThreads === undefined ? {} : { checkThreads }),
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

describe('convert with the copy split across threads, when a file of the planning thread changes', () => {
  it('a data file cut at a record boundary: refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('split-cut', 1);
    const cut = files[0]!;
    const at = boundaryPastHalf(cut);
    const error = await refusal(convertWith(dir, () => truncateSync(cut, at), 2));
    expect(error.code).toBe('STORAGE_INCONSISTENT');
    expect(error.message).toContain(`${cut} ends at ${at}`);
    expect(error.message).toContain('changed while it was converted');
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });

  it('a data file cut inside a record: refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('split-cut-inside', 1);
    const cut = files[1]!;
    const at = boundaryPastHalf(cut) - 10;
    const error = await refusal(convertWith(dir, () => truncateSync(cut, at), 2));
    expect(error.message).toContain(`${cut} ends at ${at}`);
    expect(error.message).toContain('changed while it was converted');
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });

  it('a data file deleted: refused, naming the file, nothing written', async () => {
    const { dir, files } = sourceCopy('split-deleted', 1);
    const gone = files[2]!;
    const error = await refusal(convertWith(dir, () => rmSync(gone), 2));
    expect(error.code).toBe('STORAGE_FILE_GONE');
    expect(error.message).toContain(`${gone} was deleted`);
    expect(error.message).toContain('changed while it was converted');
    expect(readdirSync(join(dir, '..'))).toEqual(['source']);
  });

  it('unchanged: the same report as the copy in one thread', async () => {
    const { dir } = sourceCopy('split-still', 1);
    const threaded = await convertWith(dir, () => undefined, 2);
    const plain = sourceCopy('split-plain', 1);
    const one = await convertWith(plain.dir, () => undefined, 0);
    expect({ ...threaded, source: '', out: '' }).toEqual({ ...one, source: '', out: '' });
  });
});
