import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';
import { mcpInProcess } from '../../helpers/serving/mcp-in-process.js';

/**
 * What a client learns from tools/list, with the server made inside the test (so that a mutation
 * run counts the tools' registration as covered by it, not as static): every tool has a title, a
 * description naming the /api/v1 route that answers it, read-only hints and a described input
 * whose bounds are those documented; and every registered handler answers. Issue 48: a title or a
 * description emptied, an input left out or a handler lost went unnoticed.
 */
describe('the tool list', () => {
  it('gives every tool a title, a description naming what answers it, read-only hints, described and bounded inputs, and an answering handler', async () => {
    const tools = await mcpInProcess({ default: join(CONFORMANCE_DIR, 'storages', 'graph') });
    try {
      const listed = (await tools.client.listTools()).tools;
      expect(listed.map((t) => t.name).sort()).toEqual(
        ['analyze_storage', 'commits', 'describe_object', 'diff', 'list_instances', 'list_types', 'object_versions', 'paths_from_root', 'referrers', 'retained', 'search', 'storage_overview', 'type_dictionary'].sort(),
      );
      for (const tool of listed) {
        expect(tool.title, tool.name).toMatch(/^[A-Z][a-z]+,? [a-z].{3,}$/);
        expect(tool.annotations?.title, tool.name).toBe(tool.title);
        expect(tool.description, tool.name).toMatch(/\/api\/v1\//);
        expect(tool.description!.length, tool.name).toBeGreaterThan(100);
        expect(tool.annotations, tool.name).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
        const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
        for (const [name, property] of Object.entries(properties)) expect(property.description ?? '', `${tool.name}.${name}`).toMatch(/^[a-z"(].{10,}/);
      }
      const inputs = Object.fromEntries(listed.map((t) => [t.name, Object.keys(t.inputSchema.properties as object).sort()]));
      expect(inputs).toEqual({
        analyze_storage: ['examples', 'storage', 'top'],
        commits: ['cursor', 'limit', 'storage', 'timestamp'],
        describe_object: ['cursor', 'limit', 'objectId', 'storage'],
        diff: ['a', 'b', 'cursor', 'from', 'limit', 'storage', 'to', 'type'],
        list_instances: ['contains', 'cursor', 'equals', 'limit', 'member', 'storage', 'type'],
        list_types: ['cursor', 'limit', 'sort', 'storage'],
        object_versions: ['cursor', 'limit', 'objectId', 'storage', 'version'],
        paths_from_root: ['limit', 'objectId', 'storage'],
        referrers: ['cursor', 'limit', 'objectId', 'storage'],
        retained: ['cursor', 'limit', 'objectId', 'storage'],
        search: ['cursor', 'limit', 'maxMs', 'query', 'storage', 'type'],
        storage_overview: ['storage', 'types'],
        type_dictionary: ['storage', 'type'],
      });
      // The page sizes say what they count, their default and their bound, which is the schema's.
      const pageSizes: string[] = [];
      for (const tool of listed) {
        for (const [name, property] of Object.entries(tool.inputSchema.properties as Record<string, { type?: string; description?: string; maximum?: number }>)) {
          if (property.type !== 'integer' || name === 'version' || name === 'maxMs') continue;
          pageSizes.push(`${tool.name}.${name}`);
          expect(property.description, `${tool.name}.${name}`).toMatch(new RegExp(`^[a-z][a-z ,()]+ per answer \\(default \\d+, at most ${property.maximum}\\)$`));
        }
      }
      expect(pageSizes.length).toBe(13);
      const schema = (name: string, input: string) => (listed.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>)[input];
      expect(schema('object_versions', 'version')).toMatchObject({ minimum: 0, maximum: 1_000_000 });
      expect(schema('paths_from_root', 'limit')).toMatchObject({ minimum: 1, maximum: 10 });
      // The bounds of the texts and numbers a model may send, as a client learns them (a bound lost or
      // turned round lets an unbounded text through, or refuses every longer one): page sizes and
      // cursors apart, which are checked above and by the paging tests.
      const bounds: Record<string, Record<string, unknown>> = {};
      for (const tool of listed) {
        for (const [name, property] of Object.entries(tool.inputSchema.properties as Record<string, Record<string, unknown>>)) {
          if (name === 'cursor' || name === 'storage' || pageSizes.includes(`${tool.name}.${name}`)) continue;
          const bound = Object.fromEntries(Object.entries(property).filter(([key]) => ['minLength', 'maxLength', 'minimum', 'maximum', 'pattern'].includes(key)));
          bounds[`${tool.name}.${name}`] = bound;
        }
        expect(schema(tool.name, 'storage'), tool.name).toMatchObject({ maxLength: 64 });
        if (schema(tool.name, 'cursor') !== undefined) expect(schema(tool.name, 'cursor'), tool.name).toMatchObject({ pattern: '^[0-9]{1,9}$' });
      }
      const objectId = { pattern: '^[0-9]{1,19}$' };
      const point = { maxLength: 40, pattern: '^[0-9A-Za-z:.+\\-]+$' };
      expect(bounds).toEqual({
        'list_types.sort': {},
        'type_dictionary.type': { minLength: 1, maxLength: 1000 },
        'describe_object.objectId': objectId,
        'referrers.objectId': objectId,
        'paths_from_root.objectId': objectId,
        'object_versions.objectId': objectId,
        'object_versions.version': { minimum: 0, maximum: 1_000_000 },
        'list_instances.type': { minLength: 1, maxLength: 1000 },
        'list_instances.member': { minLength: 1, maxLength: 200 },
        'list_instances.equals': { maxLength: 1000 },
        'list_instances.contains': { minLength: 1, maxLength: 1000 },
        'search.query': { minLength: 1, maxLength: 1000 },
        'search.type': { minLength: 1, maxLength: 1000 },
        'search.maxMs': { minimum: 1, maximum: 30_000 },
        'retained.objectId': objectId,
        'commits.timestamp': objectId,
        'diff.from': point,
        'diff.to': point,
        'diff.a': { maxLength: 64 },
        'diff.b': { maxLength: 64 },
        'diff.type': { maxLength: 512 },
      });
      expect(schema('list_types', 'sort')!['enum']).toEqual(['bytes', 'instances', 'name', 'typeId']);
      // Every handler answers (no tool error, a text) for an object of the corpus.
      const bookstore = '1000000000000000028';
      for (const [name, args] of [
        ['describe_object', { objectId: bookstore, limit: 1 }],
        ['referrers', { objectId: bookstore }],
        ['paths_from_root', { objectId: bookstore }],
        ['object_versions', { objectId: bookstore }],
        ['list_types', { limit: 1 }],
        ['storage_overview', { types: 1 }],
        ['type_dictionary', { type: 'Bookstore' }],
        ['list_instances', { type: 'Bookstore' }],
        ['search', { query: 'Verse' }],
        ['retained', { objectId: bookstore, limit: 1 }],
        ['analyze_storage', { top: 1 }],
        ['commits', { limit: 1 }],
        ['diff', { limit: 1 }],
      ] as const) {
        const result = await tools.call(name, args);
        expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        expect((result.content[0] as { text: string }).text.length, name).toBeGreaterThan(20);
      }
      expect(await tools.text('paths_from_root', { objectId: bookstore, limit: 1 })).toMatch(/^1 shortest path\(s\) from the roots entity to 1000000000000000028:\n {2}1\. 1000000000000000001 PersistenceRoots\$Default \.instances\[\d+\] → /);
    } finally {
      await tools.close();
    }
  }, 60_000);
});
