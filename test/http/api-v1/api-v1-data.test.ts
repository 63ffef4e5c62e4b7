import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { graphsBuilt, registeredStorage, type RegisteredStorage } from '../../helpers/serving/registered-storage.js';

/**
 * `/api/v1` as a data tool: search reports the owners of matching values with typed values and
 * pages; lists of ids carry summaries; instances filter by reachability exactly as /analysis
 * counts garbage; a Lazy is no step of its own in paths.
 */

const GRAPH_STORAGE = join(CONFORMANCE_DIR, 'storages', 'graph');

interface SearchAnswer {
  offset: number;
  complete: boolean;
  stoppedBy: string | null;
  scannedBytes: number;
  totalBytes: number;
  typeName?: string;
  results: { objectId: string; typeName: string; member: string; text: string; value: unknown; valueObjectId?: string; valueTypeName?: string; summary?: string }[];
}

describe('/api/v1 as a data tool', () => {
  let registered: RegisteredStorage;
  let app: ReturnType<typeof buildApp>;
  const get = async <T>(url: string): Promise<T> => {
    const response = await app.inject({ url });
    expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
    return response.json() as T;
  };

  beforeAll(async () => {
    registered = await registeredStorage(GRAPH_STORAGE);
    await graphsBuilt(registered.registry);
    app = buildApp(registered.storage, { instance: 'microstream', api: registered.registry });
  });
  afterAll(async () => {
    await app.close();
    await registered.close();
  });

  it('finds the owner and member of a matching String, with a summary of the owner', async () => {
    const answer = await get<SearchAnswer>('/api/v1/search?q=schmidt');
    expect(answer.complete).toBe(true);
    expect(answer.results).toEqual([
      expect.objectContaining({ typeName: 'conformance.bookstore.Customer', member: 'name', value: 'Schmidt', valueTypeName: 'java.lang.String', summary: expect.stringContaining('name: "Schmidt"') }),
    ]);
    // The value object named is the one the owner holds in that member.
    const owner = await get<{ members: { name: string; value: { objectId: string } }[] }>(`/api/v1/objects/${answer.results[0]!.objectId}`);
    expect(owner.members.find((m) => m.name === 'name')!.value.objectId).toBe(answer.results[0]!.valueObjectId);
  });

  it('applies the type filter to owners and accepts a simple name where unambiguous', async () => {
    const byFull = await get<SearchAnswer>('/api/v1/search?q=e&type=conformance.bookstore.Country');
    const bySimple = await get<SearchAnswer>('/api/v1/search?q=e&type=Country');
    expect(bySimple.typeName).toBe('conformance.bookstore.Country');
    expect(bySimple.results).toEqual(byFull.results);
    expect(byFull.results.length).toBeGreaterThan(3);
    expect(byFull.results.every((r) => r.typeName === 'conformance.bookstore.Country')).toBe(true);
    expect(byFull.results.map((r) => r.value)).toContain('Deutschland');
    expect((await app.inject({ url: '/api/v1/search?q=e&type=NoSuchType' })).statusCode).toBe(400);
  });

  it('pages past the first page and counts the bytes it scanned', async () => {
    const all = await get<SearchAnswer>('/api/v1/search?q=e&limit=1000');
    expect(all.complete).toBe(true);
    expect(all.scannedBytes).toBe(all.totalBytes);
    expect(all.results.length).toBeGreaterThan(20);
    const first = await get<SearchAnswer>('/api/v1/search?q=e&limit=10');
    const second = await get<SearchAnswer>('/api/v1/search?q=e&limit=10&offset=10');
    expect(first).toMatchObject({ complete: false, stoppedBy: 'limit' });
    expect(first.scannedBytes).toBeGreaterThan(0);
    expect(first.scannedBytes).toBeLessThan(first.totalBytes);
    expect(second.offset).toBe(10);
    expect([...first.results, ...second.results]).toEqual(all.results.slice(0, 20));
  });

  it('gives values typed: numbers as numbers, 64-bit values as decimal strings, dates as ISO-8601', async () => {
    const all = await get<SearchAnswer>('/api/v1/search?q=1&limit=2000&maxMs=30000');
    const byValueType = (name: string) => all.results.filter((r) => r.valueTypeName === name);
    expect(byValueType('java.lang.Integer').length + all.results.filter((r) => typeof r.value === 'number').length).toBeGreaterThan(0);
    for (const r of all.results) {
      if (r.valueTypeName === 'java.lang.Integer') expect(typeof r.value).toBe('number');
      if (r.valueTypeName === 'java.math.BigDecimal' || r.valueTypeName === 'java.lang.Long') expect(typeof r.value).toBe('string');
    }
    const dates = byValueType('java.util.Date');
    expect(dates.length).toBeGreaterThan(0);
    for (const d of dates) expect(d.value).toMatch(/^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$/);
    // A date is found by its ISO text too.
    const year = (dates[0]!.value as string).slice(0, 7);
    const byIso = await get<SearchAnswer>(`/api/v1/search?q=${year}&type=java.util.Date&limit=1000`);
    expect(byIso.results.length).toBeGreaterThan(0);
  });

  it('lists exactly the garbage of /analysis with reachable=false, with summaries', async () => {
    const analysis = await get<{ unreachable: { count: number; byType: { typeId: string; count: number }[] } }>('/api/v1/analysis');
    expect(analysis.unreachable.count).toBeGreaterThan(0);
    let listed = 0;
    for (const t of analysis.unreachable.byType) {
      const page = await get<{ total: number; objectIds: string[]; summaries: (string | null)[] }>(`/api/v1/types/${t.typeId}/instances?reachable=false&summaries=true&limit=10000`);
      expect(page.total).toBe(t.count);
      expect(page.objectIds).toHaveLength(t.count);
      expect(page.summaries).toHaveLength(t.count);
      for (const id of page.objectIds) expect((await get<{ reachable: boolean }>(`/api/v1/objects/${id}`)).reachable).toBe(false);
      const reachable = await get<{ total: number }>(`/api/v1/types/${t.typeId}/instances?reachable=true`);
      const all = await get<{ total: number }>(`/api/v1/types/${t.typeId}/instances`);
      expect(reachable.total + page.total).toBe(all.total);
      listed += page.total;
    }
    expect(listed).toBe(analysis.unreachable.count);
  });

  it('gives referrers and path steps a summary, and answers summaries for a batch of ids', async () => {
    const found = await get<SearchAnswer>('/api/v1/search?q=schmidt');
    const valueId = found.results[0]!.valueObjectId!;
    const referrers = await get<{ referrers: { objectId: string; summary?: string; via: { text: string } }[] }>(`/api/v1/objects/${valueId}/referrers`);
    expect(referrers.referrers).toEqual([expect.objectContaining({ objectId: found.results[0]!.objectId, summary: found.results[0]!.summary, via: expect.objectContaining({ text: 'name' }) })]);
    const batch = await get<{ summaries: { objectId: string; typeName: string | null; summary: string | null }[] }>(`/api/v1/summaries?ids=${valueId},${found.results[0]!.objectId},999`);
    expect(batch.summaries).toEqual([
      { objectId: valueId, typeName: 'java.lang.String', summary: '"Schmidt"' },
      { objectId: found.results[0]!.objectId, typeName: 'conformance.bookstore.Customer', summary: found.results[0]!.summary },
      { objectId: '999', typeName: null, summary: null },
    ]);
    expect((await app.inject({ url: `/api/v1/summaries?ids=${Array.from({ length: 1001 }, (_, i) => 1000 + i).join(',')}` })).statusCode).toBe(400);
  });

  it('leaves a Lazy out of paths: what it holds is reached through the member holding it', async () => {
    const lazies = await get<{ objectIds: string[] }>('/api/v1/types/10000/instances?reachable=true&limit=1000');
    let checked = 0;
    for (const id of lazies.objectIds) {
      const lazy = await get<{ members: { name: string; value: { objectId: string } | null }[] }>(`/api/v1/objects/${id}`);
      const subject = lazy.members.find((m) => m.name === 'subject')?.value;
      if (subject === null || subject === undefined) continue;
      const paths = await get<{ paths: { objectId: string; typeName: string; via: { text: string } | null }[][] }>(`/api/v1/objects/${subject.objectId}/paths`);
      for (const path of paths.paths) {
        expect(path.some((s) => s.typeName.endsWith('.Lazy$Default'))).toBe(false);
        expect(path.some((s) => s.via?.text === 'subject')).toBe(false);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(5);
  });
});
