import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { StorageWriter } from '../src/writer/storage-writer.js';
import type { LoadResult } from './load-child.js';
import { runLoad, startServer, stopChild, type ServerChild } from './processes.js';
import { fmt, fmtSpread, spread } from './stats.js';
import { STORAGES, storageFor } from './storages.js';

/**
 * Following under load: commits to a copy of the 100k storage (one per ~20 ms) while a following
 * server answers /object at full load; measures commit-to-visible latency and what following
 * costs in throughput (frozen vs following idle vs following under writes).
 */

export interface FollowSettings {
  readonly connections: number;
  readonly seconds: number;
}

function load(server: ServerChild, paths: readonly string[], settings: FollowSettings): Promise<LoadResult> {
  return runLoad({ port: server.info.port, serverPid: server.info.pid, paths, connections: settings.connections, seconds: settings.seconds, warmupSeconds: 1 });
}

export async function benchFollow(settings: FollowSettings): Promise<string[]> {
  const source = storageFor(100_000);
  const dir = join(STORAGES, 'follow-work');
  rmSync(dir, { recursive: true, force: true });
  cpSync(source, dir, { recursive: true });
  try {
    const still = await startServer([dir, '--no-follow']);
    const paths = (still.info.sample ?? []).map((id) => `/microstream/object/${id}`);
    let frozen: LoadResult;
    try {
      frozen = await load(still, paths, settings);
    } finally {
      await stopChild(still.child);
    }

    const server = await startServer([dir, '--follow']);
    try {
      const idle = await load(server, paths, settings);
      const writer = await StorageWriter.open(dir);
      const latencies: number[] = [];
      let commits = 0;
      let writing = true;
      const loadDuringWrites = load(server, paths, settings).finally(() => {
        writing = false;
      });
      // Let the load generator's warm-up pass before committing.
      await new Promise((r) => setTimeout(r, 1500));
      const stringType = writer.dictionary.require('java.lang.String');
      while (writing && commits < 400) {
        const store = writer.beginStore();
        const id = writer.newObjectId();
        store.add(stringType, id, [`commit ${commits}`]);
        writer.store(store);
        const committed = performance.now();
        commits++;
        for (;;) {
          const response = await fetch(`http://127.0.0.1:${server.info.port}/microstream/object/${id}`);
          await response.arrayBuffer();
          if (response.status === 200) break;
          await new Promise((r) => setTimeout(r, 1));
        }
        latencies.push(performance.now() - committed);
        await new Promise((r) => setTimeout(r, 20));
      }
      const busy = await loadDuringWrites;
      writer.close();
      latencies.sort((a, b) => a - b);
      const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
      return [
        `Following (100k storage, ${commits} commits at one per ~20 ms while loaded with /object at ${settings.connections} connections):`,
        `- commit-to-visible latency: p50 ${fmt(pct(50))} ms, p99 ${fmt(pct(99))} ms, max ${fmt(latencies.at(-1))} ms`,
        `- /object throughput: frozen (--no-follow) ${fmt(frozen.rps, 0)} req/s, following idle ${fmt(idle.rps, 0)} req/s ` +
          `(${fmt((100 * idle.rps) / frozen.rps, 0)}%), following under writes ${fmt(busy.rps, 0)} req/s (${fmt((100 * busy.rps) / frozen.rps, 0)}%); ` +
          `p99 ${fmt(frozen.p99, 0)} / ${fmt(idle.p99, 0)} / ${fmt(busy.p99, 0)} ms`,
        `- other processes used ${fmtSpread(spread([frozen, idle, busy].map((r) => r.otherCores ?? Number.NaN)), 2)} cores meanwhile`,
      ];
    } finally {
      await stopChild(server.child);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
