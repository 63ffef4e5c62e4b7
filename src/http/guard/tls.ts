import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { UsageError } from '../../errors.js';
import { warnIfShared } from './auth.js';

/** Optional TLS: a PEM certificate (chain) and its private key, read once at start. */

export interface TlsConfig {
  readonly cert: Buffer;
  readonly key: Buffer;
}

export function loadTlsConfig(
  certFile: string | undefined,
  keyFile: string | undefined,
  warn: (message: string) => void,
): TlsConfig | undefined {
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) throw new UsageError('--tls-cert and --tls-key go together');
  const cert = readPem(certFile, '--tls-cert');
  const key = readPem(keyFile, '--tls-key');
  warnIfShared(keyFile, '--tls-key', warn);
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new UsageError(
      `--tls-cert ${certFile} / --tls-key ${keyFile}: not a usable PEM certificate and matching private key (${error instanceof Error ? error.message : String(error)})`,
    );
  }
  return { cert, key };
}

function readPem(path: string, option: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new UsageError(`cannot read ${option} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
