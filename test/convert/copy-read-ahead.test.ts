import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { convertStorage } from '../../src/convert/convert-storage.js';
import { DirectorySource } from '../../src/storage/source/directory-source.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';

/**
 * The copy reads the next data file ahead: its read is under way while the file before it is
 * walked, so the copy does not wait for each file's open and first read in turn (a data file is
 * about one read). Told by the order in which the copy's reads of the source start and end.
 */

const work = mkdtempSync(join(tmpdir(), 'si-convert-read-ahead-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A directory source that notes when a read of a file starts and when its last chunk has been taken, once `noting`. */
class NotedSource extends DirectorySource {
  readonly events: string[] = [];
  noting = false;

  override chunks(path: string, from: number, to: number): AsyncIterable<Uint8Array> {
    const inner = super.chunks(path, from, to);
    if (!this.noting) return inner;
    const events = this.events;
    const name = basename(path);
    events.push(`start ${name}`);
    return {
      async *[Symbol.asyncIterator]() {
        yield* inner;
        events.push(`end ${name}`);
      },
    };
  }
}

it("the copy starts each data file's read before the file before it has been read to its end", async () => {
  const source = new NotedSource(join(CONFORMANCE_DIR, 'storages', 'graph'));
  const report = await convertStorage(() => source, {
    out: join(work, 'out'),
    onProgress: (phase) => {
      if (phase === 'copying') source.noting = true;
    },
  });
  expect(report.written.objects).toBeGreaterThan(0);
  const starts = source.events.filter((e) => e.startsWith('start ')).map((e) => e.slice('start '.length));
  // The graph corpus: two channels, 14 data files in channel 0, each read once by the copy.
  expect(starts.length).toBeGreaterThanOrEqual(15);
  expect(new Set(starts).size).toBe(starts.length);
  for (let k = 1; k < starts.length; k++) {
    expect(source.events.indexOf(`start ${starts[k]}`), `${starts[k]} started before ${starts[k - 1]} ended`).toBeLessThan(source.events.indexOf(`end ${starts[k - 1]}`));
  }
  // Every read that was started was read to its end.
  expect(source.events.filter((e) => e.startsWith('end ')).length).toBe(starts.length);
});
