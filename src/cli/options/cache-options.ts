import { type Command, Option } from 'commander';
import { DEFAULT_CACHE_MAX_BYTES, defaultCacheDirectory, TableCache } from '../../sql/cache/table-cache.js';
import { fromEnv, integerOption, sizeText } from './option-values.js';

/**
 * Where the SQL tables are kept between runs (sql/cache/table-cache.ts), the same options for `sql`,
 * `serve`, `export`, `mcp` and `cache`: the directory, off, and its size cap.
 */

const MIN_CACHE_BYTES = 1024 * 1024;
const MAX_CACHE_BYTES = 2 ** 50;

export function withCacheOptions(command: Command, canTurnOff = true): Command {
  command.addOption(fromEnv(new Option('--cache-dir <dir>', `where the built SQL tables are kept between runs (default ${defaultCacheDirectory()}, from XDG_CACHE_HOME; see docs/sql.md)`)));
  if (canTurnOff) command.addOption(fromEnv(new Option('--no-cache', 'build the SQL tables in every run; keep nothing between runs')));
  return command.addOption(fromEnv(integerOption('--cache-max-size', 'bytes', `the kept SQL tables together at most; the entries used longest ago are dropped (default ${sizeText(DEFAULT_CACHE_MAX_BYTES)})`, MIN_CACHE_BYTES, MAX_CACHE_BYTES, 'bytes')));
}

export interface CacheOptionValues {
  cache?: boolean;
  cacheDir?: string;
  cacheMaxSize?: number;
}

/** What was given (nothing when nothing was: the defaults apply). */
export interface CacheArgs {
  readonly off?: true;
  readonly directory?: string;
  readonly maxBytes?: number;
}

export function cacheArgsOf(values: CacheOptionValues): CacheArgs {
  return {
    ...(values.cache === false ? { off: true as const } : {}),
    ...(values.cacheDir === undefined ? {} : { directory: values.cacheDir }),
    ...(values.cacheMaxSize === undefined ? {} : { maxBytes: values.cacheMaxSize }),
  };
}

/** The cache these arguments name; undefined with --no-cache. No file is touched until it is used. */
export function tableCacheOf(args: CacheArgs = {}): TableCache | undefined {
  if (args.off === true) return undefined;
  return new TableCache(args.directory ?? defaultCacheDirectory(), args.maxBytes ?? DEFAULT_CACHE_MAX_BYTES);
}
