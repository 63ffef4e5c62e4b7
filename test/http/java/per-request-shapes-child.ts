/**
 * Child of per-request-shapes.test.ts, run with --allow-natives-syntax: builds the per-request
 * wrappers of the Java routes twice, for two different requests, and the `/api/v1` views of two
 * objects of one type in the storage given, and prints whether each pair (the views, and their
 * first members) has fast properties and shares one hidden class (V8's map).
 */
import { checkedSource, RequestWarnings, type DamageReport } from '../../../src/http/java/integrity.js';
import { objectViewOf } from '../../../src/http/api-v1/analysis/graph-answers.js';
import { budgetedSource, RequestBudget } from '../../../src/http/guard/limits.js';
import { UTC } from '../../../src/javatext/java-time-zones.js';
import { registeredStorage } from '../../helpers/serving/registered-storage.js';

// V8's own test intrinsics, parsed only with --allow-natives-syntax.
const sameShape = new Function('a', 'b', 'return %HasFastProperties(a) && %HasFastProperties(b) && %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

const source = { dictionary: {}, channels: [], readEntity: async () => undefined } as unknown as Parameters<typeof checkedSource>[0];
const options = { fixedOffset: 0, fixedLength: 10, variableOffset: 0, variableLength: 10, valueLength: 10, references: false, timeZone: UTC };
const damaged: DamageReport = {
  regions: [{ channel: 0, fileNumber: 1n, path: 'channel_0/channel_0_1.dat', offset: 0, reason: 'test' }],
  cutRecords: new Map(),
};

const budgeted = [1, 2].map((n) => budgetedSource(source, new RequestBudget(n, 0), options));
const checked = [1, 2].map(() => checkedSource(source, damaged, new RequestWarnings()));
// Two stored objects of one type, viewed as GET /api/v1/objects/{oid} builds them.
const [dir = ''] = process.argv.slice(2);
const { storage, registry, context, close } = await registeredStorage(dir);
registry.startAll();
const graph = await context.graph.ready();
const firstOfType = new Map<bigint, bigint>();
let pair: [bigint, bigint] | undefined;
for (const channel of storage.channels) {
  const ids: bigint[] = [];
  channel.objects.forEach((low, high) => void ids.push((BigInt(high) << 32n) | BigInt(low)));
  for (const id of ids) {
    const typeId = (await storage.readEntity(id))!.typeId;
    const first = firstOfType.get(typeId);
    if (first === undefined) firstOfType.set(typeId, id);
    else if (pair === undefined) pair = [first, id];
  }
}
if (pair === undefined) throw new Error('no two objects of one type');
const views = await Promise.all(pair.map((id) => objectViewOf(context, graph, id, { offset: 0, limit: 100 })));
await close();
process.stdout.write(
  `${JSON.stringify({
    budgeted: sameShape(budgeted[0]!, budgeted[1]!),
    checked: sameShape(checked[0]!, checked[1]!),
    apiView: sameShape(views[0]!, views[1]!),
    apiMember: views[0]!.members.length > 0 && sameShape(views[0]!.members[0]!, views[1]!.members[0]!),
  })}\n`,
);
process.exit(0);
