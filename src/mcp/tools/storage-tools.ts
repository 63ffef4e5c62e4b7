import type { Static } from 'typebox';
import { z } from 'zod';
import { assembleTypeEntry } from '../../format/dictionary-text.js';
import type { StorageInfo, TypeList } from '../../api-contract/schemas.js';
import { offsetOf, short, TextBudget, truncationMarker } from '../budget.js';
import { fullName, simpleName } from '../render.js';
import { answer, cursorInput, guarded, limitInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';
import { resolveType } from '../resolve-type.js';
import { typeRows } from '../type-rows.js';

/** `storage_overview`, `list_types` and `type_dictionary`. */

type StorageAnswer = Static<typeof StorageInfo>;
type TypesAnswer = Static<typeof TypeList>;

function kb(bytes: number): string {
  return bytes < 10_240 ? `${bytes} B` : bytes < 10_485_760 ? `${Math.round(bytes / 1024)} KiB` : `${Math.round(bytes / 1_048_576)} MiB`;
}

function typeLine(t: TypesAnswer['types'][number]): string {
  const version = t.current ? '' : ` (version ${t.version}, not current)`;
  const garbage = t.instances - t.reachable;
  return `${fullName(t.typeName)}${version} [type id ${t.typeId}]: ${t.instances} instances, ${kb(t.liveBytes)}${garbage > 0 ? `, ${garbage} unreachable` : ''}`;
}

export const registerStorageTools: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'storage_overview',
    {
      title: 'Storage overview',
      description:
        'Start here. Summary of the MicroStream/EclipseStore storage: product, root object id, entity and file counts, bytes, last commit time, the types taking the most space, and problems found while indexing. Answers are /api/v1/storage and /api/v1/types?sort=bytes.',
      inputSchema: { ...storageInput(deps.registry), types: limitInput('types by size', 10, 50) },
      annotations: { title: 'Storage overview', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const name = storageOf(args);
        const context = deps.api.context(name);
        // The types first: they wait (bounded) for the graph index, so that the summary tells its state once built.
        const types = await deps.api.get<TypesAnswer>(name, '/types', { sort: 'bytes', limit: args.types ?? 10 });
        const storage = await deps.api.get<StorageAnswer>(name, '/storage', {}, false);
        const out = new TextBudget();
        const served = deps.registry.names();
        out.add(`storage ${storage.name} (${context.storage.family.label}): ${storage.directory}${served.length > 1 ? ` [served: ${served.join(', ')}]` : ''}`);
        out.add(`root object ${storage.rootObjectId} (describe_object it to start browsing); roots entity ${storage.rootsObjectId}`);
        out.add(`${storage.entities} entities, ${storage.channels} channel(s), ${storage.files} data files, ${kb(storage.bytes)} (${kb(storage.liveBytes)} in latest records)`);
        out.add(`last commit: ${storage.lastCommitTime ?? 'unknown'}; state generation ${storage.generation}`);
        const graph = storage.graph;
        out.add(`graph index: ${graph.state}${graph.references === undefined ? '' : `, ${graph.references} references`}${graph.error === undefined ? '' : `: ${graph.error}`}`);
        out.add(`types by size (${types.types.length} of ${types.total} type ids):`);
        for (const t of types.types) out.add(`  ${typeLine(t)}`);
        const problems = graph.problems ?? [];
        out.add(problems.length === 0 && (graph.problemCount ?? 0) === 0 ? 'problems: none found while indexing' : `problems found while indexing: ${graph.problemCount ?? problems.length}`);
        for (const p of problems.slice(0, 10)) out.add(`  ${p.file} @${p.offset}: ${short(p.message)}`);
        if (problems.length > 10) out.addAlways(`truncated: ${problems.length - 10} more problems (structured content has them; check_storage for a full diagnosis)`);
        return answer(out.text(), { family: context.storage.family.label, storage, types });
      }),
  );

  server.registerTool(
    'list_types',
    {
      title: 'List types',
      description:
        'Every type id in the storage (legacy versions of a class too) with its instance count and bytes, sorted by bytes, instances, name or type id. Paged. The answer is /api/v1/types.',
      inputSchema: {
        ...storageInput(deps.registry),
        sort: z.enum(['bytes', 'instances', 'name', 'typeId']).optional().describe('order (default bytes, largest first)'),
        limit: limitInput('types'),
        cursor: cursorInput,
      },
      annotations: { title: 'List types', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const types = await deps.api.get<TypesAnswer>(storageOf(args), '/types', { sort: args.sort ?? 'bytes', offset, limit });
        const out = new TextBudget();
        out.add(`${types.total} type ids; ${types.types.length === 0 ? 'none in this page' : `${offset}..${offset + types.types.length - 1}`}:`);
        for (const t of types.types) out.add(typeLine(t));
        const rest = types.total - offset - types.types.length;
        if (rest > 0) out.addAlways(truncationMarker(rest, offset + types.types.length, 'types'));
        return answer(out.text(), types as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    'type_dictionary',
    {
      title: 'Type dictionary entry',
      description:
        'The type dictionary entry of a class: its persisted members (name, declared type, declaring class) for every version (type id) the storage has, as the .ptd file writes them, with instances and bytes per version (rows of /api/v1/types). Use it to learn what members a class stores.',
      inputSchema: {
        ...storageInput(deps.registry),
        type: z.string().min(1).max(1000).describe('a type id ("1000064"), a full class name ("com.acme.Customer") or a simple one ("Customer")'),
      },
      annotations: { title: 'Type dictionary entry', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const name = storageOf(args);
        const named = resolveType(deps.api.context(name), args.type);
        const ids = new Set(named.entries.map((e) => String(e.typeId)));
        const rows = await typeRows(deps.api, name, ids);
        const out = new TextBudget();
        out.add(`${fullName(named.typeName)}: ${named.entries.length} version(s) in the dictionary`);
        const entries = named.entries.map((entry) => {
          const row = rows.find((r) => r.typeId === String(entry.typeId));
          out.add(`type id ${entry.typeId}${row === undefined ? ' (no instances)' : `: ${row.instances} instances, ${kb(row.liveBytes)}${row.current ? ', current' : ''}`}`);
          const text = assembleTypeEntry(entry);
          for (const line of text.trimEnd().split('\n')) out.add(`  ${line.replace(/\t/g, '  ')}`);
          return { typeId: String(entry.typeId), text };
        });
        return answer(out.text(), { typeName: named.typeName, simpleName: simpleName(named.typeName), entries, types: rows });
      }),
  );
};
