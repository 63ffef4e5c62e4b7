import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typeNameFor } from '../../src/cli/commands/export.js';
import { parseServeArgs } from '../../src/cli/commands/serve.js';
import { defaultLogFormat } from '../../src/cli/output/server-logger.js';
import { DEMO_STORAGE, startArguments } from '../../src/cli/start-arguments.js';
import { closeMatches, didYouMean } from '../../src/cli/options/suggest.js';
import { UsageError } from '../../src/errors.js';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';

/** A new user's first steps: a storage path one level off, `npm start` with a path, typos, --help, the log on a terminal. */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const cli = (...args: string[]): Promise<CliRun> => runCliInProcess(args);

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'si-first-run-'));
  // myapp/storage (the usual layout) and other/data/storage (one folder deeper).
  cpSync(DEMO_STORAGE, join(tmp, 'myapp', 'storage'), { recursive: true });
  cpSync(DEMO_STORAGE, join(tmp, 'other', 'data', 'storage'), { recursive: true });
  mkdirSync(join(tmp, 'empty'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('a storage path one level off', () => {
  it('one level too high: names the storage below', async () => {
    const result = await cli('check', join(tmp, 'myapp'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(tmp, 'myapp')} is not a MicroStream or EclipseStore storage: missing the type dictionary PersistenceTypeDictionary.ptd and a channel directory channel_0.`);
    expect(result.stderr).toContain(`Did you mean ${join(tmp, 'myapp', 'storage')}? (it holds PersistenceTypeDictionary.ptd and channel_0/)`);
  });

  it('one level too low, or a channel that is not there: names the storage above', async () => {
    expect((await cli('check', join(tmp, 'myapp', 'storage', 'channel_1'))).stderr).toContain(`Did you mean ${join(tmp, 'myapp', 'storage')}?`);
    expect((await cli('check', join(tmp, 'myapp', 'storage', 'channel_9'))).stderr).toContain(`Did you mean ${join(tmp, 'myapp', 'storage')}?`);
  });

  it('looks into the usual data/ and storage/ folders', async () => {
    expect((await cli('check', join(tmp, 'other'))).stderr).toContain(`Did you mean ${join(tmp, 'other', 'data', 'storage')}?`);
  });

  it('says nothing more when nothing near is a storage', async () => {
    const result = await cli('check', join(tmp, 'empty'));
    expect(result.stderr).toMatch(/channel_0\.\n$/);
    expect(result.stderr).not.toContain('Did you mean');
  });
});

describe('npm start', () => {
  it('serves the demo storage unless a storage is given', () => {
    const demo = startArguments([]);
    expect(demo[0]).toBe('serve');
    expect(join(process.cwd(), demo[1]!)).toBe(DEMO_STORAGE);
    expect(startArguments(['--port', '0'])).toEqual(['serve', demo[1], '--port', '0']);
    expect(startArguments(['/data/storage'])).toEqual(['serve', '/data/storage']);
    expect(startArguments(['--port', '0', 'a=/x', 'b=/y'])).toEqual(['serve', '--port', '0', 'a=/x', 'b=/y']);
    // A line that does not parse goes to serve as it is, which says what is wrong.
    expect(startArguments(['--bogus'])).toEqual(['serve', '--bogus']);
  });

  it('npm start -- <storage> serves that storage alone (the built script)', async () => {
    const storage = join(tmp, 'myapp', 'storage');
    const child = spawn(process.execPath, [join(ROOT, 'dist', 'cli', 'start.js'), '--port', '0', '--no-follow', storage], { cwd: ROOT });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (/web viewer at/.test(stderr)) resolve();
      });
      child.on('close', (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
    });
    child.kill('SIGKILL');
    expect(stderr).toContain(`serving ${storage} (MicroStream`);
    expect(stderr).not.toContain('demo');
  });
});

describe('near misses', () => {
  it('suggests the command meant', async () => {
    const result = await cli('servee', 'x');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "servee" (did you mean serve?)');
    expect((await cli('chek')).stderr).toContain('(did you mean check?)');
    expect((await cli('frobnicate')).stderr).not.toContain('did you mean');
    expect(didYouMean('anlyze', ['serve', 'analyze', 'export'])).toBe(' (did you mean analyze?)');
    expect(closeMatches('xyz', ['serve', 'check'])).toEqual([]);
  });

  it('help <command> prints the command\'s help', async () => {
    const result = await cli('help', 'serve');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: storage-inspector serve [options] [storages...]');
    expect((await cli('help', 'servee')).stderr).toContain('(did you mean serve?)');
  });

  it('export --type takes a simple name that only one type has, and suggests close names', async () => {
    // export writes to a stream (it waits when the reader is slow): the runner's stdout is one.
    const exported = await cli('export', DEMO_STORAGE, '--type', 'Author');
    expect(exported.code).toBe(0);
    expect(exported.stderr).toContain('exported 12 objects of conformance.bookstore.Author (1000069)');
    expect(exported.stdout.trim().split('\n')).toHaveLength(12);
    const typo = await cli('export', DEMO_STORAGE, '--type', 'Autor');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('no type named Autor in the type dictionary (did you mean conformance.bookstore.Author?)');
    const names = new Set(['a.Author', 'b.Author', 'a.Book', 'a.Outer$Inner']);
    expect(typeNameFor('a.Book', names)).toBe('a.Book');
    expect(typeNameFor('Book', names)).toBe('a.Book');
    expect(typeNameFor('Inner', names)).toBe('a.Outer$Inner');
    expect(() => typeNameFor('Author', names)).toThrow(new UsageError('several types are named Author: a.Author, b.Author; give the full name'));
  });
});

describe('--help and option errors', () => {
  it('shows the range of every number option and one help line in every command', async () => {
    const serve = (await cli('serve', '--help')).stdout.replace(/\s+/g, ' ');
    expect(serve).toContain('how often to look for changes besides file system events (10 to 3,600,000 milliseconds) (default: 500');
    expect(serve).toContain('port to listen on; 0 picks a free one (0 to 65,535) (default: 4567');
    expect(serve).toContain('(default: 268,435,456) (1 KiB to 4 GiB; bytes, or with a unit: 512MB, 1GiB)');
    for (const command of ['serve', 'generate', 'analyze', 'export', 'check', 'rescue']) {
      const help = (await cli(command, '-h')).stdout;
      expect(help).toMatch(/-h, --help +print this help\n/);
      expect(help).not.toContain('display help for command');
    }
  });

  it('says what is wrong on one line', () => {
    expect(() => parseServeArgs(['dir', '--dialect', 'foo'])).toThrow(
      new UsageError(`invalid --dialect "foo": one of spark, javalin, micronaut is expected; see 'storage-inspector serve --help'`),
    );
    expect(() => parseServeArgs(['dir', '--prot', '1'])).toThrow(new UsageError(`unknown option '--prot' (did you mean --port?); see 'storage-inspector serve --help'`));
  });
});

describe('the log format', () => {
  it('is readable on a terminal and JSON otherwise, unless given', () => {
    expect(defaultLogFormat(undefined, true)).toBe('pretty');
    expect(defaultLogFormat(undefined, false)).toBe('json');
    expect(defaultLogFormat(undefined, undefined)).toBe('json');
    expect(defaultLogFormat('server.log', true)).toBe('json');
    expect(parseServeArgs(['dir', '--log-format', 'json'])).toMatchObject({ logFormat: 'json' });
    expect(parseServeArgs(['dir', '--log-format', 'pretty'])).toMatchObject({ logFormat: 'pretty' });
  });
});

describe('smaller things', () => {
  it('analyze --top limits the data files too', async () => {
    const result = await cli('analyze', DEMO_STORAGE, '--top', '3');
    expect(result.code).toBe(0);
    const files = result.stdout.slice(result.stdout.indexOf('Data files'));
    expect(files.split('\n')[0]).toBe('Data files (the 3 of 21 with the most waste):');
    expect(files.match(/channel_\d+_\d+\.dat/g)).toHaveLength(3);
  });

  it('a port in use points to --port 0', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      const port = (blocker.address() as AddressInfo).port;
      const result = await cli('serve', DEMO_STORAGE, '--port', String(port), '--no-follow');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: the port is already in use (another server?); choose another with --port <n>, or --port 0 for a free one`);
    } finally {
      blocker.close();
    }
  });

  it('package.json describes both product lines', () => {
    const description = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { description: string }).description;
    expect(description).toContain('MicroStream');
    expect(description).toContain('EclipseStore');
    expect(description).not.toContain('4.x');
  });
});
