import { parentPort } from 'node:worker_threads';
import { ObjectIndex } from '../../storage/index/object-index.js';
import { Adjacency } from './adjacency.js';
import { dominatorSteps, type DominatorGraph } from './dominator-computation.js';
import { PHASES, type DominatorInput, type DominatorReply } from './dominator-thread.js';
import { NodeIds } from './node-ids.js';
import { NOT_STORED } from './type-table.js';

/**
 * Worker thread entry (dominator-thread.ts starts it): the dominator tree of a graph whose rows,
 * row starts and type numbers are shared memory, with the channels' object indexes as snapshots
 * (for the retained bytes). Answers the tree (its arrays handed over, not copied) or the error's
 * message.
 */
parentPort?.on('message', (input: DominatorInput) => {
  try {
    checkInput(input);
    const nodes = NodeIds.fromParts(input.nodes);
    const types = input.typeOfNode;
    const count = input.nodeCount;
    const graph: DominatorGraph = {
      nodeCount: count,
      rootsNode: input.rootsNode,
      version: input.version,
      typeOfNode: types,
      adjacency: new Adjacency(input.rowStart, input.rows, input.baseNodes),
      nodes,
      isStored: (node) => node >= 0 && node < count && types[node] !== NOT_STORED,
    };
    const steps = dominatorSteps(
      graph,
      input.objects.map((parts) => ({ objects: ObjectIndex.fromParts(parts) })),
    );
    const progress = input.progress;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) {
      // Read by the starting thread whenever it is asked how far the computation is.
      Atomics.store(progress, 1, step.value.done);
      Atomics.store(progress, 2, step.value.total);
      Atomics.store(progress, 0, PHASES.indexOf(step.value.phase) + 1);
    }
    const tree = step.value.toParts();
    const reply: DominatorReply = { tree };
    parentPort?.postMessage(reply, [tree.idom.buffer, tree.count.buffer, tree.bytesLow.buffer, tree.overflowNodes.buffer, tree.overflowBytes.buffer] as ArrayBuffer[]);
  } catch (error) {
    const reply: DominatorReply = { error: error instanceof Error ? error.message : String(error) };
    parentPort?.postMessage(reply);
  }
});

/** The arrays cover the nodes they are said to cover (a message from elsewhere is not trusted to). */
function checkInput(input: DominatorInput): void {
  const { nodeCount, baseNodes } = input;
  if (!Number.isInteger(nodeCount) || nodeCount < 0 || input.nodes.nodes !== nodeCount) throw new Error(`dominator thread: node count ${nodeCount} does not match the node numbering's ${input.nodes.nodes}`);
  if (!Number.isInteger(baseNodes) || baseNodes < 0 || baseNodes > nodeCount || input.rowStart.length < baseNodes + 1) throw new Error(`dominator thread: ${input.rowStart.length} row starts for ${baseNodes} nodes`);
  if (input.typeOfNode.length < nodeCount) throw new Error(`dominator thread: ${input.typeOfNode.length} type numbers for ${nodeCount} nodes`);
  if ((input.rowStart[baseNodes] as number) > input.rows.length) throw new Error(`dominator thread: the rows end at ${input.rows.length}, the row starts at ${input.rowStart[baseNodes]}`);
  if (input.rootsNode >= nodeCount) throw new Error(`dominator thread: roots node ${input.rootsNode} of ${nodeCount} nodes`);
}
