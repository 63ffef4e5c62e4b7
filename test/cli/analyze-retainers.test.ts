import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';
import { buildGraph } from '../../src/graph/build/graph-build.js';
import { Storage } from '../../src/storage/storage.js';
import { referenceDominators } from '../graph/dominator-reference.js';
import { writeModelStorage } from '../graph/model-storage.js';

/** `analyze --top N`: the N biggest retainers, each with its retained set by type, as the definition computes them. */

const cli = (args: string[]): Promise<CliRun> => runCliInProcess(args);

describe('analyze --top: the top retainers', () => {
  let base: string;
  let dir: string;
  let expected: { objectId: string; objects: number; bytes: number }[];
  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'cli-retainers-'));
    dir = join(base, 'storage');
    writeModelStorage(dir);
    const storage = await Storage.open(dir);
    try {
      const { graph } = await buildGraph(storage);
      const want = referenceDominators(graph, storage.channels);
      const roots = graph.nodes.nodeOfId(storage.rootsObjectId);
      expected = [...want.idom.keys()]
        .filter((v) => want.retainedObjects[v]! > 0 && v !== roots)
        .sort((a, b) => want.retainedBytes[b]! - want.retainedBytes[a]! || a - b)
        .map((v) => ({ objectId: String(graph.nodes.idOf(v)), objects: want.retainedObjects[v]!, bytes: want.retainedBytes[v]! }));
    } finally {
      await storage.close();
    }
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('as JSON: the N objects retaining the most bytes, each with its retained set by type', async () => {
    const { code, stdout, stderr } = await cli(['analyze', dir, '--json', '--top', '4']);
    expect(code).toBe(0);
    expect(stderr).toMatch(/dominator tree ready: \d+ reachable objects/);
    const report = JSON.parse(stdout) as { retainers: { retainers: { objectId: string; retainedObjects: number; retainedBytes: number; byType: { objects: number; bytes: number }[] }[] } };
    const retainers = report.retainers.retainers;
    expect(retainers.map((r) => ({ objectId: r.objectId, objects: r.retainedObjects, bytes: r.retainedBytes }))).toEqual(expected.slice(0, 4));
    // At most five types are listed: with fewer, they add up to the retained set.
    expect(retainers.some((r) => r.byType.length === 5)).toBe(true);
    for (const r of retainers) {
      expect(r.byType.length).toBeLessThanOrEqual(5);
      const objects = r.byType.reduce((s, t) => s + t.objects, 0);
      const bytes = r.byType.reduce((s, t) => s + t.bytes, 0);
      if (r.byType.length < 5) expect([objects, bytes]).toEqual([r.retainedObjects, r.retainedBytes]);
      else expect(objects).toBeLessThanOrEqual(r.retainedObjects);
    }
  });

  it('as text: a numbered table with a type line under each retainer', async () => {
    const { code, stdout } = await cli(['analyze', dir, '--top', '2']);
    expect(code).toBe(0);
    const at = stdout.indexOf('\nTop retainers') + 1;
    expect(at).toBeGreaterThan(0);
    const lines = stdout.slice(at).split('\n');
    expect(lines[1]).toMatch(/#\s+object\s+type\s+retained objects\s+retained bytes\s+share/);
    expect(lines[2]).toMatch(new RegExp(`^\\s+1\\s+${expected[0]!.objectId}\\s`));
    expect(lines[3]).toMatch(/gen\.Node \d+ × \d+ B/);
    expect(lines[4]).toMatch(new RegExp(`^\\s+2\\s+${expected[1]!.objectId}\\s`));
  });
});
