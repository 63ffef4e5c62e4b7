import { type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { CACHE_LAYOUT } from '../../sql/cache/table-cache.js';
import { obsoleteEntries } from '../../sql/cache/obsolete-layouts.js';
import { cacheArgsOf, tableCacheOf, withCacheOptions, type CacheOptionValues } from '../options/cache-options.js';
import type { CommandIo } from '../io.js';
import { parseCommand, sizeText, toolCommand } from '../options/option-values.js';

const mib = (bytes: number): string => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

const DESCRIPTION =
  'The SQL tables kept between runs (sql, serve, export and mcp keep them; see docs/sql.md): `cache list` shows each kept storage state (its directory, size, tables filled, last use), `cache clear` drops them all. A storage that changed is never answered from the cache.';

export function cacheCommand(): Command {
  return withCacheOptions(toolCommand('cache').description(DESCRIPTION).argument('<action>', 'list or clear'), false);
}

export async function run(args: string[], io: CommandIo): Promise<void> {
  const command = cacheCommand();
  if (parseCommand(command, args) === 'help') {
    io.stdout.write(command.helpInformation());
    return;
  }
  const [action, ...extra] = command.args;
  if (extra.length > 0 || (action !== 'list' && action !== 'clear')) throw new UsageError(`'storage-inspector cache list' or 'storage-inspector cache clear' is expected`);
  const cache = tableCacheOf(cacheArgsOf(command.opts<CacheOptionValues>()))!;
  if (action === 'clear') {
    const dropped = await cache.clear();
    io.stdout.write(`dropped ${dropped} kept SQL ${dropped === 1 ? 'database' : 'databases'} from ${cache.directory}\n`);
    return;
  }
  const entries = await cache.list();
  const total = entries.reduce((n, e) => n + e.bytes, 0);
  io.stdout.write(`${cache.directory}: ${entries.length} kept SQL ${entries.length === 1 ? 'database' : 'databases'}, ${mib(total)} of at most ${sizeText(cache.maxBytes)}\n`);
  for (const entry of entries) {
    io.stdout.write(`  ${entry.lastUsed.toISOString()}  ${mib(entry.bytes).padStart(12)}  ${String(entry.filled).padStart(4)} filled  ${entry.storage}\n`);
  }
  // Never read again; dropped by the next write of the cache (obsolete-layouts.ts) or by `cache clear`.
  const obsolete = await obsoleteEntries(cache.directory, CACHE_LAYOUT);
  if (obsolete.length === 0) return;
  const obsoleteBytes = obsolete.reduce((n, e) => n + e.bytes, 0);
  io.stdout.write(
    `${obsolete.length} obsolete ${obsolete.length === 1 ? 'entry' : 'entries'} of an earlier layout, ${mib(obsoleteBytes)}: never read, dropped by the next write of the cache or by 'cache clear'\n`,
  );
  for (const entry of obsolete) io.stdout.write(`  ${entry.lastUsed.toISOString()}  ${mib(entry.bytes).padStart(12)}  obsolete (${entry.layout})  ${entry.storage}\n`);
}
