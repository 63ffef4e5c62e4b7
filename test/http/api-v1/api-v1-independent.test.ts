import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelOf, resolveJdkConstant } from '../../../src/format/ids.js';
import { parseTypeDictionary, type FieldDescriptor, type TypeDictionary } from '../../../src/format/type-dictionary.js';
import { buildApp } from '../../../src/http/app.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { CORPORA } from '../../helpers/corpora/conformance.js';
import { writeModelStorage } from '../../graph/model-storage.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * Our API against a graph computed independently from the Java-compatible answers: for every
 * entity, the references are read from its `/object/{oid}` answer (`data`, read with the type
 * dictionary served by `/dictionary`); from these the test derives referrers, reachability from
 * the roots entity, shortest path lengths, garbage counts and bytes (record lengths from the
 * primary index) and missing references, and compares them with `/api/v1`. Runs over every
 * vendored storage (MicroStream 4.1 and 8.1, EclipseStore) and a generated one.
 */

type Data = string | Data[];

/**
 * `expect(actual, where).toBe(expected)`, asked only when `Object.is` (what toBe compares with)
 * does not already hold: a difference still fails through the same matcher with the same message.
 * The per-object checks below make some 40,000 comparisons, and each `expect` call costs vitest
 * its state copied and chai's proxies (most of the file's test-side CPU after the requests).
 */
function sameAs(actual: unknown, expected: unknown, where?: string): void {
  if (!Object.is(actual, expected)) expect(actual, where).toBe(expected);
}

/** `expect(actual, where).toEqual(expected)` for two lists of texts, asked only when they differ. */
function sameTexts(actual: readonly string[], expected: readonly string[], where: string): void {
  if (actual.length !== expected.length || actual.some((text, i) => text !== expected[i])) expect(actual, where).toEqual(expected);
}

interface Independent {
  readonly forward: Map<bigint, Set<bigint>>;
  readonly typeOf: Map<bigint, bigint>;
  readonly missing: Map<bigint, Set<bigint>>;
  readonly rootsId: bigint;
}

/** Reference ids in a `data` value laid out by a member descriptor (nested lists included). */
function referencesIn(field: FieldDescriptor, value: Data | undefined, out: bigint[]): void {
  if (value === undefined) return;
  if (field.kind === 'reference') {
    if (typeof value === 'string') out.push(BigInt(value));
    return;
  }
  if (field.kind !== 'list' || typeof value === 'string') return;
  for (const element of value) {
    if (field.elements.length === 1) referencesIn(field.elements[0]!, element, out);
    else if (Array.isArray(element)) field.elements.forEach((nested, i) => referencesIn(nested, element[i], out));
  }
}

async function independentGraph(app: ReturnType<typeof buildApp>, ids: readonly bigint[], stored: ReadonlySet<bigint>): Promise<Independent> {
  const dictionary: TypeDictionary = parseTypeDictionary((await app.inject('/microstream/dictionary')).body);
  const forward = new Map<bigint, Set<bigint>>();
  const typeOf = new Map<bigint, bigint>();
  const missing = new Map<bigint, Set<bigint>>();
  for (const id of ids) {
    const answer = await app.inject(`/microstream/object/${id}`);
    const refs: bigint[] = [];
    if (answer.statusCode === 200) {
      const json = answer.json() as { typeId: string; length: string; simplified: boolean; data: Data[] };
      const entry = dictionary.byId.get(BigInt(json.typeId))!;
      typeOf.set(id, entry.typeId);
      if (json.simplified) {
        // Java shows value types as one text; none of them may hold references then.
        const holding = entry.fields.filter((f) => f.kind === 'reference' || f.kind === 'list');
        if (holding.length > 0) expect(holding, `${entry.typeName} ${id}`).toEqual([]);
      } else {
        const fixed = entry.fields.filter((f) => f.kind === 'primitive' || f.kind === 'reference');
        const variable = entry.fields.filter((f) => !(f.kind === 'primitive' || f.kind === 'reference'));
        fixed.forEach((f, i) => referencesIn(f, json.data[i], refs));
        variable.forEach((f, i) => referencesIn(f, json.data[fixed.length + i], refs));
      }
    } else {
      // Java cannot load the value (e.g. a NaN Float): such value types hold no references.
      sameAs(answer.statusCode, 500, `object ${id}`);
    }
    const targets = new Set<bigint>();
    for (const r of refs) {
      if (r === 0n || resolveJdkConstant(r) !== undefined) continue;
      if (stored.has(r)) targets.add(r);
      else missing.set(r, (missing.get(r) ?? new Set()).add(id));
    }
    forward.set(id, targets);
  }
  const rootsTypes = new Set(dictionary.entries.filter((e) => e.typeName.endsWith('.PersistenceRoots$Default')).map((e) => e.typeId));
  const rootsId = ids.filter((id) => rootsTypes.has(typeOf.get(id) ?? -1n)).sort((a, b) => (a < b ? 1 : -1))[0] ?? 0n;
  return { forward, typeOf, missing, rootsId };
}

function distancesFrom(graph: Independent): Map<bigint, number> {
  const distance = new Map<bigint, number>();
  if (graph.rootsId === 0n) return distance;
  distance.set(graph.rootsId, 0);
  const queue = [graph.rootsId];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const u of graph.forward.get(v) ?? []) {
      if (distance.has(u)) continue;
      distance.set(u, distance.get(v)! + 1);
      queue.push(u);
    }
  }
  return distance;
}

const counts = { storages: 0, objects: 0, referrerLists: 0, referrers: 0, paths: 0, missingIds: 0, garbage: 0 };

async function checkStorage(directory: string): Promise<void> {
  const { storage, registry, context, close } = await registeredStorage(directory);
  const app = buildApp(storage, { instance: 'microstream', api: registry });
  try {
    await context.graph.ready();
    const ids: bigint[] = [];
    const length = new Map<bigint, number>();
    for (const channel of storage.channels) {
      channel.objects.forEach((low, high, _slot, _offset, bytes) => {
        const id = (BigInt(high) << 32n) | BigInt(low);
        ids.push(id);
        length.set(id, bytes);
      });
    }
    ids.sort((a, b) => (a < b ? -1 : 1));
    const stored = new Set(ids);
    const graph = await independentGraph(app, ids, stored);
    const distance = distancesFrom(graph);
    const referrers = new Map<bigint, Set<bigint>>();
    for (const [from, targets] of graph.forward) for (const to of targets) referrers.set(to, (referrers.get(to) ?? new Set()).add(from));

    const info = (await app.inject('/api/v1/storage')).json() as { rootsObjectId: string; entities: number };
    expect(BigInt(info.rootsObjectId)).toBe(graph.rootsId);
    expect(info.entities).toBe(ids.length);

    for (const id of ids) {
      const place = storage.channels[channelOf(id, storage.channels.length)]!.objects.get(id);
      if (place === undefined) expect(place).toBeDefined();
      const r = (await app.inject(`/api/v1/objects/${id}/referrers?limit=10000`)).json() as { total: number; referrers: { objectId: string }[] };
      const want = [...(referrers.get(id) ?? [])].map(String).sort();
      sameTexts(r.referrers.map((x) => x.objectId).sort(), want, `referrers of ${id}`);
      sameAs(r.total, want.length);
      counts.referrerLists++;
      counts.referrers += want.length;
      const p = (await app.inject(`/api/v1/objects/${id}/paths?limit=1`)).json() as { reachable: boolean; paths: { objectId: string; lazyObjectId?: string }[][] };
      sameAs(p.reachable, distance.has(id), `reachability of ${id}`);
      if (p.reachable) {
        // A Lazy passed through is no step of its own, but counts as one edge.
        sameAs(p.paths[0]!.length - 1 + p.paths[0]!.filter((s) => s.lazyObjectId !== undefined).length, distance.get(id), `path length to ${id}`);
        sameAs(p.paths[0]![0]!.objectId, String(graph.rootsId));
      }
      counts.paths++;
      counts.objects++;
    }

    // Garbage by type, counts and bytes; reachable totals.
    const analysis = (await app.inject('/api/v1/analysis?examples=1000&referrers=100')).json() as {
      reachable: { count: number; bytes: number };
      unreachable: { count: number; bytes: number; byType: { typeId: string; count: number; bytes: number }[] };
      missingReferences: { count: number; examples: { objectId: string; referrerCount: number; referrers: { objectId: string }[] }[] };
    };
    const garbage = new Map<string, { count: number; bytes: number }>();
    let reachableBytes = 0;
    for (const id of ids) {
      if (distance.has(id)) {
        reachableBytes += length.get(id)!;
        continue;
      }
      const key = String(graph.typeOf.get(id) ?? (await storage.readEntity(id))!.typeId);
      const g = garbage.get(key) ?? { count: 0, bytes: 0 };
      garbage.set(key, { count: g.count + 1, bytes: g.bytes + length.get(id)! });
      counts.garbage++;
    }
    expect(analysis.reachable).toMatchObject({ count: distance.size, bytes: reachableBytes });
    expect(new Map(analysis.unreachable.byType.map((t) => [t.typeId, { count: t.count, bytes: t.bytes }]))).toEqual(garbage);
    expect(analysis.unreachable.count).toBe(ids.length - distance.size);

    // Missing references: distinct ids, and who refers to each.
    expect(analysis.missingReferences.count).toBe(graph.missing.size);
    const examples = new Map(analysis.missingReferences.examples.map((e) => [e.objectId, e.referrers.map((x) => x.objectId).sort()]));
    expect(examples).toEqual(new Map([...graph.missing].map(([id, from]) => [String(id), [...from].map(String).sort()])));
    counts.missingIds += graph.missing.size;
    counts.storages++;
  } finally {
    await app.close();
    await close();
  }
}

describe('/api/v1 against a graph computed from the Java-compatible answers', () => {
  let base: string;
  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'api-independent-'));
  });
  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
    // What was compared, for the record (the numbers are asserted above, storage by storage).
    console.log(`independent check: ${JSON.stringify(counts)}`);
  });

  for (const corpus of CORPORA) {
    for (const name of corpus.storages) {
      it(`${corpus.generation}: ${name}`, async () => {
        await checkStorage(join(corpus.dir, 'storages', name));
      });
    }
  }

  it('a storage with deliberate garbage, missing ids and several versions', async () => {
    const dir = join(base, 'model');
    writeModelStorage(dir);
    const before = counts.missingIds;
    await checkStorage(dir);
    expect(counts.missingIds - before).toBe(2);
  });

  it('a generated storage (type versions, updates, 2 channels, several files)', async () => {
    const dir = join(base, 'generated');
    generateStorage({ directory: dir, entities: 2500, channelCount: 2, seed: 11, fileMaximumSize: 32 * 1024, entitiesPerStore: 200 });
    await checkStorage(dir);
  });
});
