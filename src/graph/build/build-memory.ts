import type { Allocator } from './build-state.js';

/**
 * Where a graph build's typed arrays live: in memory of this thread alone, or in shared memory
 * when a worker thread reads or writes them too (a message then hands over the same bytes, no
 * copy).
 */

export interface BuildMemory extends Allocator {
  u8(length: number): Uint8Array;
}

/** Typed arrays of a build that no other thread reads. */
export const unshared: BuildMemory = {
  u32: (length) => new Uint32Array(length),
  u16: (length) => new Uint16Array(length),
  u8: (length) => new Uint8Array(length),
  i32: (length) => new Int32Array(length),
};

/** Typed arrays over shared memory (a worker thread sees the same bytes). */
export const shared: BuildMemory = {
  u32: (length) => new Uint32Array(new SharedArrayBuffer(length * 4)),
  u16: (length) => new Uint16Array(new SharedArrayBuffer(length * 2)),
  u8: (length) => new Uint8Array(new SharedArrayBuffer(length)),
  i32: (length) => new Int32Array(new SharedArrayBuffer(length * 4)),
};
