/**
 * The limits of searches running at once (search-slots.ts says why there is one), apart from the
 * slots themselves so that `serve`'s options can name them without loading the API's modules,
 * which load on its first request (lazy-api-v1.ts).
 */
export const DEFAULT_SEARCH_MAX_CONCURRENT = 4;
/** The largest limit `serve --search-max-concurrent` takes. */
export const MAX_SEARCH_MAX_CONCURRENT = 1000;
