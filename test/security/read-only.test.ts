import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { StorageFollower } from '../../src/storage/follow/follow.js';
import { Storage } from '../../src/storage/storage.js';
import { Prng } from '../../src/writer/generator/prng.js';
import { spawnCli } from './cli.js';
import { corpusStorage, send } from './server.js';
import { diffSnapshots, snapshotTree } from './snapshot.js';

/**
 * The read-only guarantee, proven on the vendored corpus storages themselves (not on copies):
 * after opening, following, hundreds of requests (valid, hostile and huge) and a shutdown, every
 * file and directory is bit-identical, with the same modification times, and nothing was created
 * (no lock or temporary files). While serving, every descriptor the process holds on a file of
 * the storage is open for reading only.
 */

/** Descriptors of this process on files below `dir`, with their open flags (Linux /proc). */
function openDescriptors(dir: string): { path: string; flags: number }[] {
  const out: { path: string; flags: number }[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.startsWith(`${dir}/`)) continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8');
    const flags = /^flags:\s+([0-7]+)$/m.exec(info);
    out.push({ path: target, flags: flags === null ? -1 : parseInt(flags[1]!, 8) });
  }
  return out;
}

/** A few hundred requests of every kind, from a seeded generator. */
function requestMix(ids: readonly string[], count: number): [string, string][] {
  const random = new Prng(2024);
  const fixed: [string, string][] = [
    ['GET', '/'],
    ['GET', '/microstream/root'],
    ['GET', '/microstream/dictionary'],
    ['GET', '/microstream/maintenance/filesStatistics'],
    ['OPTIONS', '/microstream/object/:oid'],
    ['HEAD', '/microstream/root'],
    ['POST', '/microstream/root'],
    ['DELETE', '/microstream/object/1000000000000000028'],
    ['PUT', '/microstream/dictionary'],
    ['GET', '/microstream/object/1000000000000000071?references=true'],
    ['GET', '/microstream/object/%zz'],
    ['GET', '/microstream/object/1?valueLength=%C3%28'],
  ];
  const out = [...fixed];
  while (out.length < count) {
    const id = random.pick(ids);
    const query = random.pick(['', '?references=true', '?references=true&variableLength=10', '?fixedOffset=1&fixedLength=2', '?valueLength=3', '?variableOffset=-1', '?format=xml']);
    out.push(['GET', `/microstream/object/${id}${query}`]);
  }
  return out;
}

const ENTITY_IDS = Array.from({ length: 420 }, (_, i) => String(1000000000000000001n + BigInt(i)));

describe('read-only guarantee', () => {
  it('opening, following and serving a corpus storage changes nothing in it (collections)', async () => {
    const dir = corpusStorage('collections');
    const before = snapshotTree(dir);
    const storage = await Storage.open(dir);
    const follower = new StorageFollower(storage, { pollIntervalMs: 20 });
    follower.start();
    const app = buildApp(storage, { instance: 'microstream', catchUp: () => follower.refreshNow() });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      const statuses = new Map<number, number>();
      const mix = requestMix(ENTITY_IDS, 400);
      for (let i = 0; i < mix.length; i += 16) {
        const batch = await Promise.all(mix.slice(i, i + 16).map(([method, target]) => send(port, method, target, {}, agent)));
        for (const answer of batch) statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (i % 160 === 0) await follower.refreshNow();
      }
      expect(statuses.get(200)).toBeGreaterThan(100);
      if (existsSync('/proc/self/fdinfo')) {
        const descriptors = openDescriptors(dir);
        expect(descriptors.length).toBeGreaterThan(0);
        // O_ACCMODE bits 0 = O_RDONLY: no descriptor on a storage file can write.
        expect(descriptors.filter((d) => (d.flags & 3) !== 0)).toEqual([]);
      }
    } finally {
      agent.destroy();
      await follower.stop();
      await app.close();
      await storage.close();
    }
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
  });

  it('the serve command (following by default) leaves a corpus storage bit-identical (graph)', async () => {
    const dir = corpusStorage('graph');
    const before = snapshotTree(dir);
    const run = spawnCli(['serve', dir, '--port', '0', '--quiet', '--poll-interval', '20']);
    try {
      const port = await run.port;
      const agent = new Agent({ keepAlive: true, maxSockets: 8 });
      const mix = requestMix(Array.from({ length: 1300 }, (_, i) => String(1000000000000000001n + BigInt(i))), 200);
      for (let i = 0; i < mix.length; i += 16) {
        await Promise.all(mix.slice(i, i + 16).map(([method, target]) => send(port, method, target, {}, agent)));
      }
      agent.destroy();
    } finally {
      run.child.kill('SIGTERM');
    }
    expect((await run.exit).code).toBe(0);
    expect(diffSnapshots(before, snapshotTree(dir))).toEqual([]);
  });
});
