import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTlsConfig } from '../../../src/http/guard/tls.js';

/**
 * --tls-cert / --tls-key (tls.ts): both or neither, each file read or named in the error, the
 * pair checked to be a certificate with its own key, and a key readable by others warned about.
 */

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../../security/fixtures');
const CERT = join(FIXTURES, 'localhost-cert.pem');
const dir = mkdtempSync(join(tmpdir(), 'tls-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The fixture's key, copied with the given file mode. */
function keyWithMode(name: string, mode: number): string {
  const path = join(dir, name);
  copyFileSync(join(FIXTURES, 'localhost-key.pem'), path);
  chmodSync(path, mode);
  return path;
}

function loaded(cert: string | undefined, key: string | undefined): { config: ReturnType<typeof loadTlsConfig>; warnings: string[] } {
  const warnings: string[] = [];
  return { config: loadTlsConfig(cert, key, (message) => warnings.push(message)), warnings };
}

describe('TLS configuration', () => {
  it('is off without either option, and reads both files of a pair', () => {
    expect(loaded(undefined, undefined)).toEqual({ config: undefined, warnings: [] });
    const key = keyWithMode('private.pem', 0o600);
    const { config, warnings } = loaded(CERT, key);
    expect(config?.cert.equals(readFileSync(CERT))).toBe(true);
    expect(config?.key.equals(readFileSync(key))).toBe(true);
    expect(warnings).toEqual([]);
  });

  it('refuses one option without the other', () => {
    expect(() => loaded(CERT, undefined)).toThrow('--tls-cert and --tls-key go together');
    expect(() => loaded(undefined, keyWithMode('alone.pem', 0o600))).toThrow('--tls-cert and --tls-key go together');
  });

  it('names the option and the file it cannot read', () => {
    const missing = join(dir, 'missing.pem');
    const key = keyWithMode('present.pem', 0o600);
    expect(() => loaded(missing, key)).toThrow(`cannot read --tls-cert ${missing}: ENOENT: no such file or directory, open '${missing}'`);
    expect(() => loaded(CERT, missing)).toThrow(`cannot read --tls-key ${missing}: ENOENT: no such file or directory, open '${missing}'`);
  });

  it('refuses a certificate with a key that is not its own, naming both files and the reason', () => {
    const otherKey = join(dir, 'other-key.pem');
    writeFileSync(otherKey, generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    expect(() => loaded(CERT, otherKey)).toThrow(
      new RegExp(`^--tls-cert ${CERT} / --tls-key ${otherKey}: not a usable PEM certificate and matching private key \\(.*key values mismatch\\)$`),
    );
    expect(() => loaded(CERT, CERT)).toThrow(/: not a usable PEM certificate and matching private key \(.+\)$/);
  });

  it('warns when the private key is readable by other users', () => {
    const shared = keyWithMode('shared.pem', 0o644);
    const { config, warnings } = loaded(CERT, shared);
    expect(config?.key.equals(readFileSync(shared))).toBe(true);
    expect(warnings).toEqual([`--tls-key ${shared} is readable by all users (mode 644); consider chmod 600`]);
  });
});
