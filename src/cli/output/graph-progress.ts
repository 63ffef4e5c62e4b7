import type { GraphServiceOptions } from '../../graph/graph-service.js';
import type { OpenProgress } from '../../storage/storage.js';
import type { CommandIo } from '../io.js';

/**
 * What the graph index build tells on stderr: progress at most once a second once it has taken
 * more than a second, and one line when it is ready or failed; one line when its dominator tree
 * is ready (again only when a computation after a change took a second or more).
 */
export function graphProgressReporter(io: CommandIo, label = 'graph index'): GraphServiceOptions {
  let last = 0;
  let dominatorsTold = false;
  return {
    onProgress: (p, elapsedMs) => {
      const now = Date.now();
      if (elapsedMs < 1000 || now - last < 1000) return;
      last = now;
      const percent = p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal);
      io.stderr.write(`storage-inspector: ${label} ${p.phase === 'linking' ? 'linking' : `${percent}%`} (${p.filesDone}/${p.filesTotal} files)\n`);
    },
    onReady: (graph, buildMs) => {
      io.stderr.write(`storage-inspector: ${label} ready: ${graph.nodeCount} objects, ${graph.adjacency.referenceCount()} references, built in ${(buildMs / 1000).toFixed(1)} s\n`);
    },
    onFailed: (error) => {
      io.stderr.write(`storage-inspector: warning: ${label} failed: ${error instanceof Error ? error.message : String(error)}\n`);
    },
    onDominatorsReady: (tree, computeMs) => {
      // Computed again after every commit of a followed storage: told again only when that is slow.
      if (dominatorsTold && computeMs < 1000) return;
      dominatorsTold = true;
      io.stderr.write(`storage-inspector: dominator tree ready: ${tree.reachableObjects} reachable objects, ${tree.reachableBytes} bytes, computed in ${(computeMs / 1000).toFixed(1)} s\n`);
    },
    onDominatorsFailed: (error) => {
      io.stderr.write(`storage-inspector: warning: dominator tree failed: ${error instanceof Error ? error.message : String(error)}\n`);
    },
  };
}

/** Progress of opening (indexing) a storage, once it takes more than a second. */
export function openProgressReporter(io: CommandIo): (p: OpenProgress) => void {
  const started = Date.now();
  let last = started;
  return (p) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const percent = p.bytesTotal === 0 ? 100 : Math.floor((100 * p.bytesDone) / p.bytesTotal);
    io.stderr.write(`storage-inspector: indexing ${percent}% (${p.filesDone}/${p.filesTotal} files, ${p.entities} entities so far)\n`);
  };
}
