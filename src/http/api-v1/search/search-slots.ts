import type { StorageRegistry } from '../../../registry/storage-registry.js';
import { ApiProblem } from '../machinery/problem-details.js';
import { DEFAULT_SEARCH_MAX_CONCURRENT, MAX_SEARCH_MAX_CONCURRENT } from './search-limits.js';

/**
 * How many searches run at once. A search scans the whole storage for up to `maxMs` (30 s at
 * most) and holds read buffers while it does; fifty at once kept every other request of the
 * process waiting (measured: /health unanswered for 18 s) and took its memory past 2 GB. Beyond the
 * limit a search is refused at once, 503 with Retry-After, as SQL statements are
 * (`--sql-max-concurrent`). One count per registry: the searches of /api/v1 and those of the MCP
 * tools (requests injected into an API instance over the same registry) share it, so each
 * message of an MCP batch counts as one search.
 */

export { DEFAULT_SEARCH_MAX_CONCURRENT, MAX_SEARCH_MAX_CONCURRENT } from './search-limits.js';

export class SearchSlots {
  private running = 0;
  private max: number;

  constructor(limit: number = DEFAULT_SEARCH_MAX_CONCURRENT) {
    this.max = checkedLimit(limit);
  }

  get limit(): number {
    return this.max;
  }

  set limit(limit: number) {
    this.max = checkedLimit(limit);
  }

  /** Searches running now. */
  get inUse(): number {
    return this.running;
  }

  /** A slot, released by the function returned (once); a 503 problem when all are taken. */
  take(): () => void {
    if (this.running >= this.max) {
      throw new ApiProblem(503, 'Too Many Searches', `${this.running} searches are running, the limit is ${this.max} (--search-max-concurrent); ask again`, { 'retry-after': '1' });
    }
    this.running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
    };
  }
}

function checkedLimit(limit: number): number {
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_SEARCH_MAX_CONCURRENT) {
    throw new RangeError(`the search limit must be an integer from 1 to ${MAX_SEARCH_MAX_CONCURRENT}, not ${limit}`);
  }
  return limit;
}

const slotsOfRegistry = new WeakMap<StorageRegistry, SearchSlots>();

/** The slots of a registry's searches; a limit given sets it (`serve`), none keeps what is set. */
export function searchSlotsOf(registry: StorageRegistry, limit?: number): SearchSlots {
  let slots = slotsOfRegistry.get(registry);
  if (slots === undefined) {
    slots = new SearchSlots(limit);
    slotsOfRegistry.set(registry, slots);
  } else if (limit !== undefined) {
    slots.limit = limit;
  }
  return slots;
}
