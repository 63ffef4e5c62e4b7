/**
 * What the OpenAPI documents say about /api/v1 as a whole: its description and its tags. Apart
 * from the plugin (api-v1-plugin.ts) so that the document's beginning (ops/openapi-routes.ts) can
 * be had without loading the API, which is loaded on its first request (lazy-api-v1.ts).
 */

/** What /api/v1/openapi.json says about itself (the whole application's is at /openapi.json). */
export const API_INFO = {
  title: 'storage-inspector API',
  description:
    'Questions about a MicroStream / EclipseStore storage that the Java-compatible API cannot answer: who references an object, how it is reachable, what is garbage, what takes the space, earlier versions of an object. Ids are decimal strings; errors are application/problem+json. While the graph index is being built, routes that need it answer 503 with Retry-After.',
};

export const API_TAGS = [
  { name: 'storage', description: 'the storage as a whole' },
  { name: 'types', description: 'instances and bytes per type' },
  { name: 'objects', description: 'objects, their referrers and paths from the roots' },
  { name: 'versions', description: 'earlier records of an object' },
  { name: 'history', description: 'commits, what each stored, and what changed between two points or two storages' },
  { name: 'analysis', description: 'garbage, missing references, wasted bytes' },
  { name: 'search', description: 'objects by text or value' },
  { name: 'gigamap', description: "EclipseStore GigaMaps: entities, indices, a key's entities" },
  { name: 'sql', description: 'SQL over the storage: every type a table (DuckDB, read-only statements)' },
];
