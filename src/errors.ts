/**
 * One error hierarchy for the whole tool. Codes are stable identifiers (listed in docs/errors.md);
 * messages may change. Only `http/` maps codes to statuses and only `cli/` maps them to exit codes.
 */
export type ErrorCode =
  | 'FORMAT_TRUNCATED'
  | 'FORMAT_BAD_RECORD'
  | 'FORMAT_BAD_LIST'
  | 'FORMAT_DICTIONARY_SYNTAX'
  | 'FORMAT_UNKNOWN_TYPE_ID'
  | 'FORMAT_BAD_LOG'
  | 'FORMAT_JAVA_VALUE'
  | 'STORAGE_NOT_A_STORAGE'
  | 'STORAGE_INCONSISTENT'
  | 'STORAGE_IO'
  | 'STORAGE_UNAVAILABLE'
  | 'STORAGE_REFUSED'
  | 'STORAGE_TRUNCATED'
  | 'STORAGE_FILE_GONE'
  | 'STORAGE_NOT_OPEN'
  | 'OBJECT_NOT_FOUND'
  | 'USAGE';

export interface AppErrorOptions {
  readonly cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
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
    code: ErrorCode,
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
