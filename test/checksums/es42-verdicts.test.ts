import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkStorage } from '../../src/check/check-storage.js';
import { javaMissing, JavaRefused, startJava } from '../helpers/real-systems/java-reference.js';
import { CORPUS, CRAFTED, damagedCopy } from './chunk-damage.js';

/**
 * The crafted damages (chunk-damage.ts) of both algorithms, opened by the real EclipseStore 4.2
 * with the writer's setting (the algorithm the file headers name, default policy) and without a
 * checksum setting: `check` gives the verdict 4.2 gives, naming its exception and message. Needs
 * `java` and the es42 command (see java-reference.ts); fails under CI without them.
 */

const missing = javaMissing(['es42']);
if (missing !== undefined && process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
  throw new Error(`the Java tests cannot run: ${missing}`);
}
if (missing !== undefined) console.warn(`es42-verdicts: skipped, ${missing}`);

const work = mkdtempSync(join(tmpdir(), 'si-es42-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** 'started', or the innermost cause 4.2 refused with. */
async function es42Verdict(dir: string, env: Record<string, string> = {}): Promise<'started' | { exception: string; message: string }> {
  try {
    const java = await startJava('es42', dir, env);
    await java.stop();
    return 'started';
  } catch (error) {
    if (!(error instanceof JavaRefused)) throw error;
    const line = error.message.split('\n').filter((l) => /Caused by: /.test(l)).at(-1) ?? '';
    const cause = /Caused by: ([\w.$]+): (.*)$/.exec(line);
    if (cause === null) throw new Error(`no cause in: ${error.message}`);
    return { exception: cause[1]!, message: cause[2]! };
  }
}

let counter = 0;

describe.skipIf(missing !== undefined).each(['graph-crc32c', 'graph-sha256'])('%s', (storage) => {
  it.each(CRAFTED)('$name: check gives 4.2 verdict', async ({ damage, warning }) => {
    const dir = damagedCopy(join(CORPUS, 'storages', storage), join(work, `case-${++counter}`), damage);
    const [report, verdict] = [await checkStorage(dir), await es42Verdict(dir)];
    expect(report.generation).toBe('EclipseStore 4.2');
    expect(report.javaStarts).toBe(verdict === 'started');
    if (warning !== undefined) expect(report.problems.map((p) => [p.code, p.severity])).toContainEqual([warning, 'harmless']);
    if (verdict !== 'started') {
      expect(report.problems.map((p) => p.java)).toContainEqual(verdict);
      // Without a checksum setting 4.2 verifies nothing: it starts, as the problem says, unless the
      // damaged bytes fail it in other ways, which check names too (a type id changed).
      const without = await es42Verdict(dir, { ES_CHUNK_CHECKSUM: 'none' });
      if (without === 'started') expect(report.problems.find((p) => p.java?.exception === verdict.exception)?.meaning).toMatch(/without a checksum setting verifies nothing: it starts/);
      else expect(report.problems.map((p) => p.java)).toContainEqual(without);
    }
  }, 60_000);
});
