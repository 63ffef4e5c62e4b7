/**
 * The one rule for storage names (`serve NAME=DIR`): they are path segments of the Java-compatible
 * routes (`/{instance}/{name}/...`) and of `/api/v1/storages/{name}`, so `serve` accepts exactly
 * the names the API's schema lets through.
 */

export const MAX_STORAGE_NAME_LENGTH = 64;

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit, 64 characters at most. */
export const STORAGE_NAME_PATTERN = `^[A-Za-z0-9][A-Za-z0-9._-]{0,${MAX_STORAGE_NAME_LENGTH - 1}}$`;
