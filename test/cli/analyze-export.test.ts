import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';
import { writeModelStorage } from '../graph/model-storage.js';
import { snapshotTree, diffSnapshots } from '../security/snapshot.js';

/** `analyze` and `export` on a storage whose garbage, missing ids and members are known. */

const cli = (args: string[]): Promise<CliRun> => runCliInProcess(args);

describe('analyze and export', () => {
  let base: string;
  let dir: string;
  let ids: Record<string, bigint>;
  let before: ReturnType<typeof snapshotTree>;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'cli-analyze-'));
    dir = join(base, 'storage');
    ids = writeModelStorage(dir).ids;
    before = snapshotTree(dir);
  });
  afterAll(() => {
    // Nothing in the storage was changed by any command.
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
    rmSync(base, { recursive: true, force: true });
  });

  it('reports garbage, missing references and per-file waste as JSON', async () => {
    const { code, stdout } = await cli(['analyze', dir, '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      storage: { entities: number; graph: { state: string } };
      types: { typeName: string; instances: number }[];
      analysis: { unreachable: { byType: { typeName: string; count: number }[] }; missingReferences: { count: number; examples: { objectId: string; referrers: { objectId: string; via: { text: string } }[] }[] }; files: unknown[] };
    };
    expect(report.storage.graph.state).toBe('ready');
    expect(report.analysis.missingReferences.count).toBe(2);
    expect(report.analysis.missingReferences.examples[0]).toMatchObject({ objectId: String(ids.hole), referrers: [{ objectId: String(ids.list), via: { text: 'elements[2]' } }] });
    // g1, g2, g3 and g3's list are garbage, and so are the names of g1..g3 and a's first name string.
    expect(report.analysis.unreachable.byType).toEqual(
      expect.arrayContaining([expect.objectContaining({ typeName: 'gen.Node', count: 3 }), expect.objectContaining({ typeName: 'java.lang.String', count: 4 }), expect.objectContaining({ typeName: 'java.util.ArrayList', count: 1 })]),
    );
    expect(report.types.find((t) => t.typeName === 'gen.Node')?.instances).toBe(9);
  });

  it('prints a readable report', async () => {
    const { code, stdout, stderr } = await cli(['analyze', dir]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/graph index ready/);
    for (const heading of ['Reachable from the roots:', 'Garbage (unreachable):', 'Types by bytes', 'Garbage by type:', 'Missing references: 2 distinct ids', 'Data files:']) expect(stdout).toContain(heading);
    expect(stdout).toContain(`${ids.hole} ← ${ids.list} (java.util.ArrayList via elements[2])`);
  });

  it('exports a type as CSV, one column per member, references as ids', async () => {
    const out = join(base, 'nodes.csv');
    const { code, stderr } = await cli(['export', dir, '--type', 'gen.Node', '--format', 'csv', '--out', out]);
    expect(code).toBe(0);
    expect(stderr).toMatch(/exported 9 objects of gen\.Node/);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(lines[0]).toBe('objectId,typeId,text,name,next,children,lazy,weight');
    expect(lines).toHaveLength(10);
    const b = lines.find((l) => l.startsWith(`${ids.b},`))!.split(',');
    expect(b[4]).toBe(String(ids.c)); // next
    expect(b[7]).toBe('0'); // weight
  });

  it('exports NDJSON views and lists in full', async () => {
    const { code, stdout } = await cli(['export', dir, '--type', 'java.util.ArrayList']);
    expect(code).toBe(0);
    const views = stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { objectId: string; members: { count: number; elements: ({ objectId: string } | null)[] }[] });
    const list = views.find((v) => v.objectId === String(ids.list))!;
    expect(list.members[0]!.count).toBe(6);
    expect(list.members[0]!.elements.map((e) => e?.objectId ?? null)).toEqual([ids.b, ids.c, ids.hole, null, ids.map, ids.b].map((id) => (id === null ? null : String(id))));
  });

  it('takes a simple type name where it is unambiguous', async () => {
    const simple = await cli(['export', dir, '--type', 'Node', '--format', 'csv']);
    const full = await cli(['export', dir, '--type', 'gen.Node', '--format', 'csv']);
    expect(simple.code).toBe(0);
    expect(simple.stdout).toBe(full.stdout);
    expect(simple.stderr).toMatch(/exported 9 objects of gen\.Node/);
  });

  it('refuses to write into the storage directory and unknown types', async () => {
    expect((await cli(['export', dir, '--type', 'gen.Node', '--out', join(dir, 'x.csv')])).code).toBe(2);
    const unknown = await cli(['export', dir, '--type', 'no.Such']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no type named no.Such');
    expect((await cli(['export', dir])).code).toBe(2);
  });
});
