import { parseJavaLong } from '../../format/type-dictionary.js';
import type { QueryParameters } from './servlet-query.js';

/** The adapter's `getObject` arguments, as parsed by the framework. */
export interface ObjectRequest {
  readonly objectId: bigint;
  readonly fixedOffset: bigint;
  readonly fixedLength: bigint;
  readonly variableOffset: bigint;
  readonly variableLength: bigint;
  readonly valueLength: bigint;
  readonly references: boolean;
}

/** A request the Java service rejects with 404 and a plain message. */
export class ParameterError extends Error {}

const INT_MAX = 2147483647n;
const LONG_MAX = 9223372036854775807n;

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

/**
 * The object route's parameters as SparkJava's and Javalin's routes read them: the five paging
 * longs (absent: 0 or `Long.MAX_VALUE`), `references`, then the object id from the path.
 */
export function objectRequest(query: QueryParameters, oidText: string): ObjectRequest {
  const fixedOffset = longParameter(query, 'fixedOffset', 0n);
  const fixedLength = longParameter(query, 'fixedLength', LONG_MAX);
  const variableOffset = longParameter(query, 'variableOffset', 0n);
  const variableLength = longParameter(query, 'variableLength', LONG_MAX);
  const valueLength = longParameter(query, 'valueLength', LONG_MAX);
  const references = booleanParameter(query, 'references', false);
  const objectId = parseJavaLong(oidText);
  if (objectId === undefined) throw new ParameterError('invalid url parameter ObjectId');
  return { objectId, fixedOffset, fixedLength, variableOffset, variableLength, valueLength, references };
}
