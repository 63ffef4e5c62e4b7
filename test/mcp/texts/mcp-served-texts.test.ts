import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess, type McpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * The tools' texts with two storages served (evolution first, graph second) and a class stored in
 * two versions (evolution's Gadget, type ids 1000066 and 1000067): the overview names what is
 * served, an older version is marked as not current, listing a class by name lists its current
 * version and names the older one, `storage` picks the storage asked. Issue 48: these branches of
 * storage-tools.ts and search-tools.ts had no test reading their text.
 */

let tools: McpInProcess;
beforeAll(async () => {
  tools = await mcpInProcess({ evolution: join(CONFORMANCE_DIR, 'storages', 'evolution'), graph: join(CONFORMANCE_DIR, 'storages', 'graph') });
}, 60_000);
afterAll(() => tools?.close());

const lines = async (tool: string, args: Record<string, unknown>): Promise<string[]> => (await tools.text(tool, args)).split('\n');

describe('storage_overview', () => {
  it('names the storages served, counts, the types by size with an older version marked, and no problems', async () => {
    expect(await lines('storage_overview', { types: 4 })).toEqual([
      'storage evolution (MicroStream): evolution [served: evolution, graph]',
      'root object 1000000000000000028 (describe_object it to start browsing); roots entity 1000000000000000001',
      '55 entities, 1 channel(s), 1 data files, 4527 B (4125 B in latest records)',
      'last commit: 2026-11-22T03:49:32.229Z; state generation 1',
      'graph index: ready, 60 references',
      'types by size (4 of 110 type ids):',
      '  one.microstream.persistence.types.PersistenceRoots$Default [type id 1000052]: 1 instances, 1726 B',
      '  java.lang.String [type id 30]: 18 instances, 918 B, 5 unreachable',
      '  conformance.evolution.Gadget [type id 1000067]: 5 instances, 325 B',
      '  conformance.evolution.Gadget (version 1, not current) [type id 1000066]: 3 instances, 186 B, 1 unreachable',
      'problems: none found while indexing',
    ]);
  });

  it('answers for the storage asked, sizes past 10 KiB in KiB', async () => {
    const text = await lines('storage_overview', { storage: 'graph', types: 1 });
    expect(text[0]).toBe('storage graph (MicroStream): graph [served: evolution, graph]');
    expect(text[2]).toBe('1263 entities, 2 channel(s), 21 data files, 82 KiB (75 KiB in latest records)');
    expect(text[6]).toBe('  java.lang.String [type id 30]: 393 instances, 26 KiB, 14 unreachable');
  });
});

describe('type_dictionary', () => {
  it('shows every version of a class, only the newest marked current', async () => {
    const text = await lines('type_dictionary', { type: 'Gadget' });
    expect(text[0]).toBe('conformance.evolution.Gadget: 2 version(s) in the dictionary');
    expect(text[1]).toBe('type id 1000066: 3 instances, 186 B');
    expect(text).toContain('type id 1000067: 5 instances, 325 B, current');
    expect(text).toContain('    int                          conformance.evolution.Gadget#weight,');
    expect(text).toContain('    long                         conformance.evolution.Gadget#weight,');
  });
});

describe('list_instances', () => {
  it('lists the current version of a class given by name and names the older one with its instances', async () => {
    expect(await lines('list_instances', { type: 'Gadget' })).toEqual([
      '5 instance(s) of conformance.evolution.Gadget [type id 1000067] (older versions of the class have instances too: type id 1000066 (version 1, 3 instances)):',
      '1000000000000000030 1000000000000000032 1000000000000000033 1000000000000000049 1000000000000000050',
    ]);
  });

  it('lists the version asked by its type id, without naming others', async () => {
    const text = await lines('list_instances', { type: '1000066' });
    expect(text[0]).toBe('3 instance(s) of conformance.evolution.Gadget [type id 1000066]:');
    expect(text.length).toBe(2);
  });

  it('filters the current version by a part of a referenced text', async () => {
    expect(await lines('list_instances', { type: 'conformance.evolution.Gadget', member: 'name', contains: 'a' })).toEqual([
      'conformance.evolution.Gadget [type id 1000067] where name contains "a": 4 match(es) among instances 0..4 of 5 (older versions of the class have instances too: type id 1000066 (version 1, 3 instances))',
      '  1000000000000000032: name = → 1000000000000000039 String "alpha"',
      '  1000000000000000033: name = → 1000000000000000041 String "beta"',
      '  1000000000000000049: name = → 1000000000000000051 String "eta"',
      '  1000000000000000050: name = → 1000000000000000053 String "theta"',
    ]);
  });
});

describe('search', () => {
  it('names the class, the hits shown and why it stopped when it stops at its limit', async () => {
    expect(await lines('search', { query: 'a', type: 'Gadget', limit: 2 })).toEqual([
      '2 hit(s) for "a" in conformance.evolution.Gadget; hits 0..1 shown:',
      '  1000000000000000036 Gadget.price = "NaN"',
      '  1000000000000000032 Gadget.name = "alpha"',
      'truncated: more hits may match (scanned 3258 of 4527 bytes); next cursor "2"',
    ]);
  });

  it('searches only the version of a class given by its type id (by name: every version)', async () => {
    expect(await lines('search', { query: 'a', type: '1000066' })).toEqual([
      '4 hit(s) for "a" in conformance.evolution.Gadget:',
      '  1000000000000000036 Gadget.price = "NaN"',
      '  1000000000000000034 Gadget.name = "gamma"',
      '  1000000000000000035 Gadget.name = "delta"',
      '  1000000000000000036 Gadget.name = "zeta"',
    ]);
    expect((await lines('search', { query: 'a', type: 'Gadget' }))[0]).toBe('11 hit(s) for "a" in conformance.evolution.Gadget:');
  });

  it('searches the storage asked', async () => {
    const text = await lines('search', { query: 'Deutschland', storage: 'graph' });
    expect(text).toEqual(['1 hit(s) for "Deutschland":', '  1000000000000000037 Country.name = "Deutschland"']);
    expect(await lines('search', { query: 'Deutschland' })).toEqual(['0 hit(s) for "Deutschland":']);
  });
});
