import { Type, type Static } from 'typebox';
import { resolveJdkConstant } from '../../../format/ids.js';
import type { GraphIndex } from '../../../graph/model/graph-index.js';
import { isEmptyCollectionType, isLazyType, simpleTypeName } from '../../../inspect/type-names.js';
import type { StorageContext } from '../../../registry/storage-registry.js';
import { objectViewOf, requireGraph } from './graph-answers.js';
import { answers, badRequest } from '../machinery/problem-details.js';
import type { ApiRoute } from '../machinery/routing.js';
import type { ObjectViewJson } from '../../../api-contract/schemas.js';

/**
 * One line of Java-like text per object, for every list of ids the viewer shows (referrers,
 * instances, search results, garbage, paths): the text of a value (`"Greta Schmidt"`, `42`), the
 * constant of an enum, the size of a collection, or the first few members of a plain object
 * (`{name: "Greta Schmidt", age: 75, …}`), the same shape as the Data view's value column. A
 * `Lazy` is summarized as the object it holds.
 */

/** Members shown of a plain object, and the longest text shown of one value. */
const SHOWN_MEMBERS = 3;
const SHOWN_TEXT = 60;
export const MAX_SUMMARY_IDS = 1000;

const STRING_TYPES = new Set(['java.lang.String', 'java.lang.StringBuilder', 'java.lang.StringBuffer']);
const LABEL_MEMBERS = ['name', 'title', 'label', 'displayname', 'code', 'key', 'firstname', 'lastname', 'number', 'id'];

/** Summaries of stored objects and JDK constants; ids that are neither are left out. */
export async function summariesOf(context: StorageContext, graph: GraphIndex, ids: Iterable<bigint>): Promise<Map<bigint, string>> {
  const out = new Map<bigint, string>();
  for (const id of ids) {
    if (out.has(id)) continue;
    const text = await summaryOf(context, graph, id, 1);
    if (text !== undefined) out.set(id, text);
  }
  return out;
}

async function summaryOf(context: StorageContext, graph: GraphIndex, id: bigint, lazyDepth: number): Promise<string | undefined> {
  const constant = resolveJdkConstant(id);
  if (constant === undefined && !graph.isStored(graph.nodes.nodeOfId(id))) return undefined;
  let view: ObjectViewJson;
  try {
    view = await objectViewOf(context, graph, id, { offset: 0, limit: 8 });
  } catch {
    return undefined; // unreadable: the type name alone says what there is
  }
  if (isLazyType(view.typeName) && lazyDepth > 0) {
    const subject = view.members.find((m) => m.name === 'subject')?.value;
    if (subject === null || subject === undefined) return 'Lazy (empty)';
    const target = refOf(subject);
    return target === undefined ? 'Lazy' : ((await summaryOf(context, graph, BigInt(target.objectId), lazyDepth - 1)) ?? `${simpleTypeName(target.typeName ?? '?')} ${target.objectId}`);
  }
  return summaryOfView(view);
}

/** The one-line text of an object's view (its references shown by their own texts only). */
export function summaryOfView(view: ObjectViewJson): string {
  if (view.text !== undefined) return STRING_TYPES.has(view.typeName) ? quoted(view.text) : cut(view.text);
  const members = view.members;
  const enumName = members.find((m) => m.name === 'name' && m.type === 'java.lang.String');
  if (enumName !== undefined && members.some((m) => m.name === 'ordinal' && m.type === 'int') && members.length === 2) {
    const text = refOf(enumName.value)?.text;
    if (text !== undefined) return text;
  }
  const lists = members.filter((m) => m.count !== undefined);
  // One way for every empty collection: a shared empty one, or one whose every list is empty.
  if (isEmptyCollectionType(view.typeName) || (lists.length > 1 && lists.length === members.length && lists.every((m) => m.count === 0))) return 'empty';
  if (lists.length === 1 && members.length - lists.length <= 3) {
    const list = lists[0]!;
    const count = list.count ?? 0;
    if (count === 0) return 'empty';
    const entries = (list.elements ?? []).some((e) => e !== null && typeof e === 'object' && !Array.isArray(e) && 'key' in e && 'value' in e);
    return `${count.toLocaleString('en-GB')} ${entries ? (count === 1 ? 'entry' : 'entries') : count === 1 ? 'element' : 'elements'}`;
  }
  const shown: string[] = [];
  const ordered = members.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m.name) - rank(b.m.name) || a.i - b.i);
  for (const { m } of ordered) {
    if (shown.length >= SHOWN_MEMBERS) break;
    if (m.count !== undefined) continue;
    const text = valueText(m.value);
    if (text !== undefined) shown.push(`${m.name}: ${text}`);
  }
  if (members.length === 0) return '{}';
  return shown.length === 0 ? '{…}' : `{${shown.join(', ')}${shown.length < members.length ? ', …' : ''}}`;
}

function valueText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return value;
  const ref = refOf(value);
  if (ref?.text === undefined) return undefined;
  return ref.typeName !== null && STRING_TYPES.has(ref.typeName) ? quoted(ref.text) : cut(ref.text);
}

function refOf(value: unknown): { objectId: string; typeName: string | null; text?: string } | undefined {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as { objectId?: unknown; typeName?: unknown; text?: unknown };
  if (typeof v.objectId !== 'string') return undefined;
  return { objectId: v.objectId, typeName: typeof v.typeName === 'string' ? v.typeName : null, ...(typeof v.text === 'string' ? { text: v.text } : {}) };
}

function rank(name: string): number {
  const i = LABEL_MEMBERS.indexOf(name.toLowerCase());
  return i < 0 ? LABEL_MEMBERS.length : i;
}

function cut(text: string): string {
  return text.length > SHOWN_TEXT ? `${text.slice(0, SHOWN_TEXT)}…` : text;
}

function quoted(text: string): string {
  // JSON's escapes are Java's for the characters that matter here (quotes, backslash, controls).
  return JSON.stringify(cut(text));
}

const SummariesQuery = Type.Object({
  ids: Type.String({ pattern: '^[0-9]{1,19}(,[0-9]{1,19})*$', maxLength: MAX_SUMMARY_IDS * 20, description: `object ids, comma-separated, at most ${MAX_SUMMARY_IDS}` }),
});

const Summaries = Type.Object({
  summaries: Type.Array(
    Type.Object({
      objectId: Type.String({ pattern: '^[0-9]{1,19}$' }),
      typeName: Type.Union([Type.String(), Type.Null()], { description: 'null when the id is neither stored nor a JDK constant' }),
      summary: Type.Union([Type.String(), Type.Null()], { description: 'one line of Java-like text; null when the object is not stored or unreadable' }),
    }),
  ),
});

export const summaryRoutes: readonly ApiRoute[] = [
  {
    path: '/summaries',
    schema: {
      summary: 'A one-line text per object (as lists of ids show them): values, enum constants, collection sizes, first members',
      tags: ['objects'],
      querystring: SummariesQuery,
      response: answers(Summaries),
    },
    handler: (request, _reply, context) =>
      context.storage.consistent(async () => {
        const graph = requireGraph(context);
        const ids = (request.query as Static<typeof SummariesQuery>).ids.split(',').map(BigInt);
        if (ids.length > MAX_SUMMARY_IDS) throw badRequest(`at most ${MAX_SUMMARY_IDS} ids, ${ids.length} given`);
        const texts = await summariesOf(context, graph, ids);
        return {
          summaries: ids.map((id) => {
            const constant = resolveJdkConstant(id);
            const node = graph.nodes.nodeOfId(id);
            const typeName = constant?.typeName ?? (graph.isStored(node) ? graph.types.nameOf(graph.typeOf(node)) : null);
            return { objectId: String(id), typeName, summary: texts.get(id) ?? null };
          }),
        };
      }),
  },
];
