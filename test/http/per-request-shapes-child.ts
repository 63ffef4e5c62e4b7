/**
 * Child of per-request-shapes.test.ts, run with --allow-natives-syntax: builds the per-request
 * wrappers of the Java routes twice, for two different requests, and prints whether each pair
 * has fast properties and shares one hidden class (V8's map).
 */
import { checkedSource, RequestWarnings, type DamageReport } from '../../src/http/integrity.js';
import { budgetedSource, RequestBudget } from '../../src/http/limits.js';
import { UTC } from '../../src/format/java-time-zones.js';

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
process.stdout.write(
  `${JSON.stringify({ budgeted: sameShape(budgeted[0]!, budgeted[1]!), checked: sameShape(checked[0]!, checked[1]!) })}\n`,
);
