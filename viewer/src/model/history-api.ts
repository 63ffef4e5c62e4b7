import type { ApiV1 } from './api-v1.js';

/**
 * Client of the history routes of `/api/v1`: commits newest first, what one commit stored, and the
 * diff of two points of the storage or of two served storages (their shapes: history-types.ts).
 */

export type { ChannelBytes, Commit, CommitList, Value, ValueChange, ElementsChange, MemberChange, CommitObject, CommitDetail, DiffSide, TypeChange, DiffObject, DiffAnswer, DiffSides } from './history-types.js';
import type { CommitDetail, CommitList, DiffAnswer, DiffSides, ElementsChange, MemberChange } from './history-types.js';

export function isElementsChange(change: MemberChange): change is ElementsChange {
  return 'countBefore' in change;
}

export class HistoryApi {
  constructor(private readonly v1: ApiV1) {}

  commits(offset: number, limit: number): Promise<CommitList> {
    return this.v1.get<CommitList>(`/commits?offset=${offset}&limit=${limit}`, 'the commits');
  }

  commit(timestamp: string, offset: number, limit: number): Promise<CommitDetail> {
    return this.v1.get<CommitDetail>(`/commits/${encodeURIComponent(timestamp)}?offset=${offset}&limit=${limit}`, `commit ${timestamp}`);
  }

  diff(sides: DiffSides, offset: number, limit: number): Promise<DiffAnswer> {
    const params = new URLSearchParams();
    if ('from' in sides) {
      params.set('from', sides.from);
      if (sides.to !== '') params.set('to', sides.to);
    } else {
      params.set('a', sides.a);
      params.set('b', sides.b);
    }
    params.set('offset', String(offset));
    params.set('limit', String(limit));
    return this.v1.get<DiffAnswer>(`/diff?${params.toString()}`, 'the comparison');
  }
}
