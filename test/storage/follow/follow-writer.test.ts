import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/http/app.js';
import { StorageFollower } from '../../../src/storage/follow/follow.js';
import { Storage } from '../../../src/storage/storage.js';
import { generateStorage } from '../../../src/writer/generator/generate-storage.js';
import { bytes, record } from '../../helpers/corpora/bytes.js';
import { dissolveFile, lastTimestamp } from '../../helpers/corpora/housekeeping.js';
import { childScript } from '../../helpers/test-run/child-script.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const WRITER = join(HERE, '..', '..', 'helpers', 'real-systems', 'writer-child.ts');

/**
 * A following server against a directory that another process keeps writing: whatever happens
 * (commits while requests are in flight, housekeeping, crash tails), every answer must equal the
 * answer of a reader freshly opened on the same directory state.
 */
describe('following a storage while a writer process commits', () => {
  let dir: string;
  let storage: Storage;
  let follower: StorageFollower;
  let app: ReturnType<typeof buildApp>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'si-follow-writer-'));
    generateStorage({ directory: dir, entities: 1500, channelCount: 2, seed: 3, fileMaximumSize: 16 * 1024, entitiesPerStore: 200 });
    storage = await Storage.open(dir);
    follower = new StorageFollower(storage, { pollIntervalMs: 40 });
    app = buildApp(storage, { instance: 'microstream', catchUp: () => follower.refreshNow() });
    follower.start();
  });
  afterAll(async () => {
    await follower.stop();
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every answer of the followed server compared with a fresh reader's; returns the differences. */
  async function differencesFromFreshReader(sampleEvery = 1): Promise<string[]> {
    await follower.refreshNow();
    const fresh = await Storage.open(dir);
    const freshApp = buildApp(fresh, { instance: 'microstream' });
    try {
      const urls = ['/microstream/root', '/microstream/dictionary', '/microstream/maintenance/filesStatistics'];
      urls.push(`/microstream/object/${fresh.rootObjectId}?references=true`);
      let n = 0;
      for (const channel of fresh.channels) {
        channel.objects.forEach((low, high) => {
          if (n++ % sampleEvery === 0) urls.push(`/microstream/object/${(BigInt(high) << 32n) | BigInt(low)}`);
        });
      }
      const problems: string[] = [];
      for (const url of urls) {
        const [ours, theirs] = await Promise.all([app.inject({ url }), freshApp.inject({ url })]);
        const mask = (body: string) => body.replace(/"creationTime":"[^"]*"/, '');
        if (ours.statusCode !== theirs.statusCode || mask(ours.body) !== mask(theirs.body)) {
          problems.push(`${url}: ${ours.statusCode} ${ours.body.slice(0, 120)} ≠ ${theirs.statusCode} ${theirs.body.slice(0, 120)}`);
        }
      }
      expect(storage.entityCount).toBe(fresh.entityCount);
      return problems;
    } finally {
      await freshApp.close();
      await fresh.close();
    }
  }

  it('answers consistently while commits arrive, then equals a fresh reader', async () => {
    const child = spawn(process.execPath, [...(await childScript(WRITER)), dir, '25', '15'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const committed: bigint[] = [];
    lines.on('line', (line) => committed.push(BigInt(line.split(' ')[2] ?? '0')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let done = false;
    void exited.then(() => {
      done = true;
    });
    let requests = 0;
    const failures: string[] = [];
    const rootBefore = storage.rootObjectId;
    // Once an object has been seen, it must stay visible; a just-committed one may still be 404.
    const visible = new Set<bigint>();
    while (!done) {
      const targets = committed.slice(-3);
      const urls = [`/microstream/object/${rootBefore}?references=true`, '/microstream/maintenance/filesStatistics'];
      for (const id of targets) urls.push(`/microstream/object/${id}?references=true`);
      const responses = await Promise.all(urls.map((url) => app.inject({ url })));
      requests += responses.length;
      // Reads are synchronous: let the event loop see the writer's output and exit.
      await new Promise((r) => setImmediate(r));
      responses.forEach((r, i) => {
        const id = i >= 2 ? targets[i - 2] : undefined;
        if (r.statusCode === 200) {
          if (id !== undefined) visible.add(id);
          return;
        }
        if (id !== undefined && !visible.has(id) && r.statusCode === 404) return; // committed, not yet taken over
        failures.push(`${urls[i]}: ${r.statusCode} ${String(r.headers['x-storage-inspector-error'])} ${r.body.slice(0, 200)}`);
      });
    }
    expect(await exited).toBe(0);
    expect(committed).toHaveLength(25);
    expect(failures.slice(0, 5)).toEqual([]);
    expect(requests).toBeGreaterThan(25);
    // Every committed object becomes visible without an explicit refresh (how soon is the follow benchmark's).
    const last = committed.at(-1)!;
    await expect.poll(async () => (await app.inject({ url: `/microstream/object/${last}` })).statusCode, { timeout: 30_000, interval: 10 }).toBe(200);
    expect((await differencesFromFreshReader()).slice(0, 5)).toEqual([]);
  });

  it('follows housekeeping that moves live records and deletes a file', async () => {
    const channel = storage.channels[0]!;
    const oldest = channel.files[0]!.fileNumber;
    // Housekeeping changes where records are, never what is answered (but for the files'
    // statistics): after every step, the records it moves (all of them) and a sample of the others
    // must be answered as before it began. A reader freshly opened on the directory is compared
    // with fully before and after, and (costlier: it opens the storage again) at every eighth step.
    expect((await differencesFromFreshReader()).slice(0, 5)).toEqual([]);
    const urls = ['/microstream/root', '/microstream/dictionary', `/microstream/object/${storage.rootObjectId}?references=true`];
    let moved = 0;
    let n = 0;
    channel.objects.forEach((low, high, fileSlot) => {
      const inOldest = channel.fileAt(fileSlot)?.fileNumber === oldest;
      if (inOldest) moved++;
      if (inOldest || n++ % 17 === 0) urls.push(`/microstream/object/${(BigInt(high) << 32n) | BigInt(low)}`);
    });
    for (const other of storage.channels.slice(1)) other.objects.forEach((low, high) => void (n++ % 17 === 0 && urls.push(`/microstream/object/${(BigInt(high) << 32n) | BigInt(low)}`)));
    expect(moved).toBeGreaterThan(0);
    const before = new Map<string, string>();
    for (const url of urls) {
      const answer = await app.inject({ url });
      before.set(url, `${answer.statusCode} ${answer.body}`);
    }
    const steps: string[] = [];
    let step = 0;
    await dissolveFile(dir, 0, oldest, async () => {
      await follower.refreshNow();
      for (const url of urls) {
        const answer = await app.inject({ url });
        const now = `${answer.statusCode} ${answer.body}`;
        if (now !== before.get(url)) steps.push(`step ${step}: ${url}: ${now.slice(0, 120)} ≠ ${before.get(url)!.slice(0, 120)}`);
      }
      if (step++ % 8 === 0) steps.push(...(await differencesFromFreshReader(17)).map((p) => `step ${step - 1} (fresh reader): ${p}`));
      if (steps.length > 0) throw new Error(steps.slice(0, 2).join('\n'));
    });
    expect(steps).toEqual([]);
    expect(step).toBeGreaterThan(2);
    expect((await differencesFromFreshReader()).slice(0, 5)).toEqual([]);
    expect(storage.channels[0]!.files.some((f) => f.fileNumber === oldest)).toBe(false);
  });

  it('ignores a crash tail: a half-written record and a half-written log entry', async () => {
    const head = storage.channels[1]!.files.at(-1)!;
    const logPath = join(dir, 'channel_1', 'transactions_1.sft');
    const partial = record(30n, 1000000000000999999n, bytes().chars('never committed').build()).subarray(0, 30);
    appendFileSync(head.path, partial);
    expect((await differencesFromFreshReader()).slice(0, 5)).toEqual([]);
    const entry = bytes().int8(18).int8(1).int64(lastTimestamp(logPath) + 1n).int64(BigInt(statSync(head.path).size)).build();
    appendFileSync(logPath, entry.subarray(0, 10));
    expect((await differencesFromFreshReader()).slice(0, 5)).toEqual([]);
    expect((await app.inject({ url: '/microstream/object/1000000000000999999' })).statusCode).toBe(404);
  });
});
