import { cpSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSourceOpener } from '../../../src/mcp/check-sources.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, textOf, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * `storage_overview` (src/mcp/tools/storage-tools.ts) of a storage with problems found while
 * indexing: a copy of the graph corpus whose every data file lost its last 5 bytes (a record cut
 * in each of its 21 files). The overview counts them, lists the first ten as the API names them and
 * says how many more the structured content has; its structured content is the API's answers.
 * Also on this copy: the structured content of `type_dictionary`, the last page of `list_types` and
 * the missing references of `analyze_storage` (the records cut away were referred to), and the
 * findings of `check_storage`, paged.
 * Issue 48: the problem lines, their cut at ten, the default of ten types, the structured content
 * and a last page without a cursor were read by no test (every other test serves a sound storage).
 */

let work: string;
let tools: McpInProcess;
beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'si-mcp-overview-'));
  const dir = join(work, 'cut-storage');
  cpSync(join(CONFORMANCE_DIR, 'storages', 'graph'), dir, { recursive: true });
  for (const channel of readdirSync(dir).filter((name) => name.startsWith('channel_'))) {
    for (const file of readdirSync(join(dir, channel)).filter((name) => name.endsWith('.dat'))) {
      const path = join(dir, channel, file);
      truncateSync(path, statSync(path).size - 5);
    }
  }
  tools = await mcpInProcess({ default: dir }, { checkSource: checkSourceOpener([{ name: undefined, directory: dir }], {}, 'default') });
}, 60_000);
afterAll(async () => {
  await tools?.close();
  rmSync(work, { recursive: true, force: true });
});

interface StorageAnswer {
  name: string;
  entities: number;
  graph: { state: string; problemCount: number; problems: { file: string; offset: number; message: string }[] };
}

describe('storage_overview of a storage with problems', () => {
  it('counts the problems, lists the first ten as the API names them, and says how many more there are', async () => {
    const storage = await tools.api<StorageAnswer>('/storage');
    const problems = storage.graph.problems;
    expect(problems.length).toBe(21);
    expect(storage.graph.problemCount).toBe(21);
    const text = (await tools.text('storage_overview', {})).split('\n');
    expect(text[0]).toBe('storage default (MicroStream): cut-storage');
    expect(text[5]).toBe('types by size (10 of 121 type ids):');
    const at = text.indexOf('problems found while indexing: 21');
    expect(at).toBe(16);
    expect(text.slice(at + 1)).toEqual([
      ...problems.slice(0, 10).map((p) => `  ${p.file} @${p.offset}: ${p.message}`),
      'truncated: 11 more problems (structured content has them; check_storage for a full diagnosis)',
    ]);
    expect(text[at + 1]).toMatch(/^ {2}channel_0\/channel_0_8\.dat @\d+: record of \d+ bytes runs past the committed length \d+$/);
  });

  it('gives the family and the answers of /storage and /types?sort=bytes as its structured content', async () => {
    const result = await tools.call('storage_overview', { types: 3 });
    const content = result.structuredContent as { family: string; storage: StorageAnswer; types: unknown };
    expect(content.family).toBe('MicroStream');
    expect(content.types).toEqual(await tools.api('/types?sort=bytes&limit=3'));
    const storage = await tools.api<StorageAnswer>('/storage');
    expect(content.storage.name).toBe(storage.name);
    expect(content.storage.entities).toBe(storage.entities);
    expect(content.storage.graph.problems).toEqual(storage.graph.problems);
  });
});

describe('type_dictionary', () => {
  it('gives the class, its entries as the .ptd writes them and its rows of /types as structured content', async () => {
    const result = await tools.call('type_dictionary', { type: 'conformance.bookstore.Customer' });
    const content = result.structuredContent as { typeName: string; simpleName: string; entries: { typeId: string; text: string }[]; types: unknown[] };
    expect(content.typeName).toBe('conformance.bookstore.Customer');
    expect(content.simpleName).toBe('Customer');
    expect(content.entries.map((e) => e.typeId)).toEqual(['1000077']);
    expect(content.entries[0]!.text.split('\n')[0]).toBe('0000000000001000077 conformance.bookstore.Customer{');
    const rows = (await tools.api<{ types: { typeId: string }[] }>('/types?sort=typeId&limit=10000')).types.filter((t) => t.typeId === '1000077');
    expect(content.types).toEqual(rows);
  });
});

describe('list_types', () => {
  it('ends its last page without a cursor', async () => {
    const last = (await tools.api<{ types: { typeId: string }[] }>('/types?sort=typeId&offset=118&limit=3')).types.map((t) => t.typeId);
    const text = (await tools.text('list_types', { sort: 'typeId', limit: 3, cursor: '118' })).split('\n');
    expect(text[0]).toBe('121 type ids; 118..120:');
    expect(text.slice(1).map((l) => /\[type id (\d+)\]/.exec(l)?.[1])).toEqual(last);
  });
});

describe('analyze_storage of a storage with problems', () => {
  it('lists the missing references with their referrers, cut at examples, saying how many more', async () => {
    const analysis = await tools.api<{ missingReferences: { count: number } }>('/analysis?examples=2&referrers=3');
    expect(analysis.missingReferences.count).toBe(18);
    const text = (await tools.text('analyze_storage', { top: 1, examples: 2 })).split('\n');
    const at = text.indexOf('missing references: 18 id(s) referenced but not stored');
    expect(at).toBe(4);
    expect(text.slice(at + 1, at + 4)).toEqual([
      '  1000000000000000082, referred to by 1: 1000000000000000079 Address via street',
      '  1000000000000000167, referred to by 1: 1000000000000000165 Book via title',
      '  truncated: 16 more missing ids (raise examples, at most 100)',
    ]);
  });
});

describe('check_storage of a storage with problems', () => {
  it('says Java would refuse it, counts the findings and pages them with a cursor', async () => {
    const all = await tools.call('check_storage', { limit: 200 });
    const findings = (all.structuredContent as { problems: { code: string; file?: string; offset?: number }[]; problemsTotal: number }).problems;
    expect(findings.length).toBe(45);
    const page = await tools.call('check_storage', { limit: 2, cursor: '20' });
    const text = textOf(page).split('\n');
    expect(text.slice(0, 3)).toEqual([
      'check of default: Java would REFUSE to start; serious problems',
      '2 channel(s), 21 data files, 83678 committed bytes, 1245 of 1245 objects readable',
      '45 finding(s), most severe first:',
    ]);
    const content = page.structuredContent as { problems: unknown[]; problemsTotal: number; offset: number };
    expect(content.problems).toEqual(findings.slice(20, 22));
    expect([content.problemsTotal, content.offset]).toEqual([45, 20]);
    const first = findings[20]!;
    expect(text[3]).toMatch(new RegExp(`^ {2}\\[refuses-start\\] ${first.code} ${first.file!.replace(/[.]/g, '\\.')} @${first.offset}: `));
    expect(text[4]).toMatch(/^ {4}Java: one\.microstream\.storage\.exceptions\.StorageException: /);
    expect(text[5]).toMatch(/^ {4}rescue: keeps the records before offset \d+;/);
    expect(text.at(-1)).toBe('truncated: 23 more findings; next cursor "22"');
    expect(text.length).toBe(10);
  });
});
