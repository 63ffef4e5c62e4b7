import { ApiError, type Api } from './api.js';

/**
 * Client of storage-inspector's own API (`/api/v1`): who refers to an object, paths from the
 * root, versions, types, garbage, search. The Java service has no such routes; the viewer asks
 * `available()` and offers these views only where they exist. While the server builds its graph
 * index the API answers 503 with Retry-After: requests wait and tell `onWait` how far it is.
 */

export interface Reference {
  readonly objectId: string;
  readonly typeName: string | null;
  readonly text?: string;
  readonly missing?: boolean;
}

export interface Via {
  readonly text: string;
  readonly member: string;
  readonly indices?: readonly number[];
  readonly element?: string;
  readonly key?: Reference;
  /** Further places in the same referrer. */
  readonly others?: readonly string[];
}

export interface Step {
  readonly objectId: string;
  readonly typeName: string;
  readonly via: Via | null;
  readonly lazyObjectId?: string;
  readonly summary?: string;
}

export interface TypeInfo {
  readonly typeId: string;
  readonly typeName: string;
  readonly current: boolean;
  readonly version: number;
  readonly instances: number;
  readonly liveBytes: number;
  readonly reachable: number;
  readonly reachableBytes: number;
  /** Instances that are a GigaMap's machinery (levels, indices, bitmaps, its Lazy segments), not the user's entities. */
  readonly gigaMapMachinery?: number;
}

export interface Member {
  readonly name: string;
  readonly declaringClass?: string;
  readonly type: string;
  readonly value?: unknown;
  readonly count?: number;
  readonly offset?: number;
  readonly elements?: readonly unknown[];
}

export interface ObjectView {
  readonly objectId: string;
  readonly typeId: string;
  readonly typeName: string;
  readonly text?: string;
  readonly reachable: boolean;
  readonly referrers: number;
  readonly members: readonly Member[];
}

export interface Version {
  readonly n: number;
  readonly current: boolean;
  readonly file: string;
  readonly fileNumber: string;
  readonly offset: number;
  readonly length: number;
  readonly typeName: string;
  readonly commit: { readonly kind: string; readonly time: string } | null;
}

export interface Change {
  readonly member: string;
  readonly index?: number;
  readonly before?: unknown;
  readonly after?: unknown;
}

export interface TypeBytes {
  readonly typeId: string;
  readonly typeName: string;
  readonly count: number;
  readonly bytes: number;
}

export interface Analysis {
  readonly reachable: { readonly count: number; readonly bytes: number; readonly byType: readonly TypeBytes[] };
  readonly unreachable: { readonly count: number; readonly bytes: number; readonly byType: readonly TypeBytes[] };
  readonly missingReferences: { readonly count: number; readonly examples: readonly { objectId: string; referrerCount: number; referrers: readonly Step[] }[] };
  readonly files: readonly { file: string; fileNumber: string; channel: number; totalBytes: number; liveBytes: number; supersededBytes: number; unreachableBytes: number }[];
}

export interface SearchResult {
  readonly complete: boolean;
  readonly stoppedBy: 'limit' | 'time' | null;
  readonly scannedBytes: number;
  readonly totalBytes: number;
  readonly offset: number;
  readonly typeName?: string;
  readonly results: readonly SearchHit[];
}

export interface SearchHit {
  readonly objectId: string;
  readonly typeName: string;
  readonly member: string;
  readonly text: string;
  readonly value: string | number | boolean;
  readonly valueObjectId?: string;
  readonly valueTypeName?: string;
  readonly summary?: string;
}

export interface Progress {
  readonly percent: number;
  readonly phase: string;
}

const MAX_WAIT_MS = 10 * 60 * 1000;

export class ApiV1 {
  private availability: Promise<boolean> | undefined;

  constructor(private readonly api: Api) {}

  url(path: string): string {
    // A storage served by name (`serve NAME=DIR ...`) has the instance `{instance}/{name}`.
    const slash = this.api.instance.indexOf('/');
    const storage = slash < 0 ? '' : `/storages/${encodeURIComponent(this.api.instance.slice(slash + 1))}`;
    return `${this.api.base}/api/v1${storage}${path}`;
  }

  /** Whether the server has this API (storage-inspector does; the Java service does not). */
  available(): Promise<boolean> {
    this.availability ??= this.api.fetch(this.url('/storage')).then(
      (response) => response.ok,
      () => {
        this.availability = undefined;
        return false;
      },
    );
    return this.availability;
  }

  async get<T>(path: string, what: string, onWait?: (progress: Progress) => void): Promise<T> {
    const url = this.url(path);
    const started = Date.now();
    for (;;) {
      const response = await this.api.fetch(url);
      const text = await response.text();
      if (response.ok) return JSON.parse(text) as T;
      const problem = parseProblem(text);
      if (response.status === 503 && problem?.progress !== undefined && Date.now() - started < MAX_WAIT_MS) {
        onWait?.(problem.progress);
        const seconds = Number(response.headers.get('retry-after') ?? '2');
        await new Promise((resolve) => setTimeout(resolve, Math.min(10, Math.max(1, seconds)) * 1000));
        continue;
      }
      if (response.status === 401 || response.status === 403) throw new ApiError('unauthorized', 'This server requires credentials.', response.status, url);
      const detail = problem?.detail ?? `the server answered ${response.status}`;
      throw new ApiError(response.status === 404 ? 'not-found' : 'server', `Cannot load ${what}: ${detail}.`, response.status, url);
    }
  }
}

function parseProblem(text: string): { detail?: string; progress?: Progress } | undefined {
  try {
    return JSON.parse(text) as { detail?: string; progress?: Progress };
  } catch {
    return undefined;
  }
}
