import { z } from 'zod';
import { offsetOf, short, TextBudget, truncationMarker } from '../budget.js';
import { fullName, simpleName, valueText } from '../render.js';
import { answer, cursorInput, guarded, limitInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';

/**
 * `commits`: the storage's commits newest first, or one commit's objects with their member
 * changes; `diff`: what changed between two points of the storage's history or two served
 * storages. Both answer from /api/v1 (commits, commits/{timestamp}, diff), paged with a cursor.
 */

interface CommitJson {
  readonly number: number;
  readonly timestamp: string;
  readonly time: string;
  readonly bytes: number;
  readonly objects: number;
  readonly newObjects: number;
  readonly updatedObjects: number;
  readonly complete: boolean;
  readonly types: readonly { readonly typeName: string; readonly objects: number }[];
}

interface MemberChangeJson {
  readonly member: string;
  readonly before?: unknown;
  readonly after?: unknown;
  readonly countBefore?: number;
  readonly countAfter?: number;
  readonly added?: readonly unknown[];
  readonly removed?: readonly unknown[];
  readonly moved?: readonly unknown[];
  readonly changedValues?: readonly unknown[];
}

interface ObjectChangeJson {
  readonly objectId: string;
  readonly typeName: string;
  readonly change: string;
  readonly members?: readonly MemberChangeJson[] | null;
}

interface DiffJson {
  readonly equal: boolean;
  readonly summary: { added: number; removed: number; changed: number; unchanged: number; types: { typeName: string; added: number; removed: number; changed: number }[] };
  readonly typeChanges: readonly { typeName: string }[];
  readonly total: number;
  readonly objects: readonly ObjectChangeJson[];
}

const pointInput = z
  .string()
  .max(40)
  .regex(/^[0-9A-Za-z:.+\-]+$/, 'a commit number, a commit timestamp or an ISO date-time')
  .describe('a commit number or timestamp as the commits tool lists them, or an ISO date-time (the last commit at or before it)');

function commitLine(c: CommitJson): string {
  const types = c.types.slice(0, 3).map((t) => `${simpleName(t.typeName)} ${t.objects}`).join(', ');
  return `#${c.number} ${c.time} (timestamp ${c.timestamp}): ${c.objects} objects (${c.newObjects} new, ${c.updatedObjects} updated), ${c.bytes} bytes${types === '' ? '' : `; ${types}`}${c.complete ? '' : '; incomplete on disk (housekeeping removed its bytes)'}`;
}

function memberLine(m: MemberChangeJson): string {
  if (m.countBefore === undefined) return `${m.member}: ${short(valueText(m.before))} → ${short(valueText(m.after))}`;
  const parts = [`${m.countBefore} → ${m.countAfter} elements`];
  if ((m.added?.length ?? 0) > 0) parts.push(`${m.added!.length} added`);
  if ((m.removed?.length ?? 0) > 0) parts.push(`${m.removed!.length} removed`);
  if ((m.moved?.length ?? 0) > 0) parts.push(`${m.moved!.length} moved`);
  if ((m.changedValues?.length ?? 0) > 0) parts.push(`${m.changedValues!.length} values changed`);
  return `${m.member}: ${parts.join(', ')}`;
}

function objectLines(o: ObjectChangeJson, out: TextBudget): void {
  out.add(`  ${o.change} ${simpleName(o.typeName)} ${o.objectId}`);
  for (const m of o.members ?? []) out.add(`    ${memberLine(m)}`);
}

export const registerHistoryTools: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'commits',
    {
      title: 'Commits and what they stored',
      description:
        'The commits of the storage, newest first: time, log timestamp, objects stored (new and updated), bytes, the main types, whether still complete on disk. With timestamp: what that commit stored, each object new or updated with its member changes against the version before (values old → new). Paged with a cursor. The answers are /api/v1/commits and /api/v1/commits/{timestamp}.',
      inputSchema: {
        ...storageInput(deps.registry),
        timestamp: z.string().regex(/^[0-9]{1,19}$/, 'a commit timestamp is 1 to 19 decimal digits').optional().describe('a commit\'s timestamp as listed by this tool: list what it stored'),
        limit: limitInput('commits or objects'),
        cursor: cursorInput,
      },
      annotations: { title: 'Commits and what they stored', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const storage = storageOf(args);
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const out = new TextBudget();
        if (args.timestamp === undefined) {
          const result = await deps.api.get<{ total: number; commits: CommitJson[] }>(storage, '/commits', { offset, limit }, false);
          out.add(`${result.total} commits, newest first:`);
          for (const c of result.commits) out.add(`  ${commitLine(c)}`);
          const next = offset + result.commits.length;
          if (next < result.total) out.addAlways(truncationMarker(result.total - next, next, 'commits'));
          return answer(out.text(), result as unknown as Record<string, unknown>);
        }
        const result = await deps.api.get<{ commit: CommitJson; objects: ObjectChangeJson[] }>(storage, `/commits/${args.timestamp}`, { offset, limit: Math.min(limit, 200) }, false);
        out.add(commitLine(result.commit));
        for (const o of result.objects) objectLines({ ...o, change: o.members === null && o.change === 'updated' ? 'updated (no earlier version on disk)' : o.change }, out);
        const next = offset + result.objects.length;
        if (next < result.commit.objects) out.addAlways(truncationMarker(result.commit.objects - next, next, 'objects'));
        return answer(out.text(), result as unknown as Record<string, unknown>);
      }),
  );

  server.registerTool(
    'diff',
    {
      title: 'What changed between two points or two storages',
      description:
        'Compares two points of the storage\'s history (from, to: commit numbers, timestamps or date-times; to defaults to now; neither: what the last commit changed) or two served storages (a, b): objects matched by id, per type added, removed, changed; the differing objects with their member changes (old → new, collections element by element), paged with a cursor. Points whose files housekeeping deleted are refused naming them. The answer is /api/v1/diff.',
      inputSchema: {
        ...storageInput(deps.registry),
        from: pointInput.optional(),
        to: pointInput.optional(),
        a: z.string().max(64).optional().describe('a served storage, the one before (with b)'),
        b: z.string().max(64).optional().describe('a served storage, the one after (with a)'),
        type: z.string().max(512).optional().describe('only objects of this type (exact class name)'),
        limit: limitInput('differing objects'),
        cursor: cursorInput,
      },
      annotations: { title: 'What changed between two points or two storages', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const storage = storageOf(args);
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const result = await deps.api.get<DiffJson>(storage, '/diff', { from: args.from, to: args.to, a: args.a, b: args.b, type: args.type, offset, limit }, false);
        const s = result.summary;
        const out = new TextBudget();
        out.add(result.equal ? `no differences (${s.unchanged} objects unchanged)` : `${s.added} added, ${s.removed} removed, ${s.changed} changed, ${s.unchanged} unchanged objects`);
        for (const t of s.types.filter((x) => x.added + x.removed + x.changed > 0).slice(0, 10)) out.add(`  ${simpleName(t.typeName)}: +${t.added} -${t.removed} ~${t.changed}`);
        if (result.typeChanges.length > 0) out.add(`type changes: ${result.typeChanges.map((t) => fullName(t.typeName)).join(', ')}`);
        for (const o of result.objects) objectLines(o, out);
        const next = offset + result.objects.length;
        if (next < result.total) out.addAlways(truncationMarker(result.total - next, next, 'differing objects'));
        return answer(out.text(), result as unknown as Record<string, unknown>);
      }),
  );
};
