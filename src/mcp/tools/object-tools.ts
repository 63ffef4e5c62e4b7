import type { Static } from 'typebox';
import { z } from 'zod';
import type { ObjectViewJson, PathList, ReferrerList, VersionDetail, VersionList } from '../../api-contract/schemas.js';
import { offsetOf, TextBudget, truncationMarker } from '../budget.js';
import { renderView, simpleName, valueText, viaText } from '../render.js';
import { answer, cursorInput, guarded, limitInput, objectIdInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';

/** `describe_object`, `referrers`, `paths_from_root` and `object_versions`. */

/** The range of a page in a header: none when the page is all, and no range for a page past the last. */
function pageRange(offset: number, shown: number, total: number): string {
  return shown === total ? '' : shown === 0 ? '; none in this page' : `; ${offset}..${offset + shown - 1} shown`;
}

export const registerObjectTools: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'describe_object',
    {
      title: 'Describe an object',
      description:
        'One stored object: its class, every persisted member with its value (numbers, texts, dates inline; references as "→ id Type \"text\"" so you can describe those next), whether it is reachable from the root, how many objects refer to it. Collections, arrays and maps show a page of their elements; a truncated answer ends with a next cursor. The answer is /api/v1/objects/{id}.',
      inputSchema: {
        ...storageInput(deps.registry),
        objectId: objectIdInput,
        limit: limitInput('elements of each collection member'),
        cursor: cursorInput,
      },
      annotations: { title: 'Describe an object', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const offset = offsetOf(args.cursor);
        const view = await deps.api.get<ObjectViewJson>(storageOf(args), `/objects/${args.objectId}`, { offset, limit: args.limit ?? 20 });
        const out = new TextBudget();
        renderView(view, out);
        return answer(out.text(), view as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    'referrers',
    {
      title: 'Who refers to an object',
      description:
        'The objects that hold a reference to this one, each with the member, element index or map key it is held through. Also answers for ids that are referenced but missing from the storage. Paged. The answer is /api/v1/objects/{id}/referrers.',
      inputSchema: { ...storageInput(deps.registry), objectId: objectIdInput, limit: limitInput('referrers'), cursor: cursorInput },
      annotations: { title: 'Who refers to an object', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const offset = offsetOf(args.cursor);
        const list = await deps.api.get<Static<typeof ReferrerList>>(storageOf(args), `/objects/${args.objectId}/referrers`, { offset, limit: args.limit ?? 20 });
        const out = new TextBudget();
        out.add(`${list.total} object(s) refer to ${list.objectId}${pageRange(offset, list.referrers.length, list.total)}:`);
        for (const r of list.referrers) out.add(`  ${r.objectId} ${simpleName(r.typeName)}${viaText(r.via)}`);
        const rest = list.total - offset - list.referrers.length;
        if (rest > 0) out.addAlways(truncationMarker(rest, offset + list.referrers.length, 'referrers'));
        return answer(out.text(), list as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    'paths_from_root',
    {
      title: 'How an object is reachable',
      description:
        'Shortest reference paths from the storage root to the object (root → member → ... → object), or that it is unreachable (garbage). Use it to explain where an object lives in the graph. The answer is /api/v1/objects/{id}/paths.',
      inputSchema: { ...storageInput(deps.registry), objectId: objectIdInput, limit: limitInput('paths', 3, 10) },
      annotations: { title: 'How an object is reachable', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const paths = await deps.api.get<Static<typeof PathList>>(storageOf(args), `/objects/${args.objectId}/paths`, { limit: args.limit ?? 3 });
        const out = new TextBudget();
        if (!paths.reachable) out.add(`${paths.objectId} is not reachable from the root: it is garbage (kept on disk until housekeeping removes it)`);
        else out.add(`${paths.paths.length} shortest path(s) from the roots entity to ${paths.objectId}:`);
        paths.paths.forEach((path, i) => {
          const steps = path.map((step, n) => (n === 0 ? `${step.objectId} ${simpleName(step.typeName)}` : `.${step.via?.text ?? '?'} → ${step.objectId} ${simpleName(step.typeName)}`));
          out.add(`  ${i + 1}. ${steps.join(' ')}`);
        });
        return answer(out.text(), paths as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    'object_versions',
    {
      title: 'Versions of an object',
      description:
        'The history of an object: every record of it still in the data files, newest first, with the commit time that made each valid. Give "version" (0 = current, 1 = the one before, ...) to see that version and what changed from it to the next newer one. Answers are /api/v1/objects/{id}/versions and /api/v1/objects/{id}/versions/{n}.',
      inputSchema: {
        ...storageInput(deps.registry),
        objectId: objectIdInput,
        version: z.number().int().min(0).max(1_000_000).optional().describe('a version number from the list, to see it and its changes'),
        limit: limitInput('versions listed, or elements of each collection member of a version'),
        cursor: cursorInput,
      },
      annotations: { title: 'Versions of an object', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const name = storageOf(args);
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const out = new TextBudget();
        if (args.version === undefined) {
          // The API's page is the tool's (an object stored 100,001 times lists 100 versions by default).
          const list = await deps.api.get<Static<typeof VersionList>>(name, `/objects/${args.objectId}/versions`, { offset, limit });
          const page = list.versions;
          out.add(`${list.total} version(s) of ${list.objectId} on disk, newest first${pageRange(offset, page.length, list.total)}:`);
          for (const v of page) {
            const commit = v.commit === null ? 'commit unknown' : `${v.commit.kind} ${v.commit.time}`;
            out.add(`  version ${v.n}${v.current ? ' (current)' : ''}: ${commit}; ${simpleName(v.typeName)} [type id ${v.typeId}], ${v.length} bytes in ${v.file} @${v.offset}`);
          }
          const rest = list.total - offset - page.length;
          if (rest > 0) out.addAlways(truncationMarker(rest, offset + page.length, 'versions'));
          return answer(out.text(), list as unknown as Record<string, unknown>);
        }
        const detail = await deps.api.get<Static<typeof VersionDetail>>(name, `/objects/${args.objectId}/versions/${args.version}`, { offset, limit });
        const v = detail.version;
        out.add(`version ${v.n} of ${detail.objectId}${v.current ? ' (current)' : ''}: ${v.commit === null ? 'commit unknown' : `${v.commit.kind} ${v.commit.time}`}`);
        if (detail.comparedWith === null) out.add('no newer version: nothing changed since');
        else {
          out.add(`changes from version ${v.n} to version ${detail.comparedWith}${detail.changes.length === 0 ? ': none (in the members and elements shown)' : ':'}`);
          for (const c of detail.changes) out.add(`  ${c.member}${c.index === undefined ? '' : `[${c.index}]`}: ${valueText(c.before)} ⇒ ${valueText(c.after)}`);
        }
        renderView(detail.view as ObjectViewJson, out, '  ');
        return answer(out.text(), detail as unknown as Record<string, unknown>);
      }),
  );
};
