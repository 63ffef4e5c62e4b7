import type { Static } from 'typebox';
import { unstoredReferencedNodes, type GraphFigures } from '../../../graph/queries/graph-figures.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { NOT_STORED } from '../../../graph/model/type-table.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { typeNameOf, viaOf } from './graph-answers.js';
import type { Analysis, StorageInfo, TypeList } from '../../../api-contract/schemas.js';
import { redactConnections } from '../machinery/redaction.js';
import { relativeToStorage, storageDirectoryName, storageFileName } from '../../../api-contract/storage-paths.js';

/**
 * The larger answers of `/api/v1` as plain functions of a storage's state, shared by the routes
 * and the `analyze` command: the storage summary, the type list and the analysis.
 */

export async function storageInfo(context: StorageContext): Promise<Static<typeof StorageInfo>> {
  const storage = context.storage;
  let timelineRead = true;
  try {
    await context.timeline.update();
  } catch (error) {
    // A damaged log of a storage served as far as it can be read: the last commit is unknown.
    if (context.served?.damage === undefined) throw error;
    timelineRead = false;
  }
  let files = 0;
  let bytes = 0;
  let liveBytes = 0;
  for (const channel of storage.channels) {
    for (const file of channel.files) {
      files++;
      bytes += file.totalLength;
      liveBytes += file.liveLength;
    }
  }
  const last = timelineRead ? context.timeline.lastStoreTimestamp : 0n;
  const state = context.graph.state;
  let graph: Static<typeof StorageInfo>['graph'];
  if (state.kind === 'ready') {
    graph = { state: 'ready', buildMs: state.buildMs, references: state.graph.adjacency.referenceCount(), problems: state.problems.map((p) => ({ ...p, file: storageFileName(storage, p.file), message: relativeToStorage(storage, redactConnections(p.message)) })), problemCount: state.problemCount, dominators: dominatorInfo(context) };
  } else if (state.kind === 'failed') {
    graph = { state: 'failed', error: relativeToStorage(storage, redactConnections(state.error instanceof Error ? state.error.message : String(state.error))) };
  } else {
    const p = state.progress;
    const percent = p === undefined || p.bytesTotal === 0 ? 0 : Math.floor((100 * p.bytesDone) / p.bytesTotal);
    graph = {
      state: 'building',
      progress: { phase: p?.phase ?? 'starting', percent, bytesDone: p?.bytesDone ?? 0, bytesTotal: p?.bytesTotal ?? 0, filesDone: p?.filesDone ?? 0, filesTotal: p?.filesTotal ?? 0, elapsedMs: Date.now() - state.startedAt },
    };
  }
  return {
    name: context.name,
    // The directory's own name: answers never say where the server keeps the files.
    directory: storageDirectoryName(storage, redactConnections(storage.directory)),
    generation: storage.generation,
    channels: storage.channels.length,
    entities: storage.entityCount,
    rootObjectId: String(storage.rootObjectId),
    rootsObjectId: String(storage.rootsObjectId),
    files,
    bytes,
    liveBytes,
    lastCommitTime: last === 0n ? null : new Date(Number(last / 1_000_000n)).toISOString(),
    lastCommitTimestamp: last === 0n ? null : String(last),
    ...(context.served?.damage === undefined ? {} : { damage: context.served.damage.map((d) => ({ code: d.code, severity: d.severity, message: relativeToStorage(storage, d.message), ...(d.file === undefined ? {} : { file: storageFileName(storage, d.file) }), ...(d.offset === undefined ? {} : { offset: d.offset }) })) }),
    graph,
  };
}

/** How far the dominator tree is (computed in the background once the graph index is ready). */
function dominatorInfo(context: StorageContext): NonNullable<Static<typeof StorageInfo>['graph']['dominators']> {
  const state = context.graph.dominators.state;
  if (state.kind === 'ready') return { state: 'ready', computeMs: state.computeMs, reachableObjects: state.tree.reachableObjects, reachableBytes: state.tree.reachableBytes };
  if (state.kind === 'failed') return { state: 'failed', error: redactConnections(state.error instanceof Error ? state.error.message : String(state.error)) };
  if (state.kind === 'waiting') return { state: 'waiting' };
  const p = state.progress;
  return { state: 'computing', phase: p?.phase ?? 'starting', percent: p === undefined || p.total === 0 ? 0 : Math.min(100, Math.floor((100 * p.done) / p.total)), elapsedMs: Date.now() - state.startedAt };
}

export function typeList(context: StorageContext, graph: GraphIndex): Static<typeof TypeList>['types'] {
  const figures = context.figures(graph);
  const dictionary = context.storage.dictionary;
  const versionsOf = new Map<string, bigint[]>();
  for (const entry of dictionary.entries) versionsOf.set(entry.typeName, [...(versionsOf.get(entry.typeName) ?? []), entry.typeId]);
  // The number NOT_STORED holds a placeholder, not a type (type-table.ts).
  return graph.types.all().flatMap((type, index) => {
    if (index === NOT_STORED) return [];
    const f = figures.types[index];
    const name = graph.types.nameOf(index);
    const versions = (versionsOf.get(name) ?? [type.typeId]).sort((a, b) => (a < b ? -1 : 1));
    return [{
      typeId: String(type.typeId),
      typeName: name,
      current: type.entry !== undefined && dictionary.currentByName.get(name) === type.entry,
      version: versions.indexOf(type.typeId) + 1,
      instances: f?.instances ?? 0,
      liveBytes: f?.bytes ?? 0,
      reachable: f?.reachable ?? 0,
      reachableBytes: f?.reachableBytes ?? 0,
    }];
  });
}

export async function analysis(context: StorageContext, graph: GraphIndex, exampleCount: number, referrerCount: number): Promise<Static<typeof Analysis>> {
  const figures = context.figures(graph);
  const byType = (pick: (t: GraphFigures['types'][number]) => { count: number; bytes: number }) =>
    figures.types
      .map((t) => ({ typeId: String(graph.types.at(t.type).typeId), typeName: graph.types.nameOf(t.type), ...pick(t) }))
      .filter((t) => t.count > 0)
      .sort((a, b) => b.bytes - a.bytes || b.count - a.count);

  // Missing: ids that are no node at all, then nodes whose record went away (lost with a deleted file).
  const examples: Static<typeof Analysis>['missingReferences']['examples'] = [];
  const referrersOf = async (id: bigint, sources: readonly number[]) => {
    const out = [];
    for (const r of sources.slice(0, referrerCount)) out.push({ objectId: String(graph.nodes.idOf(r)), typeName: typeNameOf(graph, r), via: await viaOf(context, graph, r, id) });
    return out;
  };
  const missingIds: { id: bigint; sources: number[] }[] = [];
  graph.missing.forEachId((id, sources) => {
    if (missingIds.length < exampleCount) missingIds.push({ id, sources });
  });
  for (const { id, sources } of missingIds) examples.push({ objectId: String(id), referrerCount: sources.length, referrers: await referrersOf(id, sources) });
  const unstored = unstoredReferencedNodes(graph, Math.max(0, exampleCount - examples.length));
  for (const node of unstored.nodes) {
    const id = graph.nodes.idOf(node);
    examples.push({ objectId: String(id), referrerCount: graph.adjacency.referrerCount(node), referrers: await referrersOf(id, [...graph.adjacency.referrers(node, 0, referrerCount)]) });
  }

  const perFile = new Map(figures.files.map((f) => [`${f.channel}:${f.fileSlot}`, f]));
  const files = context.storage.channels.flatMap((channel) =>
    channel.files.map((file) => {
      const f = perFile.get(`${channel.index}:${file.slot}`);
      return {
        channel: channel.index,
        fileNumber: String(file.fileNumber),
        file: storageFileName(context.storage, file.path),
        totalBytes: file.totalLength,
        liveBytes: file.liveLength,
        supersededBytes: file.totalLength - file.liveLength,
        unreachableBytes: f?.unreachableBytes ?? 0,
        unreachableCount: f?.unreachableCount ?? 0,
      };
    }),
  );
  return {
    reachable: { ...figures.reachable, byType: byType((t) => ({ count: t.reachable, bytes: t.reachableBytes })) },
    unreachable: { ...figures.unreachable, byType: byType((t) => ({ count: t.instances - t.reachable, bytes: t.bytes - t.reachableBytes })) },
    missingReferences: { count: graph.missing.distinctIds() + unstored.count, examples },
    files,
  };
}
