import { describe, expect, it } from 'vitest';
import { FillLedger } from '../../../src/sql/fill-ledger.js';
import type { TypeTablePlan } from '../../../src/sql/tables/column-model.js';

/**
 * What a type fill leaves out: every member a statement does not name, whatever its kind (a
 * value, a reference, a primitive, a text or an array), so that the first statement on a large
 * type decodes and appends only the members it reads; a later statement naming another member
 * fills the table again with what it had and that member, and one that may read any fills it whole.
 */

const PLAN: TypeTablePlan = {
  typeName: 'shop.Book',
  entries: [],
  columns: [
    { name: 'price', role: { kind: 'value', value: 'decimal', declared: 'java.math.BigDecimal' } },
    { name: 'author', role: { kind: 'reference' } },
    { name: 'pages', role: { kind: 'primitive', type: 'int' } },
    { name: 'notes', role: { kind: 'chars' } },
    { name: 'Shelf#code', role: { kind: 'primitive', type: 'long' } },
  ],
  fieldOfColumn: new Map(),
};

const noLaterValues = (): bigint[] => [];

describe('the members a type fill leaves out', () => {
  it('leaves out every member a statement does not name, not only value members', () => {
    const ledger = new FillLedger();
    const fill = ledger.planTypeFill(new Set([PLAN]), new Set(['price']), noLaterValues);
    expect(fill.missing).toEqual([PLAN]);
    expect([...fill.skipped.get(PLAN)!].sort()).toEqual([1, 2, 3, 4]);
    expect([...ledger.members.get(PLAN.typeName)!]).toEqual([0]);
  });

  it('fills the table again for a reference or primitive member named later, keeping what it had', () => {
    const ledger = new FillLedger();
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['price']), noLaterValues), Promise.resolve(true));
    // A statement naming only what the table has: nothing to fill.
    expect(ledger.planTypeFill(new Set([PLAN]), new Set(['price', 'title']), noLaterValues).missing).toEqual([]);
    const second = ledger.planTypeFill(new Set([PLAN]), new Set(['author', 'shelf#code']), noLaterValues);
    expect(second.missing).toEqual([PLAN]);
    expect([...second.skipped.get(PLAN)!].sort()).toEqual([2, 3]);
    expect([...ledger.members.get(PLAN.typeName)!].sort()).toEqual([0, 1, 4]);
  });

  it('fills every member for a statement that may read any, and then counts the table as filled', async () => {
    const ledger = new FillLedger();
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['pages']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    expect(ledger.filled.has(PLAN.typeName)).toBe(false);
    const whole = ledger.planTypeFill(new Set([PLAN]), undefined, noLaterValues);
    expect(whole.missing).toEqual([PLAN]);
    expect(whole.skipped.get(PLAN)!.size).toBe(0);
    ledger.typesFilling(whole, Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    expect(ledger.filled.has(PLAN.typeName)).toBe(true);
    expect(ledger.members.get(PLAN.typeName)).toBeUndefined();
  });

  it('names a partly filled table with its members for the cache, and a ledger restored from those names knows them', async () => {
    const ledger = new FillLedger();
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['price']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['pages']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    expect([...ledger.filled]).toEqual([':members:0:shop.Book', ':members:0,2:shop.Book']);
    const restored = new FillLedger();
    restored.restore([...ledger.filled]);
    expect([...restored.members.get(PLAN.typeName)!].sort()).toEqual([0, 2]);
    // What it holds needs no fill; another member fills it again with all three.
    expect(restored.planTypeFill(new Set([PLAN]), new Set(['pages', 'price']), noLaterValues).missing).toEqual([]);
    const more = restored.planTypeFill(new Set([PLAN]), new Set(['notes']), noLaterValues);
    expect([...more.skipped.get(PLAN)!].sort()).toEqual([1, 4]);
    // A complete table stays complete, whatever partial names come with it.
    const complete = new FillLedger();
    complete.restore([':members:0:shop.Book', 'shop.Book', ':members:2:shop.Book']);
    expect(complete.members.get(PLAN.typeName)).toBeUndefined();
    expect(complete.planTypeFill(new Set([PLAN]), undefined, noLaterValues).missing).toEqual([]);
  });

  it('takes the last name of a table as what it holds (a failed fill may have left fewer members)', async () => {
    const ledger = new FillLedger();
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['price']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['author']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    // A fill that fails: the ledger forgets the table; the next fills it with what is named alone.
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['pages']), noLaterValues), Promise.reject(new Error('the fill failed')));
    await expect(ledger.fills.get(PLAN.typeName)).rejects.toThrow('the fill failed');
    ledger.typesFilling(ledger.planTypeFill(new Set([PLAN]), new Set(['price']), noLaterValues), Promise.resolve(true));
    await ledger.fills.get(PLAN.typeName);
    const restored = new FillLedger();
    restored.restore([...ledger.filled]);
    expect([...restored.members.get(PLAN.typeName)!]).toEqual([0]);
  });
});
