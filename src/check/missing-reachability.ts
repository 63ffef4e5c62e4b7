import { layoutEntity } from '../format/entity-layout.js';
import { forEachReference } from '../format/entity-references.js';
import { isObjectIdHalves } from '../format/ids.js';
import { unloadableReason } from '../inspect/simplified-value.js';
import type { Storage } from '../storage/storage.js';
import type { DanglingReference } from './record-findings.js';

/**
 * What MicroStream does with a reference to an object that has no record depends on who holds it.
 * At start it loads the graph reachable from the roots eagerly, everything not behind a `Lazy`: the
 * first missing id reached that way ends the start ("No entity found for objectId …"). One reached
 * only through a `Lazy` fails when that Lazy is loaded. One that only garbage holds is never loaded.
 * This walks the graph from the roots entity (without Lazy subjects, and again through them when a
 * holder was not reached), reading each reached object once per walk; the marks are typed arrays
 * (about 40 bytes per object and walk). Only run when references to missing objects exist.
 */

export type MissingReach = 'at-start' | 'behind-lazy' | 'garbage-only';

const LAZY_TYPE = /\.reference\.Lazy\$Default$/;

export async function classifyMissingReferences(storage: Storage, dangling: readonly DanglingReference[]): Promise<(reference: DanglingReference) => MissingReach> {
  const halves = (id: bigint): [number, number] => [Number(id & 0xffffffffn) | 0, Number(id >> 32n) | 0];
  const eager = await reachable(storage, false);
  // The second walk only when some holder is not reached at start.
  const all = dangling.every((r) => eager.has(...halves(r.referrer))) ? eager : await reachable(storage, true);
  return (r) => {
    const [low, high] = halves(r.referrer);
    return eager.has(low, high) ? 'at-start' : all.has(low, high) ? 'behind-lazy' : 'garbage-only';
  };
}

async function reachable(storage: Storage, throughLazy: boolean): Promise<IdSet> {
  const seen = new IdSet(storage.entityCount);
  const queue = new Int32Array(2 * Math.max(1, storage.entityCount));
  let tail = 0;
  const push = (low: number, high: number): void => {
    if (!isObjectIdHalves(low, high) || seen.has(low, high)) return;
    if (!storage.channels[low & (storage.channels.length - 1)]!.objects.has(low, high)) return; // the missing ones themselves
    seen.add(low, high);
    queue[tail++] = low;
    queue[tail++] = high;
  };
  const roots = storage.rootsObjectId;
  if (roots === 0n) return seen;
  push(Number(roots & 0xffffffffn) | 0, Number(roots >> 32n) | 0);
  for (let head = 0; head < tail; head += 2) {
    const id = (BigInt(queue[head + 1]!) << 32n) | BigInt(queue[head]! >>> 0);
    const entity = await storage.readEntity(id).catch(() => undefined);
    if (entity === undefined) continue;
    const entry = storage.dictionary.byId.get(entity.typeId);
    if (entry === undefined || unloadableReason(entry) !== undefined) continue;
    if (!throughLazy && LAZY_TYPE.test(entry.typeName)) continue; // loaded on demand, not at start
    let layout;
    try {
      layout = layoutEntity(entry, entity.content);
    } catch {
      continue; // an unreadable record: check reports it on its own
    }
    forEachReference(layout, push);
  }
  return seen;
}

/** A set of object ids (two 32-bit halves), open addressing in typed arrays. */
class IdSet {
  private readonly keys: Int32Array;
  private readonly used: Uint8Array;
  private readonly mask: number;

  constructor(expected: number) {
    let capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    this.keys = new Int32Array(2 * capacity);
    this.used = new Uint8Array(capacity);
    this.mask = capacity - 1;
  }

  has(low: number, high: number): boolean {
    for (let i = this.slot(low, high); ; i = (i + 1) & this.mask) {
      if (this.used[i] === 0) return false;
      if (this.keys[2 * i] === low && this.keys[2 * i + 1] === high) return true;
    }
  }

  add(low: number, high: number): void {
    let i = this.slot(low, high);
    while (this.used[i] !== 0) i = (i + 1) & this.mask;
    this.used[i] = 1;
    this.keys[2 * i] = low;
    this.keys[2 * i + 1] = high;
  }

  private slot(low: number, high: number): number {
    return ((Math.imul(low, 0x9e3779b1) ^ Math.imul(high, 0x85ebca6b)) >>> 0) & this.mask;
  }
}
