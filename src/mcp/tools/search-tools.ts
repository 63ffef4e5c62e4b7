import type { Static } from 'typebox';
import { z } from 'zod';
import { SEARCH_MAX_OFFSET, type InstanceList, type ObjectViewJson, type SearchResult } from '../../api-contract/schemas.js';
import type { StorageContext } from '../../registry/storage-registry.js';
import { ApiAnswerError, type ApiClient } from '../api-client.js';
import { MAX_PAGE, offsetOf, short, TextBudget, truncationMarker } from '../budget.js';
import { fullName, simpleName, valueText } from '../render.js';
import { answer, cursorInput, guarded, limitInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';
import { resolveType } from '../resolve-type.js';
import { typeRows } from '../type-rows.js';

/** `list_instances` (with a filter on a member) and `search`. */

type Member = ObjectViewJson['members'][number];

/** Instances looked at per call when filtering on a member (each is read and decoded), and for how long at most. */
const SCAN_WINDOW = 500;
const SCAN_MS = 5000;

/** The one type id to list: the one given, or the current version of a name (others are named in the text). */
async function typeIdToList(api: ApiClient, storage: string | undefined, context: StorageContext, type: string): Promise<{ typeId: string; others: string[] }> {
  const named = resolveType(context, type);
  if (named.entries.length === 1) return { typeId: String(named.entries[0]!.typeId), others: [] };
  const ids = new Set(named.entries.map((e) => String(e.typeId)));
  const rows = (await typeRows(api, storage, ids)).filter((t) => t.instances > 0);
  const current = rows.find((t) => t.current) ?? rows[0];
  if (current === undefined) return { typeId: String(named.entries.at(-1)!.typeId), others: [] };
  return { typeId: current.typeId, others: rows.filter((t) => t !== current).map((t) => `type id ${t.typeId} (version ${t.version}, ${t.instances} instances)`) };
}

/** The value of a member as text, to compare: primitives and texts as such, references by their Java text or id. */
function memberValueText(member: Member): string | undefined {
  if (member.elements !== undefined) return undefined;
  const value = member.value;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'object') {
    const ref = value as { objectId?: string; text?: string };
    return ref.text ?? ref.objectId;
  }
  return String(value);
}

export const registerSearchTools: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'list_instances',
    {
      title: 'List instances of a type',
      description:
        'Object ids of all instances of a class, ascending, paged. Optionally filtered on one member: give "member" and "equals" (exact value text) or "contains" (case-insensitive); references compare by the referenced value\'s text (Strings, numbers, dates) or id. A filtered call looks at up to 500 instances (5 s at most) and ends with a next cursor to go on. The unfiltered answer is /api/v1/types/{typeId}/instances.',
      inputSchema: {
        ...storageInput(deps.registry),
        type: z.string().min(1).max(1000).describe('a type id, a full class name ("com.acme.Customer") or a simple one ("Customer")'),
        member: z.string().min(1).max(200).optional().describe('filter: the member to test (a name from describe_object or type_dictionary)'),
        equals: z.string().max(1000).optional().describe('filter: the member\'s value is exactly this text (e.g. "42", "true", "Alice", "null")'),
        contains: z.string().min(1).max(1000).optional().describe('filter: the member\'s value contains this text, ignoring case'),
        limit: limitInput('object ids (or matches)'),
        cursor: cursorInput,
      },
      annotations: { title: 'List instances of a type', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const name = storageOf(args);
        const context = deps.api.context(name);
        const offset = offsetOf(args.cursor);
        const limit = args.limit ?? 20;
        const filtered = args.member !== undefined;
        if (filtered !== (args.equals !== undefined || args.contains !== undefined)) {
          throw new ApiAnswerError(400, 'Bad Request', 'a filter needs "member" together with "equals" or "contains"');
        }
        const { typeId, others } = await typeIdToList(deps.api, name, context, args.type);
        const window = filtered ? SCAN_WINDOW : limit;
        const page = await deps.api.get<Static<typeof InstanceList>>(name, `/types/${typeId}/instances`, { offset, limit: window });
        const out = new TextBudget();
        const also = others.length > 0 ? ` (older versions of the class have instances too: ${others.join(', ')})` : '';
        if (!filtered) {
          const shown = page.objectIds.length;
          // A page past the last (a cursor from an earlier, longer listing) names no range.
          const range = shown === page.total ? '' : shown === 0 ? '; none in this page' : `; ${offset}..${offset + shown - 1} shown`;
          out.add(`${page.total} instance(s) of ${fullName(page.typeName)} [type id ${page.typeId}]${also}${range}:`);
          if (shown > 0) out.add(page.objectIds.join(' '));
          const rest = page.total - offset - page.objectIds.length;
          if (rest > 0) out.addAlways(truncationMarker(rest, offset + page.objectIds.length, 'instances'));
          return answer(out.text(), page as unknown as Record<string, unknown>);
        }
        const wanted = args.contains?.toLowerCase();
        const matches: { objectId: string; member: Member }[] = [];
        let scanned = 0;
        let memberSeen = false;
        const deadline = Date.now() + SCAN_MS;
        for (const id of page.objectIds) {
          if (matches.length >= limit || Date.now() > deadline) break;
          scanned++;
          const view = await deps.api.get<ObjectViewJson>(name, `/objects/${id}`, { limit: 1 });
          const member = view.members.find((m) => m.name === args.member);
          if (member === undefined) continue;
          memberSeen = true;
          const text = memberValueText(member);
          if (text === undefined) continue;
          if (args.equals !== undefined ? text === args.equals : text.toLowerCase().includes(wanted!)) matches.push({ objectId: id, member });
        }
        if (!memberSeen && scanned > 0) {
          throw new ApiAnswerError(400, 'Bad Request', `${page.typeName} has no member ${JSON.stringify(short(args.member!, 200))} (see type_dictionary)`);
        }
        const test = args.equals !== undefined ? `= ${JSON.stringify(short(args.equals))}` : `contains ${JSON.stringify(short(args.contains!))}`;
        const looked = scanned === 0 ? `no instance at ${offset} or after (${page.total} in all)` : `among instances ${offset}..${offset + scanned - 1} of ${page.total}`;
        out.add(`${fullName(page.typeName)} [type id ${page.typeId}] where ${args.member} ${test}: ${matches.length} match(es) ${looked}${also}`);
        for (const m of matches) out.add(`  ${m.objectId}: ${args.member} = ${valueText(m.member.value)}`);
        const next = offset + scanned;
        if (next < page.total) out.addAlways(`truncated: ${page.total - next} more instances not looked at yet; next cursor "${next}"`);
        return answer(out.text(), { instances: { ...page, objectIds: page.objectIds.slice(0, scanned) }, where: { member: args.member, ...(args.equals === undefined ? { contains: args.contains } : { equals: args.equals }) }, matches, nextCursor: next < page.total ? String(next) : null });
      }),
  );

  server.registerTool(
    'search',
    {
      title: 'Search texts and values',
      description:
        'Find objects whose text (String members, char arrays) or primitive value contains the query, ignoring case, optionally only in one class. Each hit names the owning object, its class and the member. Scans the data files with a time bound; says when it stopped early. Paged: a page that may not be the last ends with a next cursor. The answer is /api/v1/search.',
      inputSchema: {
        ...storageInput(deps.registry),
        query: z.string().min(1).max(1000).describe('text or number to find, e.g. "Alice", "C-0007", "42"'),
        type: z.string().min(1).max(1000).optional().describe('only objects of this class (type id, full or simple name)'),
        limit: limitInput('hits', 20, MAX_PAGE),
        maxMs: z.number().int().min(1).max(30_000).optional().describe('stop scanning after this many milliseconds (default 2000)'),
        cursor: cursorInput,
      },
      annotations: { title: 'Search texts and values', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const name = storageOf(args);
        const context = deps.api.context(name);
        const type = args.type === undefined ? undefined : resolveType(context, args.type);
        const typeParam = type === undefined ? undefined : /^[0-9]+$/.test(args.type!) ? args.type : type.typeName;
        const limit = args.limit ?? 20;
        const offset = offsetOf(args.cursor);
        // Every page scans again from the start; past the API's bound, say so in this tool's words.
        if (offset > SEARCH_MAX_OFFSET) throw new ApiAnswerError(400, 'Bad Request', `cursor "${offset}" is past the first ${SEARCH_MAX_OFFSET} hits, the most this tool pages through`);
        const result = await deps.api.get<Static<typeof SearchResult>>(name, '/search', { q: args.query, type: typeParam, offset, limit, maxMs: args.maxMs }, false);
        const out = new TextBudget();
        const shown = result.results.length;
        out.add(`${shown} hit(s) for ${JSON.stringify(short(result.query))}${type === undefined ? '' : ` in ${fullName(type.typeName)}`}${offset > 0 || result.stoppedBy === 'limit' ? (shown === 0 ? '; none in this page' : `; hits ${offset}..${offset + shown - 1} shown`) : ''}:`);
        for (const hit of result.results) out.add(`  ${hit.objectId} ${simpleName(hit.typeName)}.${hit.member} = ${JSON.stringify(short(hit.text))}`);
        // Each page scans from the start again and skips the hits of the pages before.
        const next = offset + shown;
        if (result.stoppedBy === 'limit') out.addAlways(`truncated: more hits may match (scanned ${result.scannedBytes} of ${result.totalBytes} bytes); next cursor "${next}"`);
        else if (result.stoppedBy === 'time') out.addAlways(`truncated: stopped after ${result.elapsedMs} ms, scanned ${result.scannedBytes} of ${result.totalBytes} bytes; raise maxMs or narrow with type, then next cursor "${next}"`);
        return answer(out.text(), result as unknown as Record<string, unknown>);
      }),
  );
};
