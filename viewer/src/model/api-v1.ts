import { ApiError, type Api } from './api.js';

/**
 * Client of storage-inspector's own API (`/api/v1`): who refers to an object, paths from the
 * root, versions, types, garbage, search. The Java service has no such routes; the viewer asks
 * `available()` and offers these views only where they exist. While the server builds its graph
 * index the API answers 503 with Retry-After: requests wait and tell `onWait` how far it is.
 */

export type { Reference, Via, Step, TypeInfo, Member, ObjectView, Version, Change, TypeBytes, Analysis, SearchResult, SearchHit, Progress } from './api-v1-types.js';
import type { Progress } from './api-v1-types.js';

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
