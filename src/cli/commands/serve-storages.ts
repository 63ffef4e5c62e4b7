import type { FastifyBaseLogger } from 'fastify';
import { StorageError, UsageError } from '../../errors.js';
import { defaultInstance, type Dialect } from '../../http/java/dialects.js';
import type { StorageDamage } from '../../damaged/readable-part.js';
import { chunkDamageOf, type ChunkDamage } from '../../damaged/chunk-damage.js';
import { checkServable } from '../../http/java/integrity.js';
import { storageNameProblem } from '../../http/java/named-routes.js';
import type { StorageRegistry } from '../../registry/storage-registry.js';
import { FollowStatus } from '../../storage/follow/follow-status.js';
import { StorageFollower } from '../../storage/follow/follow.js';
import { checkStorageSpec, isPostgresSpec, openStorageSource, type SourceSpecOptions } from '../../storage/open-source.js';
import { Storage, type OpenProgress } from '../../storage/storage.js';
import { graphProgressReporter } from '../output/graph-progress.js';
import type { CommandIo } from '../io.js';

/**
 * The storages `serve` was given: one directory, or `NAME=DIR` for each of several. Each is
 * opened, indexed, followed and reported on its own; with several, one that cannot be opened is
 * reported and answered as unavailable while the others are served.
 */

export interface StorageSpec {
  /** undefined for the plain `serve DIR` form (registered as `default`). */
  readonly name: string | undefined;
  readonly directory: string;
}

/** The name a single unnamed storage gets (as EclipseStore's Spring Boot controller names it). */
export const DEFAULT_STORAGE_NAME = 'default';

/**
 * `--table` and `--pg-password-file` apply to the storages given as postgres:// URLs; given
 * without any such storage they are refused (as with one storage).
 */
export function checkStorageSpecs(specs: readonly StorageSpec[], options: SourceSpecOptions): void {
  if (!specs.some((s) => isPostgresSpec(s.directory))) checkStorageSpec(specs[0]!.directory, options);
  for (const spec of specs) checkStorageSpec(spec.directory, isPostgresSpec(spec.directory) ? options : {});
}

/** `DIR` or `NAME=DIR` arguments (DIR may be a postgres:// URL); a path that itself contains `=` can be given as `./a=b`. */
export function parseStorageSpecs(args: readonly string[]): StorageSpec[] {
  if (args.length === 0 || args.some((a) => a === '')) {
    throw new UsageError(`expected a storage directory, or NAME=DIR for each of several storages; see 'storage-inspector serve --help'`);
  }
  const specs = args.map((arg): StorageSpec => {
    const eq = arg.indexOf('=');
    const name = eq < 0 ? undefined : arg.slice(0, eq);
    // Only a name-shaped prefix makes NAME=: `./a=b` and `postgres://...?x=y` are storages themselves.
    if (name === undefined || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) return { name: undefined, directory: arg };
    const problem = storageNameProblem(name);
    if (problem !== undefined) throw new UsageError(`invalid storage name "${name}": ${problem}`);
    if (arg.length === eq + 1) throw new UsageError(`no directory for the storage ${name}`);
    return { name, directory: arg.slice(eq + 1) };
  });
  if (specs.length > 1 && specs.some((s) => s.name === undefined)) {
    throw new UsageError('several storages need a name each: NAME=DIR NAME=DIR ...');
  }
  const names = new Set<string>();
  for (const spec of specs) {
    if (spec.name === undefined) continue;
    if (names.has(spec.name)) throw new UsageError(`the storage name ${spec.name} is given twice`);
    names.add(spec.name);
  }
  return specs;
}

export interface ServedStorageSettings {
  readonly instance?: string | undefined;
  readonly dialect: Dialect;
  readonly follow: boolean;
  readonly pollIntervalMs: number;
  /** Symbolic links that lead out of the storage directory are followed (default: refused). */
  readonly allowExternalLinks?: boolean | undefined;
  /** A type dictionary larger than this is refused (also while following). */
  readonly maxDictionaryBytes: number;
  /** Bytes of records read lately kept in memory per storage (default: the Storage's). */
  readonly recordCacheBytes?: number | undefined;
  /** Refuse a storage MicroStream would refuse, instead of serving what can be read of it. */
  readonly strict?: boolean | undefined;
}

/** One opened storage with its follower. */
export interface OpenedStorage {
  readonly name: string;
  readonly directory: string;
  readonly storage: Storage;
  readonly instance: string;
  readonly follower: StorageFollower | undefined;
  readonly followStatus: FollowStatus | undefined;
}

export interface OpenedStorages {
  readonly opened: readonly OpenedStorage[];
  /** Set once the server's logger exists: followers log through it. */
  setLogger(logger: FastifyBaseLogger): void;
  start(): void;
  stop(): Promise<void>;
}

/** Opens every storage (one after the other) and registers it; throws when none can be served. */
export async function openStorages(
  specs: readonly StorageSpec[],
  settings: ServedStorageSettings,
  sourceOptions: SourceSpecOptions,
  registry: StorageRegistry,
  io: CommandIo,
): Promise<OpenedStorages> {
  const several = specs.length > 1;
  const opened: OpenedStorage[] = [];
  let logger: FastifyBaseLogger | undefined;
  let firstError: unknown;
  for (const spec of specs) {
    const name = spec.name ?? DEFAULT_STORAGE_NAME;
    const say = (text: string): void => void io.stderr.write(`storage-inspector: ${several ? `[${name}] ` : ''}${text}\n`);
    const started = Date.now();
    let storage: Storage;
    let damage: readonly StorageDamage[] = [];
    let chunks: ChunkDamage | undefined;
    try {
      const openSource = () => openStorageSource(spec.directory, isPostgresSpec(spec.directory) ? sourceOptions : {});
      const openOptions = {
        onProgress: progressPrinter(say, started),
        allowExternalLinks: settings.allowExternalLinks === true,
        maxDictionaryBytes: settings.maxDictionaryBytes,
        ...(settings.recordCacheBytes === undefined ? {} : { recordCacheBytes: settings.recordCacheBytes }),
      };
      try {
        storage = await Storage.open(openSource(), openOptions);
      } catch (error) {
        if (settings.strict === true) throw error;
        // Loaded only for a refused storage (with Java's start-up analysis): not before the first answer.
        const { damageLine, isRefusedDamage, openReadablePart } = await import('../../damaged/readable-part.js');
        if (!isRefusedDamage(error)) throw error;
        // MicroStream would refuse it; its owners most need to look inside: serve what can be read.
        ({ storage, damage } = await openReadablePart(openSource(), openOptions));
        say(`warning: MicroStream would refuse this storage (${error instanceof Error ? error.message : String(error)}); serving what can be read of it, as found (not followed); --strict refuses it`);
        for (const d of damage) say(`damage: ${damageLine(d)}`);
      }
      try {
        checkServable(storage);
        // EclipseStore 4.2's chunk checksums: damaged chunks are shown, their objects marked; --strict refuses as 4.2 does.
        chunks = await chunkDamageOf(storage);
        if (chunks.refusal !== undefined && settings.strict === true) {
          throw new StorageError('STORAGE_INCONSISTENT', `${spec.directory}: EclipseStore 4.2 with the checksum setting its files name refuses this storage: ${chunks.refusal} (without --strict the bytes are served as they are, the damaged chunks' objects marked)`);
        }
        if (chunks.damage.length > 0) {
          say(`warning: chunk checksums: ${chunks.damage.filter((d) => d.severity === 'refuses-start').length} damaged chunk(s); serving the bytes as they are (as EclipseStore 4.2 without a checksum setting does), the objects in them marked; --strict refuses it`);
          const { damageLine } = await import('../../damaged/readable-part.js');
          for (const d of chunks.damage) say(`damage: ${damageLine(d)}`);
          damage = [...damage, ...chunks.damage];
        }
      } catch (error) {
        await storage.close();
        throw error;
      }
    } catch (error) {
      if (!several) throw error;
      firstError ??= error;
      const reason = error instanceof Error ? error.message : String(error);
      say(`error: not served: ${reason}`);
      registry.addUnavailable({ name, instance: settings.instance, reason });
      continue;
    }
    const files = storage.channels.reduce((n, c) => n + c.files.length, 0);
    say(`indexed ${storage.entityCount} entities in ${files} data files of ${storage.channels.length} channel(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (const warning of storage.warnings) say(`warning: ${warning}`);
    const instance = settings.instance ?? defaultInstance(settings.dialect, storage.family);
    // Not ready once the state has not been confirmed current for ten looks (at least 10 s).
    const follow = settings.follow && damage.length === 0;
    const followStatus = follow
      ? new FollowStatus({ following: true, staleAfterMs: Math.max(10_000, 10 * settings.pollIntervalMs), problems: () => follower?.problems ?? [] })
      : undefined;
    const context = several ? { storage: name } : {};
    const follower: StorageFollower | undefined = follow
      ? new StorageFollower(storage, {
          pollIntervalMs: settings.pollIntervalMs,
          onRefresh: (event) => {
            followStatus?.record(event);
            if (event.kind === 'changed') logger?.info({ ...context, generation: event.generation, ms: event.ms }, 'storage changed');
          },
          // Once when a problem appears and once when it clears, on stderr for people and in the log.
          onProblem: (report) => {
            const { code, message } = report.problem;
            const meanwhile = report.unreported > 0 ? ` (it came and went ${report.unreported} more time(s) since the last report)` : '';
            if (report.kind === 'appeared') {
              say(`following: problem: ${message}${meanwhile}; serving the last complete state`);
              logger?.warn({ ...context, code, problem: message, unreported: report.unreported }, 'following problem');
            } else {
              say(`following: solved: ${message}${meanwhile}`);
              logger?.info({ ...context, code, problem: message, unreported: report.unreported }, 'following problem solved');
            }
          },
        })
      : undefined;
    registry.add(name, storage, graphProgressReporter(io, several ? `[${name}] graph index` : 'graph index'), {
      instance,
      ...(follower === undefined ? {} : { catchUp: () => follower.refreshNow() }),
      ...(damage.length === 0 ? {} : { damage }),
      ...(chunks === undefined || chunks.objects.size === 0 ? {} : { damagedObjects: chunks.objects }),
    });
    opened.push({ name, directory: spec.directory, storage, instance, follower, followStatus });
  }
  if (opened.length === 0) throw firstError;
  return {
    opened,
    setLogger: (l) => {
      logger = l;
    },
    start: () => {
      for (const o of opened) o.follower?.start();
    },
    stop: async () => {
      for (const o of opened) await o.follower?.stop();
    },
  };
}

/** Progress while indexing takes longer than a second, at most once a second. */
function progressPrinter(say: (text: string) => void, started: number): (p: OpenProgress) => void {
  let last = started;
  return (p) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal);
    say(`indexing ${percent}% (${p.filesDone}/${p.filesTotal} files, ${p.entities} entities so far)`);
  };
}
