import { describe, expect, it } from 'vitest';
import { channelOf, classifyId, isObjectIdHalves, resolveJdkConstant } from '../../../src/format/ids.js';

describe('ids', () => {
  it.each([
    [0n, 'null'],
    [-1n, 'undefined'],
    [1n, 'type'],
    [1000000000000000000n, 'type'],
    [1000000000000000001n, 'object'],
    [9000000000000000000n, 'object'],
    [9000000000000000001n, 'constant'],
    [9099999999999999999n, 'constant'],
    [9100000000000000000n, 'undefined'],
  ])('classifies %s as %s', (id, kind) => {
    expect(classifyId(id)).toBe(kind);
  });

  it('resolves the JDK constant table', () => {
    expect(resolveJdkConstant(9000000000000005133n)).toEqual({ typeName: 'java.lang.Integer', text: '5' });
    expect(resolveJdkConstant(9000000000000006255n)).toEqual({ typeName: 'java.lang.Long', text: '127' });
    expect(resolveJdkConstant(9000000000000004122n)).toEqual({ typeName: 'java.lang.Character', text: 'z' });
    expect(resolveJdkConstant(9000000000000002001n)).toEqual({ typeName: 'java.lang.Boolean', text: 'true' });
    expect(resolveJdkConstant(9000000000000001000n)).toEqual({ typeName: 'java.lang.Byte', text: '-128' });
    for (const unassigned of [9000000000000000001n, 9000000000000001256n, 9000000000000002002n, 9000000000000004128n, 9000000000000007000n]) {
      expect(resolveJdkConstant(unassigned)).toBeUndefined();
    }
  });

  it('maps object ids to channels by their low bits', () => {
    expect(channelOf(1000000000000000028n, 1)).toBe(0);
    expect(channelOf(1000000000000000029n, 4)).toBe(1);
  });
});

describe('isObjectIdHalves', () => {
  it('agrees with classifyId at the edges of the object id range', () => {
    const halves = (id: bigint): [number, number] => [Number(BigInt.asIntN(32, id)), Number(BigInt.asIntN(32, id >> 32n))];
    for (const id of [0n, 1n, 999_999_999_999_999_999n, 1_000_000_000_000_000_000n, 1_000_000_000_000_000_001n, 1_000_000_004_294_967_296n,
      4_611_686_018_427_387_904n, 8_999_999_999_999_999_999n, 9_000_000_000_000_000_000n, 9_000_000_000_000_000_001n, 9_000_000_000_000_005_133n, -1n, -(2n ** 63n)]) {
      expect(isObjectIdHalves(...halves(id)), String(id)).toBe(classifyId(id) === 'object');
    }
  });
});
