import type { FamilyName } from '../../format/storage-family.js';
import { gsonString } from '../../inspect/gson-json.js';

/**
 * The route listing (`GET /`) and the OPTIONS documentation of the Java service
 * (rest-rendering.md §5, §6). The documentation texts are the resource bundled with the
 * adapter, verbatim (including "informations"); EclipseStore's names two result types in a
 * package that does not exist (`org.eclipse.storage.restadapter.types`), as its answers show.
 */

const OPTIONS_DOC = '{"description":"get detailed informations"}';

const MICROSTREAM_GET_DOCS = {
  routes:
    '{"description":"get a list of all available routes","parameter":{},"responses":{"200":{"description":"OK","content":{"application/json":{"type":"object","description":"Json listing all available routes"}}}}}',
  root: '{"description":"get the user defined root","parameter":{},"responses":{"200":{"description":"OK","content":{"application/json":{"type":"object","properties":{"name":{"type":"string","description":"root name"},"objectId":{"type":"integer","format":"int64","description":"the root object id"}}}}}}}',
  dictionary:
    '{"description":"get storage type dictionary","parameter":{},"responses":{"200":{"description":"OK","content":{"application/text":{"type":"string","description":"storage type dictionary as a single string"}}}}}',
  statistics:
    '{"description":"get statistics for all storage files","parameter":{},"responses":{"200":{"description":"OK","content":{"application/json":{"type":"object","description":"one.microstream.storage.restadapter.ViewerStorageFileStatistics as Json"}}}}}',
  object:
    '{"description":"get an object by its id","parameters":[{"name":"objectId","in":"path","description":"object id of the requested object","required":true,"schema":{"type":"integer","format":"int64"}},{"name":"valueLength","description":"limit size of returned value elements to this value","in":"query","required":false,"schema":{"type":"integer","format":"int64"}},{"name":"fixedOffset","description":"index of the first fix sized element to fetch","in":"query","required":false,"schema":{"type":"integer","format":"int64"}},{"name":"fixedLength","description":"number of fix sized elements to be fetched","in":"query","required":false,"schema":{"type":"integer","format":"int64"}},{"name":"variableOffset","description":"index of the first element in variable sized collections to be fetched","in":"query","required":false,"schema":{"type":"integer","format":"int64"}},{"name":"variableLength","description":"number of elements to be fetched from variable sized collections","in":"query","required":false,"schema":{"type":"integer","format":"int64"}},{"name":"format","description":"requested response format","in":"query","required":false,"schema":{"type":"string","enum":["json"]}},{"name":"references","description":"resolve top level references and return them with this request","in":"query","required":false,"schema":{"type":"boolean"}}],"responses":{"200":{"description":"OK","content":{"application/json":{"type":"object","description":"one.microstream.storage.restadapter.ViewerRootDescription as Json"}}}}}',
} as const;

export type RouteName = keyof typeof MICROSTREAM_GET_DOCS;

const ECLIPSESTORE_GET_DOCS: Readonly<Record<RouteName, string>> = {
  ...MICROSTREAM_GET_DOCS,
  statistics: MICROSTREAM_GET_DOCS.statistics.replace(
    'one.microstream.storage.restadapter.ViewerStorageFileStatistics',
    'org.eclipse.storage.restadapter.types.ViewerStorageFileStatistics',
  ),
  object: MICROSTREAM_GET_DOCS.object.replace(
    'one.microstream.storage.restadapter.ViewerRootDescription',
    'org.eclipse.storage.restadapter.types.ViewerRootDescription',
  ),
};

const GET_DOCS: Readonly<Record<FamilyName, Readonly<Record<RouteName, string>>>> = {
  microstream: MICROSTREAM_GET_DOCS,
  eclipsestore: ECLIPSESTORE_GET_DOCS,
};

export interface RoutePath {
  readonly name: RouteName;
  /** The registered path, e.g. `/microstream/object/:oid`. */
  readonly path: string;
}

/** The registered paths in registration order (rest-rendering.md §1). */
export function routePaths(instance: string): RoutePath[] {
  return [
    { name: 'routes', path: '/' },
    { name: 'root', path: `/${instance}/root` },
    { name: 'dictionary', path: `/${instance}/dictionary` },
    { name: 'object', path: `/${instance}/object/:oid` },
    { name: 'statistics', path: `/${instance}/maintenance/filesStatistics` },
  ];
}

/** Documentation for OPTIONS on a raw path; undefined → `No documentation found`. */
export function documentationFor(
  family: FamilyName,
  instance: string,
  rawPath: string,
  method: string | undefined,
): string | undefined {
  const route = routePaths(instance).find((r) => r.path === rawPath);
  if (route === undefined) return undefined;
  const get = GET_DOCS[family][route.name];
  if (method === undefined) return `{"options":${OPTIONS_DOC},"get":${get}}`;
  if (method === 'get') return get;
  if (method === 'options') return OPTIONS_DOC;
  return undefined;
}

/**
 * `GET /`: one entry per path in the iteration order of the Java `Hashtable` (capacity 11) the
 * service collects them in: buckets ascending, later insertions first within a bucket.
 */
export function routeListingJson(instance: string, host: string | undefined): string {
  return `[${routeListingEntries(instance, host).join(',')}]`;
}

/** The entries of `routeListingJson`, in their order (several storages' lists are joined from these). */
export function routeListingEntries(instance: string, host: string | undefined): string[] {
  const paths = routePaths(instance).map((r) => r.path);
  const buckets = new Map<number, string[]>();
  for (const path of paths) {
    const bucket = (javaStringHash(path) & 0x7fffffff) % 11;
    buckets.set(bucket, [path, ...(buckets.get(bucket) ?? [])]);
  }
  const ordered = [...buckets.keys()].sort((a, b) => a - b).flatMap((b) => buckets.get(b) ?? []);
  const prefix = host ?? 'null';
  return ordered.map((path) => `{"URL":${gsonString(prefix + path, false)},"HttpMethod":["options","get"]}`);
}

/** Java `String.hashCode()` over UTF-16 code units, with int overflow. */
export function javaStringHash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}
