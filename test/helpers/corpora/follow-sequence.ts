import { appendFileSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFORMANCE_DIR, type RecordedCase } from './conformance.js';

/** The recorded life of a storage that a running Java process kept writing (follow/SEQ1). */
export const SEQUENCE_DIR = join(CONFORMANCE_DIR, 'follow', 'SEQ1');

export interface FileOp {
  readonly op: 'create' | 'append' | 'truncate' | 'delete';
  readonly path: string;
  readonly offset?: number;
  readonly length?: number;
  readonly data?: string;
  readonly role?: string;
  readonly commitEntry?: boolean;
}

export interface Transition {
  readonly from: string;
  readonly to: string;
  readonly kind: 'commit' | 'housekeeping';
  readonly commitOp: number | null;
  readonly ops: readonly FileOp[];
}

export interface StateCases {
  readonly storageDir: string;
  readonly cases: readonly RecordedCase[];
}

export function loadTransitions(): Transition[] {
  return (JSON.parse(readFileSync(join(SEQUENCE_DIR, 'transitions.json'), 'utf8')) as { transitions: Transition[] }).transitions;
}

export function loadStateCases(state: string): StateCases {
  const [first, ...rest] = readFileSync(join(SEQUENCE_DIR, 'states', `${state}.jsonl`), 'utf8').split('\n').filter((l) => l !== '');
  const header = JSON.parse(first ?? '{}') as { storageDir: string };
  return {
    storageDir: header.storageDir,
    cases: rest.map((l) => ({ method: 'GET', ...(JSON.parse(l) as Omit<RecordedCase, 'method'>) }) as RecordedCase),
  };
}

/**
 * Applies one file operation to a live directory; an append can be split so that a reader sees
 * the first `part` bytes before the rest.
 */
export function applyOp(dir: string, op: FileOp, range?: { readonly start: number; readonly end: number }): void {
  const path = join(dir, op.path);
  switch (op.op) {
    case 'create':
      writeFileSync(path, Buffer.alloc(0), { flag: 'wx' });
      break;
    case 'append': {
      const data = Buffer.from(op.data ?? '', 'base64');
      appendFileSync(path, range === undefined ? data : data.subarray(range.start, range.end));
      break;
    }
    case 'truncate':
      truncateSync(path, op.length ?? 0);
      break;
    case 'delete':
      rmSync(path);
      break;
  }
}
