import { isAppError, type ErrorCode } from '../../errors.js';
import { JavaValueError } from '../../javatext/java-value-error.js';
import type { JavaTimeZone } from '../../javatext/java-time-zones.js';
import type { StorageFamily } from '../../format/storage-family.js';
import type { EntitySource } from '../../inspect/describe-object.js';
import type { StatisticsSource } from '../../inspect/statistics.js';
import type { BigAnswerAdmission } from '../guard/big-answers.js';
import type { Dialect } from './dialect-names.js';
import { RequestLimitError } from '../guard/limits.js';
import { QueryDecodeError } from './servlet-query.js';

/**
 * What the Java-compatible services (java-service.ts and the other dialects) take and give: the
 * raw request, the answer as status, content type and bytes, the state and options they answer
 * from, and Java's error pages with our error header. Its own module so that the services, the
 * REST adapter and the dialect switch can share it without importing each other.
 */

export interface RawRequest {
  readonly method: string;
  /** Request target as sent: raw path plus optional query. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

export interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: Buffer;
  /** Extra response headers (`X-Storage-Inspector-Error` on failures). */
  readonly headers?: Readonly<Record<string, string>>;
  /** For the log: why a 500 was answered. */
  readonly error?: unknown;
}

/** What the service reads from: one consistent state of the storage. */
export interface ServiceState extends EntitySource, StatisticsSource {
  readonly dictionaryBytes: Buffer;
  /** MicroStream or EclipseStore: whose roots type and texts apply. */
  readonly family: StorageFamily;
  readonly rootObjectId: bigint;
  /** Changes whenever the visible state changes (a following storage); cached checks depend on it. */
  readonly generation?: number;
  /** Runs one request against one consistent state (a following storage applies updates between requests). */
  consistent?<T>(fn: () => Promise<T>): Promise<T>;
}

export interface JavaServiceOptions {
  readonly instance: string;
  /** Which Java service to answer like (dialects.ts); `spark` when absent. */
  readonly dialect?: Dialect;
  readonly timeZone?: JavaTimeZone;
  /** Object answers above this many bytes are refused with 413 (default 256 MiB). */
  readonly maxResponseBytes?: number;
  /** Requests still running after this many milliseconds are answered 503 (default 30 s; 0 = none). */
  readonly requestTimeoutMs?: number;
  /** The body of SparkJava's route list (`GET /`) instead of this instance's (several storages, named-routes.ts). */
  readonly routeListing?: (host: string | undefined) => string;
}

/** Per request, from the HTTP layer. */
export interface RequestContext {
  /** Admission of a big answer (big-answers.ts); without it a big answer waits for a slot inline. */
  readonly admission?: BigAnswerAdmission;
}

/** Header naming why an answer failed: `<code>: <message>` (see docs/errors.md). */
export const ERROR_HEADER = 'x-storage-inspector-error';
/** Header saying that a damaged part of the storage may contradict an answer (see integrity.ts). */
export const WARNING_HEADER = 'x-storage-inspector-warning';
const MAX_ERROR_HEADER_LENGTH = 500;

export const HTML = 'text/html;charset=utf-8';
const NOT_FOUND_PAGE = Buffer.from('<html><body><h2>404 Not found</h2></body></html>');
const SERVER_ERROR_PAGE = Buffer.from('<html><body><h2>500 Internal Server Error</h2></body></html>');

export function notFoundPage(): Answer {
  return { status: 404, contentType: HTML, body: NOT_FOUND_PAGE };
}

/** Java's 500 page; the cause goes into the X-Storage-Inspector-Error header and the log. */
export function serverErrorPage(error: unknown): Answer {
  return { status: 500, contentType: HTML, body: SERVER_ERROR_PAGE, headers: { [ERROR_HEADER]: errorHeaderValue(error) }, error };
}

/** A failure of our own (a limit), not one of Java's answers: plain text saying what to do. */
export function limitAnswer(error: RequestLimitError): Answer {
  return {
    status: error.status,
    contentType: 'text/plain;charset=utf-8',
    body: Buffer.from(`${error.message}\n`),
    headers: { [ERROR_HEADER]: errorHeaderValue(error) },
    error,
  };
}

/** Stable code of an error: the AppError code, or a name for the few others. */
export function errorCode(error: unknown): ErrorCode {
  if (isAppError(error)) return error.code;
  if (error instanceof JavaValueError) return error.code;
  if (error instanceof RequestLimitError) return error.code;
  if (error instanceof QueryDecodeError) return 'QUERY_DECODE';
  const errno = (error as { code?: unknown } | null)?.code;
  if (typeof errno === 'string' && /^E[A-Z]+$/.test(errno)) return 'STORAGE_IO';
  return 'INTERNAL';
}

/** `<code>: <message>` as one line of printable ASCII of at most 500 characters. */
export function errorHeaderValue(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return headerText(`${errorCode(error)}: ${message}`);
}

/** One line of printable ASCII of at most 500 characters. */
export function headerText(text: string): string {
  const clean = text.replace(/[\r\n\t]+/g, ' ').replace(/[^\x20-\x7e]/g, '?');
  return clean.length <= MAX_ERROR_HEADER_LENGTH ? clean : `${clean.slice(0, MAX_ERROR_HEADER_LENGTH - 3)}...`;
}
