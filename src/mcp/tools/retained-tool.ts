import type { Static } from 'typebox';
import type { RetainersJson } from '../../api-contract/retained-schemas.js';
import type { RetainedFigures } from '../../api-contract/schemas.js';
import { ApiAnswerError } from '../api-client.js';
import { offsetOf, TextBudget, truncationMarker } from '../budget.js';
import { simpleName } from '../render.js';
import { answer, cursorInput, guarded, limitInput, objectIdInput, READ_ONLY, storageInput, storageOf, type ToolRegistrar } from '../tool-kit.js';

/**
 * `retained`: what keeps the bytes alive. With an object id: what the object retains (what would
 * become garbage were it unreachable), its dominator chain up to the roots object (what keeps it
 * alive) and its retained set by class; without: the biggest retainers. Both paged with a cursor
 * (at most the first 1,000 retainers or chain steps, which the API bounds).
 */

/** The API's bound on chains and retainer pages. */
const API_MAX = 1000;
/** Waiting for the dominator tree (computed in the background after the graph index). */
const TREE_WAIT_MS = 30_000;
const TYPES = 10;

interface RetainerEntry {
  readonly objectId: string;
  readonly typeName: string;
  readonly retainedObjects: number;
  readonly retainedBytes: number;
  readonly share: number;
  readonly summary?: string;
  readonly byType?: readonly { typeName: string; objects: number; bytes: number }[];
}

interface RetainedAnswer {
  readonly objectId: string;
  readonly typeName: string;
  readonly reachable: boolean;
  readonly ownBytes: number;
  readonly retained: Static<typeof RetainedFigures> | null;
  readonly chainLength: number;
  readonly chain: readonly RetainerEntry[];
  readonly byType: readonly { typeName: string; objects: number; bytes: number }[];
}

function size(bytes: number): string {
  return bytes < 10_240 ? `${bytes} B` : bytes < 10_485_760 ? `${Math.round(bytes / 1024)} KiB` : `${(bytes / 1_048_576).toFixed(1)} MiB`;
}

function percent(share: number): string {
  return `${(100 * share).toFixed(1)}%`;
}

function entryLine(e: RetainerEntry): string {
  return `${e.objectId} ${simpleName(e.typeName)}: retains ${e.retainedObjects} objects, ${size(e.retainedBytes)} (${percent(e.share)})${e.summary === undefined ? '' : ` ${e.summary}`}`;
}

export const registerRetainedTool: ToolRegistrar = (server, deps) => {
  server.registerTool(
    'retained',
    {
      title: 'What keeps the bytes alive',
      description:
        "Retained sizes from the dominator tree. With objectId: the objects and bytes that object retains (what would become garbage, and be freed by MicroStream's housekeeping, were it no longer referenced), its dominator chain up to the roots object (the objects every path to it passes through: what keeps it alive) and its retained set by class. Without objectId: the biggest retainers of the storage (objects by the bytes they keep alive, the roots object left out), each with its largest classes. Paged: the chain or the retainer list, with a cursor (the first 1,000). The answers are /api/v1/objects/{id}/retained and /api/v1/retainers.",
      inputSchema: {
        ...storageInput(deps.registry),
        objectId: objectIdInput.optional(),
        limit: limitInput('chain steps or retainers'),
        cursor: cursorInput,
      },
      annotations: { title: 'What keeps the bytes alive', ...READ_ONLY },
    },
    (args) =>
      guarded(async () => {
        const storage = storageOf(args);
        const context = deps.api.context(storage);
        await context.graph.ready().catch(() => undefined);
        // The tree follows the graph index; the API says how far it is if it takes longer.
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([context.graph.dominators.ready().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, TREE_WAIT_MS)))]);
        clearTimeout(timer);
        const offset = offsetOf(args.cursor);
        // The API pages only the first 1,000: a cursor past them is refused here, in words, not with the API's query check.
        if (offset >= API_MAX) throw new ApiAnswerError(400, 'Bad Request', `cursor "${offset}" is past the first ${API_MAX} ${args.objectId === undefined ? 'retainers' : 'dominators'}, the most this tool pages through`);
        const limit = Math.min(args.limit ?? 20, API_MAX - offset);
        const out = new TextBudget();
        if (args.objectId === undefined) {
          const result = await deps.api.get<RetainersJson>(storage, '/retainers', { offset, limit: Math.max(1, limit), types: 3, summaries: true });
          out.add(`biggest retainers of ${size(result.reachableBytes)} reachable (${result.reachableObjects} objects); an object and what it holds may both be listed:`);
          result.retainers.forEach((r, i) => {
            out.add(`  ${offset + i + 1}. ${entryLine(r)}`);
            if (r.byType !== undefined && r.byType.length > 0) out.add(`     mostly ${r.byType.map((t) => `${simpleName(t.typeName)} ${t.objects} × ${size(t.bytes)}`).join(', ')}`);
          });
          const next = offset + result.retainers.length;
          if (result.retainers.length === limit && next < API_MAX && next < result.reachableObjects - 1) out.addAlways(truncationMarker(result.reachableObjects - 1 - next, next, 'retainers'));
          return answer(out.text(), result as unknown as Record<string, unknown>);
        }
        const result = await deps.api.get<RetainedAnswer>(storage, `/objects/${args.objectId}/retained`, { chain: offset + Math.max(1, limit), types: TYPES });
        const chain = result.chain.slice(offset);
        if (result.retained === null) {
          out.add(`${result.objectId} ${simpleName(result.typeName)} is not reachable from the roots object: it retains nothing and nothing keeps it alive (it is garbage, ${size(result.ownBytes)})`);
          return answer(out.text(), { ...result, chain, offset } as unknown as Record<string, unknown>);
        }
        out.add(`${result.objectId} ${simpleName(result.typeName)} (${size(result.ownBytes)} itself) retains ${result.retained.objects} objects, ${size(result.retained.bytes)}: ${percent(result.retained.share)} of the reachable bytes`);
        if (offset === 0) {
          out.add('what deleting it would free, by class:');
          for (const t of result.byType) out.add(`  ${simpleName(t.typeName)}: ${t.objects} objects, ${size(t.bytes)}`);
          const listed = result.byType.reduce((n, t) => n + t.objects, 0);
          if (listed < result.retained.objects) out.add(`  … ${result.retained.objects - listed} objects of other classes`);
        }
        out.add(result.chainLength === 0 ? 'it is the roots object: nothing above it' : `what keeps it alive (${result.chainLength} dominators, the immediate one first, up to the roots object):`);
        chain.forEach((e, i) => out.add(`  ${offset + i + 1}. ${entryLine(e)}`));
        const next = offset + chain.length;
        if (next < result.chainLength && next < API_MAX) out.addAlways(truncationMarker(result.chainLength - next, next, 'dominators'));
        return answer(out.text(), { ...result, chain, offset } as unknown as Record<string, unknown>);
      }),
  );
};
