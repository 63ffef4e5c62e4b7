import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportRoomNeeded, freeBytes, missingRoom, roomText, TEMPORARY_AT_LEAST } from '../../../src/sql/output/export-room.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { runCliInProcess as cli } from '../../helpers/serving/cli-in-process.js';

/**
 * `export` checks the room on the disk before any work starts: beside `--out` (the hidden
 * directory the tables are written into) and in the temporary directory (DuckDB's database),
 * each estimated from the storage's live record bytes; too little is a usage error naming the
 * directory, nothing written. Real small filesystems: tmpfs mounts of a few MiB (root only).
 */

const ROOT = process.getuid?.() === 0;

let work: string;
let source: string;
const mounts: string[] = [];

function smallDisk(name: string, size: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { encoding: 'utf8' });
  if (mounted.status !== 0) throw new Error(`mount tmpfs on ${dir}: ${mounted.stderr}`);
  mounts.push(dir);
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-export-room-'));
  source = join(work, 'storage');
  generateStorage({ directory: source, entities: 20_000, channelCount: 2, seed: 5, fileMaximumSize: 256 * 1024 });
});
afterAll(() => {
  for (const dir of mounts) spawnSync('umount', [dir]);
  rmSync(work, { recursive: true, force: true });
});

describe('the room an export asks for', () => {
  it('is one sum on one filesystem, two figures on two, and needs a finite size', () => {
    const here = mkdtempSync(join(work, 'same-'));
    const one = exportRoomNeeded(10_000_000, 'parquet', here, true, work);
    expect(one.places.map((p) => p.bytes)).toEqual([25_000_000 + 17_500_000]);
    expect(exportRoomNeeded(10_000_000, 'ndjson', here, true, work).places.map((p) => p.bytes)).toEqual([160_000_000 + 17_500_000]);
    // One table alone: only the database's room, at least its floor.
    expect(exportRoomNeeded(1000, 'parquet', here, false, work).places.map((p) => p.bytes)).toEqual([TEMPORARY_AT_LEAST]);
    expect(() => exportRoomNeeded(Number.NaN, 'parquet', here, true, work)).toThrow(RangeError);
    expect(() => exportRoomNeeded(Number.POSITIVE_INFINITY, 'csv', here, true, work)).toThrow(RangeError);
    // More than the filesystem has: told with what is free there.
    const free = freeBytes(here);
    expect(missingRoom(exportRoomNeeded(free, 'parquet', here, true, work))).toEqual({ label: `${here} (beside --out and the temporary directory: one filesystem)`, bytes: Math.ceil(2.5 * free) + Math.ceil(1.75 * free), free: expect.any(Number) });
    expect(missingRoom(exportRoomNeeded(0, 'parquet', here, true, work))).toBeUndefined();
  });
});

describe('a filesystem whose free space cannot be learnt', () => {
  it('is not checked (said so), the other place still is', () => {
    const here = mkdtempSync(join(work, 'unknown-'));
    const elsewhere = '/a-filesystem-without-statfs';
    const needed = { places: [{ directory: elsewhere, label: `${elsewhere} (beside --out)`, bytes: 1000 }, { directory: here, label: `${here} (the temporary directory, TMPDIR)`, bytes: 1000 }] };
    // What statfs(2) answers on a filesystem that does not support it (some FUSE and network mounts).
    const statfsUnsupported = (directory: string): number => {
      if (directory === elsewhere) throw Object.assign(new Error(`ENOSYS: function not implemented, statfs '${directory}'`), { code: 'ENOSYS' });
      return freeBytes(directory);
    };
    const unknown: string[] = [];
    expect(missingRoom(needed, statfsUnsupported, (label, error) => unknown.push(`${label}: ${error}`))).toBeUndefined();
    expect(unknown).toEqual([`${elsewhere} (beside --out): Error: ENOSYS: function not implemented, statfs '${elsewhere}'`]);
    // The place that can be asked is still checked.
    const tooMuch = { places: [needed.places[0]!, { ...needed.places[1]!, bytes: freeBytes(here) * 4 }] };
    expect(missingRoom(tooMuch, statfsUnsupported, () => undefined)?.label).toBe(`${here} (the temporary directory, TMPDIR)`);
  });
});

describe.skipIf(!ROOT)('export on a disk too small for it', () => {
  it('--out on a 1 MiB filesystem: a usage error naming it before any work, nothing written', { timeout: 120_000 }, async () => {
    const disk = smallDisk('out-disk', '1m');
    const run = await cli(['export', source, '--format', 'parquet', '--out', join(disk, 'tables'), '--no-cache']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(new RegExp(`not enough free space in ${disk} \\(beside --out\\): the export needs about [0-9.]+ MB there \\(estimated from the storage's [0-9.]+ MB of current records\\), [0-9.]+ MB are free`));
    // Before any work: no step told, nothing in the directory.
    expect(run.stderr).not.toContain('building the tables');
    expect(readdirSync(disk)).toEqual([]);
  });

  it('TMPDIR on a 4 MiB filesystem: the temporary directory named', { timeout: 120_000 }, async () => {
    const disk = smallDisk('tmp-disk', '4m');
    const out = join(work, 'tables-tmp');
    const before = process.env.TMPDIR;
    process.env.TMPDIR = disk;
    try {
      const run = await cli(['export', source, '--format', 'ndjson', '--out', out, '--no-cache']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`not enough free space in ${disk} (the temporary directory, TMPDIR): the export needs about ${roomText(TEMPORARY_AT_LEAST)} there`);
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(disk)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  });

  it('one link table (--type _references) on a 1 MiB filesystem: refused before any work; another table alone still written there', { timeout: 120_000 }, async () => {
    // The link pass writes its uncompressed rows beside --out first (most of a whole export's
    // room there): without the check the build ran and the pass then failed with ENOSPC.
    const disk = smallDisk('link-disk', '1m');
    const run = await cli(['export', source, '--format', 'parquet', '--type', '_references', '--out', join(disk, 'references'), '--no-cache']);
    expect(run.stderr).toMatch(new RegExp(`not enough free space in ${disk} \\(beside --out\\): the export needs about [0-9.]+ MB there`));
    expect(run.stderr).not.toContain('ENOSPC');
    expect(run.stderr).not.toContain('building the tables');
    expect(run.code).toBe(2);
    expect(readdirSync(disk)).toEqual([]);
    // A table without such rows asks nothing beside --out: _objects of these 20,000 objects fits.
    const objects = await cli(['export', source, '--format', 'parquet', '--type', '_objects', '--out', join(disk, 'objects'), '--no-cache']);
    expect(objects.stderr).not.toContain('not enough free space');
    expect(objects.code).toBe(0);
    expect(readdirSync(join(disk, 'objects')).sort()).toEqual(['_objects.parquet', 'manifest.json']);
  });

  it('a filesystem with the room asked for: the export is written', { timeout: 120_000 }, async () => {
    const disk = smallDisk('room-disk', '64m');
    const run = await cli(['export', source, '--format', 'parquet', '--out', join(disk, 'tables'), '--no-cache']);
    expect(run.stderr).not.toContain('not enough free space');
    expect(run.code).toBe(0);
    expect(readdirSync(join(disk, 'tables'))).toContain('manifest.json');
    expect(readdirSync(disk)).toEqual(['tables']);
  });
});
