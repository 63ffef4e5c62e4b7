import type { StorageContext, StorageRegistry, UnavailableStorage } from '../../registry/storage-registry.js';
import { ERROR_HEADER, type Answer } from './java-service.js';
import { routeListingEntries } from './documentation.js';
import { MAX_STORAGE_NAME_LENGTH, STORAGE_NAME_PATTERN } from '../../registry/storage-names.js';

/**
 * Several storages in one process, the way EclipseStore's Spring Boot controller
 * (`/store-data/{storageName}/...`) and the Micronaut controllers (`/microstream/{name}/...`)
 * serve them: each storage answers under `/{instance}/{name}/...` exactly as a single storage
 * answers under `/{instance}/...` (its instance being `{instance}/{name}`), and when only one
 * storage is served its single-storage routes answer as well. A storage is picked by its path
 * prefix before any other routing, so each dialect then routes, parses and fails as it always does.
 */

export type Resolution =
  /** A storage's own routes, under `instance` (`{instance}/{name}` for the named ones). */
  | { readonly kind: 'storage'; readonly context: StorageContext; readonly instance: string }
  /** A named storage that could not be opened. */
  | { readonly kind: 'unavailable'; readonly storage: UnavailableStorage }
  /** No storage: the dialect's own "not found" (SparkJava's `GET /` lists every storage's routes). */
  | { readonly kind: 'none' };

/** Storage names that could be taken for a route of the single-storage paths. */
const ROUTE_WORDS = new Set(['root', 'dictionary', 'object', 'maintenance']);

/** Why a storage name cannot be used, or undefined. */
export function storageNameProblem(name: string): string | undefined {
  if (name.length > MAX_STORAGE_NAME_LENGTH) return `${MAX_STORAGE_NAME_LENGTH} characters at most (it is ${name.length})`;
  if (!new RegExp(STORAGE_NAME_PATTERN).test(name)) return 'letters, digits, ".", "_" and "-", starting with a letter or digit';
  if (ROUTE_WORDS.has(name)) return `"${name}" is a route of the single-storage paths`;
  return undefined;
}

export function resolveStorage(registry: StorageRegistry, rawPath: string): Resolution {
  for (const context of registry.all()) {
    const instance = context.served?.instance;
    if (instance !== undefined && under(rawPath, `/${instance}/${context.name}`)) return { kind: 'storage', context, instance: `${instance}/${context.name}` };
  }
  for (const storage of registry.unavailable()) {
    const instance = storage.instance ?? rawPath.split('/')[1] ?? '';
    if (under(rawPath, `/${instance}/${storage.name}`)) return { kind: 'unavailable', storage };
  }
  const served = registry.all().filter((c) => c.served !== undefined);
  if (registry.size === 1 && served.length === 1) return { kind: 'storage', context: served[0]!, instance: served[0]!.served!.instance };
  return { kind: 'none' };
}

function under(rawPath: string, prefix: string): boolean {
  return rawPath === prefix || rawPath.startsWith(`${prefix}/`);
}

/** `GET /` with several storages: every storage's route list, in storage order, `/` listed once. */
export function combinedRouteListJson(registry: StorageRegistry, host: string | undefined): string {
  const entries: string[] = [];
  const seen = new Set<string>();
  for (const context of registry.all()) {
    if (context.served === undefined) continue;
    for (const entry of routeListingEntries(`${context.served.instance}/${context.name}`, host)) {
      if (!seen.has(entry)) entries.push(entry);
      seen.add(entry);
    }
  }
  return `[${entries.join(',')}]`;
}

/** The answer for a storage that could not be opened: 503, saying why. */
export function unavailableAnswer(storage: UnavailableStorage): Answer {
  const message = `the storage ${storage.name} is not served: ${storage.reason}`;
  return {
    status: 503,
    contentType: 'text/plain;charset=utf-8',
    body: Buffer.from(`${message}\n`),
    headers: { [ERROR_HEADER]: `STORAGE_UNAVAILABLE: ${message}`.replace(/[^\x20-\x7e]/g, '?').slice(0, 500) },
  };
}
