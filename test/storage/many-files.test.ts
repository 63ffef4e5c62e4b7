import { spawn } from 'node:child_process';
import { closeSync, cpSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DescriptorPool, type DescriptorOwner } from '../../src/storage/source/descriptor-pool.js';
import { StorageFollower } from '../../src/storage/follow/follow.js';
import type { Storage } from '../../src/storage/storage.js';
import { corpusStorage } from '../security/server.js';
import { cliCommand } from '../helpers/test-run/cli-command.js';

/**
 * Many small data files (here 2,000 empty ones under a limit of 256 open files): opening,
 * indexing, the graph index and serving stay within the process's descriptors, and so does a good
 * storage served beside it; a look at such a storage does not keep a core busy.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FD_LIMIT = 256;
const EMPTY_FILES = 2_000;

let work: string;
let many: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-many-files-'));
  many = join(work, 'many');
  cpSync(corpusStorage('graph'), many, { recursive: true });
  for (let n = 1000; n < 1000 + EMPTY_FILES; n++) writeFileSync(join(many, 'channel_0', `channel_0_${n}.dat`), '');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The command line run by a shell that lowered the limit of open files first. */
function underLowLimit(args: string[]): { exit: Promise<number | null>; stderr: () => string; stdout: () => string; kill: () => void } {
  const quoted = [process.execPath, ...cliCommand(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('sh', ['-c', `ulimit -n ${FD_LIMIT} && exec ${quoted}`], { cwd: ROOT });
  let stderr = '';
  let stdout = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { exit, stderr: () => stderr, stdout: () => stdout, kill: () => child.kill('SIGTERM') };
}

describe(`${EMPTY_FILES} empty data files under ulimit -n ${FD_LIMIT}`, () => {
  it('analyze indexes the storage and builds its graph without EMFILE', async () => {
    const run = underLowLimit(['analyze', many, '--json']);
    expect(await run.exit, run.stderr().slice(-2000)).toBe(0);
    expect(run.stderr()).not.toContain('EMFILE');
    expect(JSON.parse(run.stdout()).storage.entities).toBe(1263);
  });

  it('serve: both storages answer, the good one served beside it unaffected', async () => {
    const good = join(work, 'good');
    cpSync(corpusStorage('graph'), good, { recursive: true });
    const run = underLowLimit(['serve', `many=${many}`, `good=${good}`, '--port', '0', '--quiet']);
    try {
      let base: string | undefined;
      for (let i = 0; i < 600 && base === undefined; i++) {
        base = /serving good: .* at (http:\/\/127\.0\.0\.1:\d+)\//.exec(run.stderr())?.[1];
        if (base === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(base, run.stderr().slice(-2000)).toBeDefined();
      for (const name of ['good', 'many']) {
        expect((await fetch(`${base}/microstream/${name}/root`)).status).toBe(200);
        // The graph index is built in the background, and /types and /analysis answer from it:
        // wait until /api/v1 says it is ready (on a busy machine that takes longer than a graph
        // route waits before answering 503).
        for (let state = ''; state !== 'ready'; ) {
          const storage = (await (await fetch(`${base}/api/v1/storages/${name}/storage`)).json()) as { graph?: { state?: string } };
          state = storage.graph?.state ?? '';
          expect(state, name).not.toBe('failed');
          if (state !== 'ready') await new Promise((r) => setTimeout(r, 100));
        }
        const types = await fetch(`${base}/api/v1/storages/${name}/types`);
        expect(types.status, await types.clone().text()).toBe(200);
        const graph = await fetch(`${base}/api/v1/storages/${name}/analysis`);
        expect(graph.status, await graph.clone().text()).toBe(200);
      }
      expect(run.stderr()).not.toContain('EMFILE');
    } finally {
      run.kill();
      await run.exit;
    }
  });
});

describe('the descriptor pool shared by every storage', () => {
  it('keeps at most its bound open across owners, evicting the least recently used', () => {
    const dir = mkdtempSync(join(work, 'pool-'));
    const paths = Array.from({ length: 10 }, (_, i) => join(dir, `f${i}`));
    for (const path of paths) writeFileSync(path, 'x');
    const openFds = (): number => readdirSync('/proc/self/fd').length;
    const before = openFds();
    const pool = new DescriptorPool(3);
    const a: DescriptorOwner = new Map();
    const b: DescriptorOwner = new Map();
    let opens = 0;
    const open = (path: string): number => {
      opens++;
      return openSync(path, 'r');
    };
    for (const path of paths) {
      pool.descriptor(a, path, open);
      pool.descriptor(b, path, open);
      expect(pool.size).toBeLessThanOrEqual(3);
      expect(openFds() - before).toBeLessThanOrEqual(3);
    }
    expect(a.size + b.size).toBe(3);
    // A descriptor still kept is used again, not opened again.
    const kept = [...b.keys()][0]!;
    const opened = opens;
    pool.descriptor(b, kept, open);
    expect(opens).toBe(opened);
    pool.forgetAll(a);
    pool.forgetAll(b);
    expect(pool.size).toBe(0);
    expect(openFds()).toBe(before);
    closeSync(openSync(paths[0]!, 'r'));
  });
});

describe('following a storage whose looks are slow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits several times as long as a look took before the next one', async () => {
    vi.useFakeTimers();
    const LOOK_MS = 200;
    let looks = 0;
    const storage = {
      conditions: [],
      channels: [],
      generation: 1,
      source: {},
      refresh: async () => {
        looks++;
        // The look takes LOOK_MS of (fake) time.
        vi.setSystemTime(Date.now() + LOOK_MS);
        return { changed: false, deferred: undefined };
      },
    } as unknown as Storage;
    const follower = new StorageFollower(storage, { pollIntervalMs: 10 });
    follower.start();
    await vi.advanceTimersByTimeAsync(20_000);
    await follower.stop();
    // Every 10 ms would be 2,000 looks in 20 s of timers (the fake clock jumps only Date.now for a
    // look's duration); paced, a look is followed by nine times its duration of rest.
    expect(looks).toBeGreaterThan(1);
    expect(looks).toBeLessThanOrEqual(Math.ceil(20_000 / (9 * LOOK_MS)) + 1);
  });
});

describe('a channel finds its files by number', () => {
  it('through its map, also after files were removed and added again', async () => {
    const { ChannelState } = await import('../../src/storage/channel-state.js');
    const channel = new ChannelState(0, 'channel_0', 1);
    const file = (slot: number, fileNumber: bigint) => ({
      slot, channel: 0, fileNumber, name: `channel_0_${fileNumber}.dat`, path: `p${slot}`, totalLength: 0, liveLength: 0, metaLength: 0, problem: undefined, removed: false,
    });
    for (let n = 0; n < 5; n++) channel.slots.push(file(n, BigInt(n)));
    expect(channel.fileByNumber(3n)?.slot).toBe(3);
    channel.slots[3]!.removed = true;
    expect(channel.fileByNumber(3n)).toBeUndefined();
    channel.slots.push(file(5, 3n));
    expect(channel.fileByNumber(3n)?.slot).toBe(5);
    expect(channel.fileByNumber(9n)).toBeUndefined();
  });
});
