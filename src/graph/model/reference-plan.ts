import { fixedSizeOf, listElementSize } from '../../format/entity-layout.js';
import type { FieldDescriptor, ListField, TypeEntry } from '../../format/type-dictionary.js';

/**
 * Where the references of a type's entities are, compiled once per type from its dictionary
 * layout (storage-format.md §8): reference members at fixed offsets, reference elements of
 * `[list]` members (object arrays, collections, map entries as key/value pairs, nested lists),
 * `Lazy` subjects — whatever the layout says, nothing known per JDK class. Walking an entity with
 * its plan touches only list headers and reference slots; nothing is allocated per entity.
 */

/** A run of fixed-size members: its size and where its references are. */
interface FixedStep {
  readonly kind: 'fixed';
  readonly size: number;
  readonly refOffsets: Int32Array;
}

/** A `[char]`, `[byte]` or reference-free `[list]`: skipped by its header's total length. */
interface SkipListStep {
  readonly kind: 'skip';
}

/** A `[list]` of fixed-size elements with references at `refOffsets` inside each element. */
interface StrideListStep {
  readonly kind: 'stride';
  readonly stride: number;
  readonly refOffsets: Int32Array;
}

/** A `[list]` whose elements have variable size: each element is walked with `element`. */
interface NestedListStep {
  readonly kind: 'nested';
  readonly element: readonly Step[];
}

type Step = FixedStep | SkipListStep | StrideListStep | NestedListStep;

export interface ReferencePlan {
  readonly typeId: bigint;
  /** Whether entities of the type can hold references at all. */
  readonly hasReferences: boolean;
  /** Content length when every member is fixed-size, else -1. */
  readonly fixedLength: number;
  readonly steps: readonly Step[];
}

const LIST_HEADER = 16;

export function compileReferencePlan(entry: TypeEntry): ReferencePlan {
  const steps = compileSteps(entry.fields);
  const fixedLength = steps.length === 0 ? 0 : steps.length === 1 && steps[0]!.kind === 'fixed' ? steps[0]!.size : -1;
  return { typeId: entry.typeId, hasReferences: stepsHaveReferences(steps), fixedLength, steps };
}

function compileSteps(fields: readonly FieldDescriptor[]): Step[] {
  const steps: Step[] = [];
  let size = 0;
  let refs: number[] = [];
  const flush = (): void => {
    if (size > 0) steps.push({ kind: 'fixed', size, refOffsets: Int32Array.from(refs) });
    size = 0;
    refs = [];
  };
  for (const field of fields) {
    const fixed = fixedSizeOf(field);
    if (fixed !== undefined) {
      if (field.kind === 'reference') refs.push(size);
      size += fixed;
      continue;
    }
    flush();
    steps.push(listStep(field));
  }
  flush();
  return steps;
}

function listStep(field: FieldDescriptor): Step {
  if (field.kind !== 'list' || !listHasReferences(field)) return { kind: 'skip' };
  const stride = listElementSize(field);
  if (stride !== undefined) {
    const refOffsets: number[] = [];
    let at = 0;
    for (const nested of field.elements) {
      if (nested.kind === 'reference') refOffsets.push(at);
      at += fixedSizeOf(nested)!;
    }
    return { kind: 'stride', stride, refOffsets: Int32Array.from(refOffsets) };
  }
  return { kind: 'nested', element: compileSteps(field.elements) };
}

function listHasReferences(field: ListField): boolean {
  return field.elements.some((e) => e.kind === 'reference' || (e.kind === 'list' && listHasReferences(e)));
}

function stepsHaveReferences(steps: readonly Step[]): boolean {
  return steps.some((s) => (s.kind === 'fixed' || s.kind === 'stride' ? s.refOffsets.length > 0 : s.kind === 'nested' && stepsHaveReferences(s.element)));
}

/**
 * Receives the references found, as two signed 32-bit halves of the id (null references too;
 * the caller decides what an id means).
 */
export type ReferenceSink = (low: number, high: number) => void;

/** Why an entity's bytes do not fit its plan (the caller names the file and offset). */
export class PlanMismatch extends Error {
  constructor(
    message: string,
    /** Offset of the problem relative to the content start. */
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * Reports every reference of one entity whose content is `view[start, end)`. Throws PlanMismatch
 * when the bytes do not have the layout's shape (a list running past its container, a content
 * length that differs from the members' total).
 */
export function walkReferences(plan: ReferencePlan, view: DataView, start: number, end: number, sink: ReferenceSink): void {
  if (plan.fixedLength >= 0) {
    if (end - start !== plan.fixedLength) throw new PlanMismatch(`content is ${end - start} bytes, the type's members take ${plan.fixedLength}`, 0);
    const step = plan.steps[0];
    if (step !== undefined && step.kind === 'fixed') emitFixed(step.refOffsets, view, start, sink);
    return;
  }
  const pos = walkSteps(plan.steps, view, start, end, start, sink);
  if (pos !== end) throw new PlanMismatch(`content is ${end - start} bytes but the members take ${pos - start}`, pos - start);
}

function emitFixed(refOffsets: Int32Array, view: DataView, at: number, sink: ReferenceSink): void {
  for (let i = 0; i < refOffsets.length; i++) {
    const p = at + (refOffsets[i] as number);
    sink(view.getInt32(p, true), view.getInt32(p + 4, true));
  }
}

function walkSteps(steps: readonly Step[], view: DataView, pos: number, limit: number, contentStart: number, sink: ReferenceSink): number {
  for (let s = 0; s < steps.length; s++) {
    const step = steps[s]!;
    if (step.kind === 'fixed') {
      if (pos + step.size > limit) throw new PlanMismatch('content ends inside a member', pos - contentStart);
      emitFixed(step.refOffsets, view, pos, sink);
      pos += step.size;
      continue;
    }
    if (pos + LIST_HEADER > limit) throw new PlanMismatch('content ends inside a list header', pos - contentStart);
    // Lengths above 2^32 cannot fit in a data file's record: the high words must be zero.
    if (view.getInt32(pos + 4, true) !== 0 || view.getInt32(pos + 12, true) !== 0) {
      throw new PlanMismatch('implausible list length or element count', pos - contentStart);
    }
    const total = view.getUint32(pos, true);
    const count = view.getUint32(pos + 8, true);
    const listEnd = pos + total;
    if (total < LIST_HEADER || listEnd > limit) throw new PlanMismatch(`list claims ${total} bytes, ${limit - pos} available`, pos - contentStart);
    if (step.kind === 'stride') {
      if (total !== LIST_HEADER + count * step.stride) {
        throw new PlanMismatch(`list has ${count} elements of ${step.stride} bytes but ${total - LIST_HEADER} bytes`, pos - contentStart);
      }
      const offsets = step.refOffsets;
      let at = pos + LIST_HEADER;
      if (offsets.length === 1 && offsets[0] === 0 && step.stride === 8) {
        // Object arrays and collections: every element is one reference.
        for (; at < listEnd; at += 8) sink(view.getInt32(at, true), view.getInt32(at + 4, true));
      } else {
        for (; at < listEnd; at += step.stride) emitFixed(offsets, view, at, sink);
      }
    } else if (step.kind === 'nested') {
      let at = pos + LIST_HEADER;
      for (let i = 0; i < count; i++) at = walkSteps(step.element, view, at, listEnd, contentStart, sink);
      if (at !== listEnd) throw new PlanMismatch(`the ${count} elements of a list take ${at - pos - LIST_HEADER} of its ${total - LIST_HEADER} bytes`, pos - contentStart);
    }
    pos = listEnd;
  }
  return pos;
}
