import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BigAnswerAdmission } from '../../../src/http/guard/big-answers.js';
import { budgetedSource, descriptionEstimate, RequestBudget } from '../../../src/http/guard/limits.js';
import { describeObject, INT_MAX, objectDescriptionJson, type DescribeOptions, type ObjectDescription } from '../../../src/inspect/describe-object.js';
import { UTC } from '../../../src/javatext/java-time-zones.js';
import { Storage } from '../../../src/storage/storage.js';
import { CONFORMANCE_DIR } from '../../helpers/corpora/conformance.js';

/**
 * The lower bound of an answer's size charged before an object is described (limits.ts), on the
 * collections corpus: it never exceeds the JSON describing the object, counts the values in the
 * request's windows as describeObject renders them, and the budgeted source halts or refuses by it.
 */

const LIST = 1000000000000000071n;
const ROOT = 1000000000000000028n;
let storage: Storage;
beforeAll(async () => {
  storage = await Storage.open(join(CONFORMANCE_DIR, 'storages', 'collections'));
});
afterAll(() => storage.close());

const WHOLE: DescribeOptions = { fixedOffset: 0, fixedLength: INT_MAX, variableOffset: 0, variableLength: INT_MAX, valueLength: INT_MAX, references: false, timeZone: UTC };

/** The values of a description as the estimate counts them: each fixed value, each list and its elements. */
function valuesOf(description: ObjectDescription): number {
  return description.data.reduce<number>((n, value) => n + (Array.isArray(value) ? 1 + value.length : 1), 0);
}

async function estimate(id: bigint, options: DescribeOptions): Promise<{ bytes: number; values: number; json: number; counted: number; ids: number }> {
  const entity = (await storage.readEntity(id))!;
  const found = descriptionEstimate(storage, entity.objectId, entity.typeId, entity.content, options);
  const description = await describeObject(storage, id, { ...options, references: false });
  return { ...found, json: objectDescriptionJson(description).length, counted: valuesOf(description), ids: String(entity.objectId).length + String(entity.typeId).length };
}

describe('the lower bound of a description', () => {
  it('counts the values describeObject renders, in any window, and stays below the JSON', async () => {
    const windows: DescribeOptions[] = [
      WHOLE,
      { ...WHOLE, variableOffset: 2, variableLength: 3 },
      { ...WHOLE, fixedOffset: 1, fixedLength: 1, variableLength: 0 },
      { ...WHOLE, variableOffset: INT_MAX },
    ];
    const frames = new Set<number>();
    for (const id of [LIST, ROOT]) {
      for (const options of windows) {
        const found = await estimate(id, options);
        expect(found.values, `${id} ${JSON.stringify(options)}`).toBe(found.counted);
        expect(found.bytes).toBeLessThanOrEqual(found.json);
        frames.add(found.bytes - 2 * found.values - found.ids);
      }
    }
    // Two bytes per value on top of one frame, the same for every object but for its ids.
    expect(frames.size).toBe(1);
    expect([...frames][0]).toBeGreaterThan(0);
  });

  it('is the frame alone for an unknown type or content that does not fit its type', async () => {
    const entity = (await storage.readEntity(LIST))!;
    const frame = (await estimate(LIST, WHOLE)).bytes - 2 * (await estimate(LIST, WHOLE)).values;
    expect(descriptionEstimate(storage, entity.objectId, 999999n, entity.content, WHOLE)).toEqual({ bytes: frame - String(entity.typeId).length + 6, values: 0 });
    expect(descriptionEstimate(storage, entity.objectId, entity.typeId, entity.content.subarray(0, 3), WHOLE)).toEqual({ bytes: frame, values: 0 });
  });
});

describe('the budgeted source', () => {
  const ready = { connectionDrained: async () => undefined, room: async () => undefined };

  it('reads through to the storage, undefined for an unknown id', async () => {
    const source = budgetedSource(storage, new RequestBudget(1e9, 0), WHOLE);
    expect(source.dictionary).toBe(storage.dictionary);
    expect((await source.readEntity(ROOT))!.objectId).toBe(ROOT);
    expect(await source.readEntity(1n)).toBeUndefined();
    expect(source.halted).toBe(false);
  });

  it('refuses before describing when the lower bound alone exceeds the limit, with references=true', async () => {
    const { bytes } = await estimate(LIST, WHOLE);
    const tight = budgetedSource(storage, new RequestBudget(bytes - 1, 0), { ...WHOLE, references: true });
    await expect(tight.readEntity(LIST)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE', status: 413 });
    const enough = budgetedSource(storage, new RequestBudget(bytes, 0), { ...WHOLE, references: true });
    expect((await enough.readEntity(LIST))!.objectId).toBe(LIST);
    // Without references only a big record (64 KiB or more, as this list's) is estimated.
    expect((await storage.readEntity(LIST))!.content.length).toBeGreaterThanOrEqual(64 * 1024);
    await expect(budgetedSource(storage, new RequestBudget(1, 0), WHOLE).readEntity(LIST)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect((await storage.readEntity(ROOT))!.content.length).toBeLessThan(64 * 1024);
    expect((await budgetedSource(storage, new RequestBudget(1, 0), WHOLE).readEntity(ROOT))!.objectId).toBe(ROOT);
    await expect(budgetedSource(storage, new RequestBudget(1, 0), { ...WHOLE, references: true }).readEntity(ROOT)).rejects.toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
  });

  it('halts a big answer not yet admitted: references=true over a list of a thousand values or more', async () => {
    const { values } = await estimate(LIST, WHOLE);
    expect(values).toBeGreaterThanOrEqual(1000);
    const waiting = new BigAnswerAdmission(ready, Number.POSITIVE_INFINITY);
    const big = budgetedSource(storage, new RequestBudget(1e9, 0, waiting), { ...WHOLE, references: true });
    await big.readEntity(LIST);
    expect(big.halted).toBe(true);
    const plain = budgetedSource(storage, new RequestBudget(1e9, 0, waiting), WHOLE);
    await plain.readEntity(LIST);
    expect(plain.halted).toBe(false);
    const windowed = budgetedSource(storage, new RequestBudget(1e9, 0, waiting), { ...WHOLE, references: true, variableLength: 10 });
    await windowed.readEntity(LIST);
    expect(windowed.halted).toBe(false);
    await waiting.acquire();
    const admitted = budgetedSource(storage, new RequestBudget(1e9, 0, waiting), { ...WHOLE, references: true });
    await admitted.readEntity(LIST);
    expect(admitted.halted).toBe(false);
    waiting.finish();
  });

  it('checks the deadline from the second read on', async () => {
    const late = new BigAnswerAdmission(ready, Date.now() - 1);
    const source = budgetedSource(storage, new RequestBudget(1e9, 1000, late), WHOLE);
    expect((await source.readEntity(ROOT))!.objectId).toBe(ROOT);
    await expect(source.readEntity(ROOT)).rejects.toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });
});
