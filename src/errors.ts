/**
 * One error hierarchy for the whole tool. Codes are stable identifiers, messages may change.
 * `ERROR_CODES` is every code a failure is reported with, and docs/errors.md's table lists exactly
 * these (test/docs/error-codes.test.ts). Only `http/` maps codes to statuses and only `cli/` maps
 * them to exit codes.
 */

/** The codes an `AppError` carries: what reading a storage, and the command line, fail with. */
export const APP_ERROR_CODES = [
  'FORMAT_TRUNCATED',
  'FORMAT_BAD_RECORD',
  'FORMAT_BAD_LIST',
  'FORMAT_DICTIONARY_SYNTAX',
  'FORMAT_UNKNOWN_TYPE_ID',
  'FORMAT_BAD_LOG',
  'FORMAT_JAVA_VALUE',
  'STORAGE_NOT_A_STORAGE',
  'STORAGE_INCONSISTENT',
  'STORAGE_IO',
  'STORAGE_UNAVAILABLE',
  'STORAGE_REFUSED',
  'STORAGE_TRUNCATED',
  'STORAGE_FILE_GONE',
  'STORAGE_NOT_OPEN',
  'OBJECT_NOT_FOUND',
  'USAGE',
] as const;

/**
 * The server's codes for failures that are not `AppError`s: a query Jetty cannot decode (Java
 * fails on it too), the server's limits (`http/guard`), and `INTERNAL` for anything unexpected.
 */
export const SERVER_ERROR_CODES = ['QUERY_DECODE', 'RESPONSE_TOO_LARGE', 'REQUEST_TIMEOUT', 'SERVER_BUSY', 'SHUTTING_DOWN', 'TOO_MANY_CONNECTIONS', 'INTERNAL'] as const;

export type AppErrorCode = (typeof APP_ERROR_CODES)[number];
export type ServerErrorCode = (typeof SERVER_ERROR_CODES)[number];
/** Every code a failure is reported with (the `X-Storage-Inspector-Error` header, the log). */
export type ErrorCode = AppErrorCode | ServerErrorCode;

export const ERROR_CODES: readonly ErrorCode[] = [...APP_ERROR_CODES, ...SERVER_ERROR_CODES];

export interface AppErrorOptions {
  readonly cause?: unknown;
}

export class AppError extends Error {
  readonly code: AppErrorCode;

  constructor(code: AppErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bytes or text that do not follow the MicroStream format; carries where it was found. */
export class FormatError extends AppError {
  readonly file: string | undefined;
  readonly offset: number | undefined;

  constructor(
    code: AppErrorCode,
    message: string,
    where: { readonly file?: string | undefined; readonly offset?: number | undefined } = {},
    options: AppErrorOptions = {},
  ) {
    const place = [where.file, where.offset === undefined ? undefined : `offset ${where.offset}`]
      .filter((part) => part !== undefined)
      .join(' at ');
    super(code, place === '' ? message : `${place}: ${message}`, options);
    this.file = where.file;
    this.offset = where.offset;
  }
}

/** Problems with the storage directory as a whole: missing parts, inconsistent logs, I/O. */
export class StorageError extends AppError {}

/** A lookup that found nothing; the message is the one Java's service sends. */
export class NotFoundError extends AppError {
  constructor(message: string) {
    super('OBJECT_NOT_FOUND', message);
  }
}

/** A bad command line or option value. */
export class UsageError extends AppError {
  constructor(message: string) {
    super('USAGE', message);
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
