import type { ViewHost } from '../shell/view-host.js';

/** One-line texts of objects (`/api/v1/summaries`), for id cells of grids; at most 1,000 ids a request. */
export async function objectSummaries(app: ViewHost, ids: readonly string[]): Promise<ReadonlyMap<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 1000) {
    const batch = ids.slice(i, i + 1000);
    const answer = await app.v1.get<{ summaries: { objectId: string; typeName: string | null; summary: string | null }[] }>(`/summaries?ids=${batch.join(',')}`, 'the summaries');
    for (const s of answer.summaries) if (s.summary !== null) out.set(s.objectId, s.summary);
  }
  return out;
}
