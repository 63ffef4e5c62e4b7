/**
 * Hash routes (the page itself is always `/viewer/`):
 *
 *   #/<instance>                        data, from the storage root
 *   #/<instance>/object/<oid>           data, from that object
 *   #/<instance>/dictionary[/<typeId>]  the type dictionary
 *   #/<instance>/statistics             file statistics
 *   #/<instance>/types[/<typeId>]       types by bytes; with a type id, its instances (`?offset=`,
 *                                       `?reachable=false` the garbage, grid state: `sort`, `desc`,
 *                                       `where`, `hide`, `f.<column>`)
 *   #/<instance>/analysis               garbage, missing references, wasted bytes
 *   #/<instance>/retained[/<oid>]       the dominator tree (with an id, opened down to that object)
 *   #/<instance>/search?q=&type=&offset= objects by text or value
 *   #/<instance>/query?sql=             the SQL console
 *   #/<instance>/history[/<timestamp>]  the commits; with a timestamp, what that commit stored
 *   #/<instance>/history?from=&to=      what changed between two points (or `?a=&b=`: two storages)
 *
 * Data routes take `?path=a/[3]/b` (the selected node, ranges left out); the dictionary takes
 * `?q=` (the search text).
 */

export type Route =
  | { readonly view: 'data'; readonly instance: string | undefined; readonly oid: string | undefined; readonly path: readonly string[] }
  | { readonly view: 'dictionary'; readonly instance: string | undefined; readonly typeId: string | undefined; readonly query: string }
  | { readonly view: 'statistics'; readonly instance: string | undefined }
  | { readonly view: 'types'; readonly instance: string | undefined; readonly typeId: string | undefined; readonly offset: number; readonly reachable?: boolean; readonly grid?: GridState }
  | { readonly view: 'analysis'; readonly instance: string | undefined }
  | { readonly view: 'retained'; readonly instance: string | undefined; readonly oid: string | undefined }
  | { readonly view: 'search'; readonly instance: string | undefined; readonly query: string; readonly type: string; readonly offset: number }
  | { readonly view: 'query'; readonly instance: string | undefined; readonly sql: string }
  | { readonly view: 'history'; readonly instance: string | undefined; readonly timestamp: string | undefined; readonly compare?: Compare };

/** The two sides of a History comparison: two points of the storage (`to` empty: now), or two served storages. */
export type Compare = { readonly from: string; readonly to: string } | { readonly a: string; readonly b: string };

/** What a grid shows of its table, kept in the URL. */
export interface GridState {
  /** Sort column and direction. */
  readonly sort?: string;
  readonly desc?: boolean;
  /** The free SQL condition. */
  readonly where?: string;
  /** Per-column filter texts. */
  readonly filters?: Readonly<Record<string, string>>;
  readonly hidden?: readonly string[];
}

function gridOf(params: URLSearchParams): GridState | undefined {
  const filters: Record<string, string> = {};
  for (const [key, value] of params) if (key.startsWith('f.') && value !== '') filters[key.slice(2)] = value;
  const sort = params.get('sort') ?? undefined;
  const where = params.get('where') ?? undefined;
  // `hide=` (empty) says every column is shown; no `hide` leaves the grid its default.
  const hide = params.get('hide');
  const hidden = hide === null ? undefined : hide.split(',').filter((c) => c !== '');
  const grid: GridState = {
    ...(sort === undefined ? {} : { sort, desc: params.get('desc') === '1' }),
    ...(where === undefined || where === '' ? {} : { where }),
    ...(Object.keys(filters).length === 0 ? {} : { filters }),
    ...(hidden === undefined ? {} : { hidden }),
  };
  return Object.keys(grid).length === 0 ? undefined : grid;
}

function setGrid(params: URLSearchParams, grid: GridState | undefined): void {
  if (grid === undefined) return;
  if (grid.sort !== undefined) {
    params.set('sort', grid.sort);
    if (grid.desc === true) params.set('desc', '1');
  }
  if (grid.where !== undefined && grid.where !== '') params.set('where', grid.where);
  for (const [column, text] of Object.entries(grid.filters ?? {})) if (text !== '') params.set(`f.${column}`, text);
  if (grid.hidden !== undefined) params.set('hide', grid.hidden.join(','));
}

export function parseHash(hash: string): Route {
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = text.indexOf('?');
  const pathPart = q < 0 ? text : text.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : text.slice(q + 1));
  const segments = pathPart.split('/').filter((s) => s !== '').map(safeDecode);
  const instance = segments[0];
  const view = segments[1];
  if (view === 'dictionary') return { view: 'dictionary', instance, typeId: segments[2], query: params.get('q') ?? '' };
  if (view === 'statistics') return { view: 'statistics', instance };
  if (view === 'types') {
    const reachable = params.get('reachable');
    const grid = gridOf(params);
    return {
      view: 'types',
      instance,
      typeId: segments[2],
      offset: offsetOf(params),
      ...(reachable === 'true' || reachable === 'false' ? { reachable: reachable === 'true' } : {}),
      ...(grid === undefined ? {} : { grid }),
    };
  }
  if (view === 'analysis') return { view: 'analysis', instance };
  if (view === 'retained') return { view: 'retained', instance, oid: segments[2] !== undefined && /^\d{1,19}$/.test(segments[2]) ? segments[2] : undefined };
  if (view === 'search') return { view: 'search', instance, query: params.get('q') ?? '', type: params.get('type') ?? '', offset: offsetOf(params) };
  if (view === 'query') return { view: 'query', instance, sql: params.get('sql') ?? '' };
  if (view === 'history') {
    const timestamp = segments[2] !== undefined && /^\d{1,19}$/.test(segments[2]) ? segments[2] : undefined;
    const from = params.get('from');
    const a = params.get('a');
    const b = params.get('b');
    const compare: Compare | undefined = from !== null && from !== '' ? { from, to: params.get('to') ?? '' } : a !== null && b !== null && a !== '' && b !== '' ? { a, b } : undefined;
    return { view: 'history', instance, timestamp, ...(compare === undefined ? {} : { compare }) };
  }
  const path = (params.get('path') ?? '').split('/').filter((s) => s !== '');
  if (view === 'object' && segments[2] !== undefined) return { view: 'data', instance, oid: segments[2], path };
  return { view: 'data', instance, oid: undefined, path };
}

export function formatRoute(route: Route, instance: string): string {
  const base = `#/${encodeURIComponent(instance)}`;
  switch (route.view) {
    case 'statistics':
      return `${base}/statistics`;
    case 'types': {
      if (route.typeId === undefined) return `${base}/types`;
      const params = new URLSearchParams();
      if (route.offset > 0) params.set('offset', String(route.offset));
      if (route.reachable !== undefined) params.set('reachable', String(route.reachable));
      setGrid(params, route.grid);
      const text = params.toString();
      return `${base}/types/${route.typeId}${text === '' ? '' : `?${text}`}`;
    }
    case 'query':
      return `${base}/query${route.sql === '' ? '' : `?${new URLSearchParams({ sql: route.sql }).toString()}`}`;
    case 'analysis':
      return `${base}/analysis`;
    case 'history': {
      const params = new URLSearchParams();
      const c = route.compare;
      if (c !== undefined && 'from' in c) {
        params.set('from', c.from);
        if (c.to !== '') params.set('to', c.to);
      } else if (c !== undefined) {
        params.set('a', c.a);
        params.set('b', c.b);
      }
      const text = params.toString();
      return `${base}/history${route.timestamp === undefined ? '' : `/${route.timestamp}`}${text === '' ? '' : `?${text}`}`;
    }
    case 'retained':
      return `${base}/retained${route.oid === undefined ? '' : `/${route.oid}`}`;
    case 'search': {
      const params = new URLSearchParams();
      if (route.query !== '') params.set('q', route.query);
      if (route.type !== '') params.set('type', route.type);
      if (route.offset > 0) params.set('offset', String(route.offset));
      const text = params.toString();
      return `${base}/search${text === '' ? '' : `?${text}`}`;
    }
    case 'dictionary': {
      const q = route.query === '' ? '' : `?q=${encodeURIComponent(route.query)}`;
      return `${base}/dictionary${route.typeId === undefined ? '' : `/${route.typeId}`}${q}`;
    }
    case 'data': {
      const path = route.path.length === 0 ? '' : `?path=${route.path.map(encodePathSegment).join('/')}`;
      return `${route.oid === undefined ? base : `${base}/object/${route.oid}`}${path}`;
    }
  }
}

function offsetOf(params: URLSearchParams): number {
  const n = Number(params.get('offset') ?? '0');
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%5B/g, '[').replace(/%5D/g, ']');
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** An object id typed or pasted by the user (`1000000000000000028`, a URL or deep link with one). */
export function parseObjectIdInput(text: string): string | undefined {
  const trimmed = text.trim().replace(/[\s,_']/g, '');
  if (/^\d{1,19}$/.test(trimmed)) return BigInt(trimmed).toString();
  const match = /object\/(\d{1,19})(?:\D|$)/.exec(text.trim());
  return match?.[1] === undefined ? undefined : BigInt(match[1]).toString();
}
