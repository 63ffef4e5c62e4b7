import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Storage } from '../storage/storage.js';

/**
 * Answers name a storage's files relative to the storage (`channel_0/channel_0_3.dat`), never by
 * where the server keeps them: messages of errors and problems carry the file paths the server
 * read, which for a directory are absolute paths of the server's machine.
 */

/** `text` with every path inside the storage's directory made relative to it. */
export function relativeToStorage(storage: Storage, text: string): string {
  if (storage.source.kind !== 'directory') return text; // PostgreSQL names files `<table>/<file>` already
  let out = text;
  const given = storage.directory.endsWith(sep) ? storage.directory : `${storage.directory}${sep}`;
  const absolute = `${resolve(storage.directory)}${sep}`;
  for (const prefix of new Set([absolute, given])) out = out.split(prefix).join('');
  return out;
}

/** A file path of the storage as answers name it: relative to the storage directory. */
export function storageFileName(storage: Storage, file: string): string {
  if (storage.source.kind !== 'directory') return file;
  const inside = relative(resolve(storage.directory), resolve(file));
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? file : inside;
}

/** How answers name a storage kept in a directory: the directory's own name, not where it lies; other storages as their source names them. */
export function storageDirectoryName(storage: Storage, named: string = storage.directory): string {
  return storage.source.kind === 'directory' ? basename(resolve(named)) : named;
}

/** A copy of a JSON value (a report) with every text passed through `relativeToStorage`. */
export function relativeDeep<T>(storage: Storage, value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return relativeToStorage(storage, v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
