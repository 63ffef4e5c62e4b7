import { parseJavaLong } from '../format/type-dictionary.js';
import type { QueryParameters } from './servlet-query.js';

/** A request the Java service rejects with 404 and a plain message. */
export class ParameterError extends Error {}

const INT_MAX = 2147483647n;

/** A long query parameter parsed with `Long.parseLong`; absent → the default. */
export function longParameter(query: QueryParameters, name: string, fallback: bigint): bigint {
  const text = query.get(name);
  if (text === undefined) return fallback;
  const value = parseJavaLong(text);
  if (value === undefined) throw new ParameterError(`invalid url parameter ${name}`);
  return value;
}

/** `true`/`false` in any ASCII letter case; anything else is rejected. */
export function booleanParameter(query: QueryParameters, name: string, fallback: boolean): boolean {
  const text = query.get(name);
  if (text === undefined) return fallback;
  const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new ParameterError(`invalid url parameter ${name}`);
}

/** The only output format 4.1 ships is JSON, registered under exactly these keys. */
export function checkFormat(query: QueryParameters): void {
  const format = query.get('format');
  if (format !== undefined && format !== 'json' && format !== 'application/json') {
    throw new ParameterError('invalid url parameter format');
  }
}

/** Values above `Integer.MAX_VALUE` are clamped before use; negatives were rejected before. */
export function clampToInt(value: bigint): number {
  return Number(value > INT_MAX ? INT_MAX : value);
}
