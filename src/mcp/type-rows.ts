import type { Static } from 'typebox';
import { MAX_LIMIT, type TypeList } from '../api-contract/schemas.js';
import type { ApiClient } from './api-client.js';

/** The rows of /api/v1/types for some type ids, read page by page (a storage may have more types than a page). */
export async function typeRows(api: ApiClient, storage: string | undefined, typeIds: ReadonlySet<string>): Promise<Static<typeof TypeList>['types']> {
  const rows: Static<typeof TypeList>['types'] = [];
  for (let offset = 0; ; offset += MAX_LIMIT) {
    const page = await api.get<Static<typeof TypeList>>(storage, '/types', { sort: 'typeId', offset, limit: MAX_LIMIT });
    rows.push(...page.types.filter((t) => typeIds.has(t.typeId)));
    if (page.types.length === 0 || offset + page.types.length >= page.total) return rows;
  }
}
