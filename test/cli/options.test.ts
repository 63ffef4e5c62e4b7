import { afterEach, describe, expect, it, vi } from 'vitest';
import { join } from 'node:path';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { parseGenerateArgs } from '../../src/cli/commands/generate.js';
import { openStorages } from '../../src/cli/commands/serve-storages.js';
import { StorageRegistry } from '../../src/registry/storage-registry.js';
import { DEFAULT_RECORD_CACHE_BYTES } from '../../src/storage/record-cache.js';
import { DEFAULT_MAX_DICTIONARY_BYTES } from '../../src/storage/storage.js';
import { runCliInProcess } from '../helpers/serving/cli-in-process.js';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { toolVersion } from '../../src/cli/run-cli.js';
import { UsageError } from '../../src/errors.js';

/** Option ranges, environment variables and the tool-level flags of the command line. */

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('command line options', () => {
  it('refuses numbers outside their range, naming the range', () => {
    expect(() => parseServeArgs(['dir', '--poll-interval', '99999999999'])).toThrow(/invalid --poll-interval "99999999999": an integer from 10 to 3600000 \(milliseconds\)/);
    expect(() => parseServeArgs(['dir', '--poll-interval', '5'])).toThrow(/from 10 to 3600000/);
    expect(() => parseServeArgs(['dir', '--request-timeout', '-1'])).toThrow(/invalid --request-timeout "-1": an integer from 0 to 86400000/);
    expect(() => parseServeArgs(['dir', '--request-timeout', '99999999999'])).toThrow(/invalid --request-timeout "99999999999": an integer from 0 to 86400000/);
    expect(() => parseServeArgs(['dir', '--shutdown-timeout', '1e3'])).toThrow(/invalid --shutdown-timeout "1e3"/);
    expect(() => parseServeArgs(['dir', '--port', '65536'])).toThrow(/invalid --port "65536": an integer from 0 to 65535/);
    expect(parseServeArgs(['dir', '--request-timeout', '0', '--poll-interval', '3600000'])).toMatchObject({ requestTimeoutMs: 0, pollIntervalMs: 3600000 });
  });

  it('takes --stall-timeout for streamed answers, SQL\'s too unless --sql-stall-timeout says otherwise', () => {
    expect(() => parseServeArgs(['dir', '--stall-timeout', '-1'])).toThrow(/invalid --stall-timeout "-1": an integer from 0 to 86400000/);
    expect(() => parseServeArgs(['dir', '--stall-timeout', 'Infinity'])).toThrow(/invalid --stall-timeout "Infinity"/);
    expect(parseServeArgs(['dir', '--stall-timeout', '0'])).toMatchObject({ stallTimeoutMs: 0, sql: { streamStallMs: 0 } });
    expect(parseServeArgs(['dir', '--stall-timeout', '5000', '--sql-stall-timeout', '700'])).toMatchObject({ stallTimeoutMs: 5000, sql: { streamStallMs: 700 } });
    const unset = parseServeArgs(['dir']);
    expect(unset === 'help' ? undefined : unset.stallTimeoutMs).toBeUndefined();
  });

  it('refuses an empty or malformed host and the instance name of the viewer', () => {
    expect(() => parseServeArgs(['dir', '--host='])).toThrow(UsageError);
    expect(() => parseServeArgs(['dir', '--host', ' '])).toThrow(/invalid --host/);
    expect(() => parseServeArgs(['dir', '--host', 'a b'])).toThrow(/invalid --host "a b"/);
    expect(() => parseServeArgs(['dir', '--instance', 'viewer'])).toThrow(/--instance "viewer"/);
    expect(() => parseServeArgs(['dir', '--instance', 'mcp'])).toThrow(/--instance "mcp"/);
    expect(parseServeArgs(['dir', '--host', '0.0.0.0'])).toMatchObject({ host: '0.0.0.0' });
    expect(parseServeArgs(['dir', '--host', 'localhost'])).toMatchObject({ host: 'localhost' });
  });

  it('points to --help when the storage directory is missing', () => {
    expect(() => parseServeArgs([])).toThrow("expected a storage directory, or NAME=DIR for each of several storages; see 'storage-inspector serve --help'");
  });

  it('takes options from STORAGE_INSPECTOR_* variables; a flag wins', () => {
    vi.stubEnv('STORAGE_INSPECTOR_PORT', '8080');
    vi.stubEnv('STORAGE_INSPECTOR_INSTANCE', 'store');
    vi.stubEnv('STORAGE_INSPECTOR_FOLLOW', 'false');
    vi.stubEnv('STORAGE_INSPECTOR_QUIET', 'yes');
    expect(parseServeArgs(['dir'])).toMatchObject({ port: 8080, instance: 'store', follow: false, quiet: true });
    expect(parseServeArgs(['dir', '--port', '9090'])).toMatchObject({ port: 9090, instance: 'store' });
    vi.stubEnv('STORAGE_INSPECTOR_FOLLOW', 'true');
    expect(parseServeArgs(['dir', '--no-follow'])).toMatchObject({ follow: false });
    vi.stubEnv('STORAGE_INSPECTOR_PORT', 'x');
    expect(() => parseServeArgs(['dir'])).toThrow(/invalid STORAGE_INSPECTOR_PORT "x" \(for --port\)/);
    vi.stubEnv('STORAGE_INSPECTOR_PORT', '1');
    vi.stubEnv('STORAGE_INSPECTOR_QUIET', 'maybe');
    expect(() => parseServeArgs(['dir'])).toThrow(/invalid STORAGE_INSPECTOR_QUIET "maybe": true or false/);
  });

  it('sizes the cache of records read lately from a flag or a variable, and passes it to the storage', async () => {
    expect(parseServeArgs(['dir'])).not.toHaveProperty('recordCacheBytes');
    expect(parseServeArgs(['dir', '--record-cache-bytes', '0'])).toMatchObject({ recordCacheBytes: 0 });
    expect(() => parseServeArgs(['dir', '--record-cache-bytes', '-1'])).toThrow(/invalid --record-cache-bytes "-1": a size from 0 bytes to/);
    vi.stubEnv('STORAGE_INSPECTOR_RECORD_CACHE_BYTES', '1048576');
    expect(parseServeArgs(['dir'])).toMatchObject({ recordCacheBytes: 1048576 });
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    const settings = { dialect: 'spark', follow: false, pollIntervalMs: 500, maxDictionaryBytes: DEFAULT_MAX_DICTIONARY_BYTES } as const;
    const storages = async (recordCacheBytes?: number) =>
      openStorages([{ name: undefined, directory: join(CONFORMANCE_DIR, 'storages', 'graph') }], { ...settings, recordCacheBytes }, {}, new StorageRegistry(), io);
    const none = await storages(0);
    const some = await storages(1048576);
    const unset = await storages(undefined);
    try {
      expect(none.opened[0]!.storage.recordCache).toBeUndefined();
      expect(some.opened[0]!.storage.recordCache?.capacity).toBe(1048576);
      expect(unset.opened[0]!.storage.recordCache?.capacity).toBe(DEFAULT_RECORD_CACHE_BYTES);
    } finally {
      for (const { opened } of [none, some, unset]) await opened[0]!.storage.close();
    }
  });

  it('takes the log format and the metrics token file from flags or variables', () => {
    expect(parseServeArgs(['dir'])).toMatchObject({ logFormat: 'json', metricsTokenFile: undefined });
    expect(parseServeArgs(['dir', '--log-format', 'pretty', '--metrics-token-file', 'm.token'])).toMatchObject({ logFormat: 'pretty', metricsTokenFile: 'm.token' });
    expect(() => parseServeArgs(['dir', '--log-format', 'text'])).toThrow(/invalid --log-format "text": one of json, pretty is expected/);
    vi.stubEnv('STORAGE_INSPECTOR_LOG_FORMAT', 'pretty');
    vi.stubEnv('STORAGE_INSPECTOR_METRICS_TOKEN_FILE', '/run/secrets/metrics');
    expect(parseServeArgs(['dir'])).toMatchObject({ logFormat: 'pretty', metricsTokenFile: '/run/secrets/metrics' });
    expect(parseServeArgs(['dir', '--log-format', 'json'])).toMatchObject({ logFormat: 'json' });
  });

  it('prints the version and help, and exits 2 on unknown commands', async () => {
    const version = await runCliInProcess(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`${toolVersion()}\n`);
    expect(toolVersion()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await runCliInProcess(['serve', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: storage-inspector serve [options] [storages...]');
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('env: STORAGE_INSPECTOR_PORT');
    const unknown = await runCliInProcess(['bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "bogus"');
  });
});

describe('generate', () => {
  it('names every missing option at once, with an example (the README once showed --gigamap without them)', () => {
    expect(() => parseGenerateArgs(['--family', 'eclipsestore', '--gigamap', '50'])).toThrow(
      new UsageError('missing --entities N and --out DIR (e.g. generate --entities 10000 --out ./generated --family eclipsestore --gigamap 50)'),
    );
    expect(() => parseGenerateArgs(['--entities', '1000'])).toThrow(new UsageError('missing --out DIR (e.g. generate --entities 10000 --out ./generated)'));
  });
});
