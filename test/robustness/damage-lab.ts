import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { isAppError } from '../../src/errors.js';
import { fixedSizeOf, layoutEntity, listElementSize } from '../../src/format/entity-layout.js';
import { parseTypeDictionary, type FieldDescriptor, type TypeDictionary } from '../../src/format/type-dictionary.js';
import { checkStorage } from '../../src/check/check-storage.js';
import { checkServable } from '../../src/http/java/integrity.js';
import { answerRequest, type Answer } from '../../src/http/java/java-service.js';
import { Storage } from '../../src/storage/storage.js';
import { corpusStorage } from '../security/server.js';

/**
 * Damaged copies of corpus storages and an oracle for what serving them may answer.
 *
 * A case damages a fresh copy of a corpus storage. Then either opening fails with an error that
 * names the file (and the offset, for byte-level damage) — a "startup error" — or the storage is
 * served, and every request of a fixed set (each entity plainly and with references=true, the
 * root, the dictionary, the statistics, the route list) is compared with the undamaged answer:
 *
 * - intact: the same status, content type and body;
 * - reported: a 500 whose X-Storage-Inspector-Error names a storage problem (FORMAT_*, STORAGE_*);
 * - flagged: a different answer that carries X-Storage-Inspector-Warning (a damaged region of the
 *   storage may hold a newer version of the object, or the object itself);
 * - missing: `404 No entity found` for an object the case says may be lost (its record header
 *   is gone, so nobody can know the id any more), or for a request that touches one;
 * - undetectable: a different 200 where the case says a different answer cannot be detected
 *   (a flipped value byte that still decodes: MicroStream has no checksums);
 * - wrong: anything else, e.g. a different 200 presented as right, a 500 without a storage
 *   error code, a crash or a hang. A case with any wrong answer fails.
 */

export type Verdict = 'intact' | 'reported' | 'flagged' | 'missing' | 'undetectable' | 'wrong';

export interface DamageCase {
  readonly kind: string;
  readonly name: string;
  /** Damages the copy at `dir` in place. */
  readonly apply: (dir: string) => void;
  /** Object ids that may answer 404 (their record can no longer be found at all). */
  readonly mayLose?: (objectId: bigint) => boolean;
  /** Whether a different 200 for a request is acceptable (undetectable value damage). */
  readonly mayChange?: boolean;
  /** For a startup error: text the message must contain (file name, offset...). */
  readonly startupErrorMentions?: readonly (string | RegExp)[];
  /** The case must not start (e.g. the dictionary is missing). */
  readonly mustRefuse?: boolean;
  /** The case changes the dictionary file (so `/dictionary` serves what is there now). */
  readonly changesDictionary?: boolean;
}

export interface CaseOutcome {
  readonly kind: string;
  readonly name: string;
  readonly result: 'startup-error' | 'served' | 'hang' | 'crash';
  readonly message?: string;
  readonly warnings: readonly string[];
  readonly counts: Readonly<Record<Verdict, number>>;
  /** Descriptions of wrong answers (empty when the case passes). */
  readonly problems: readonly string[];
  /** The exit code of `check` on the damaged copy, for the cases it ran on. */
  readonly checkExitCode?: number | undefined;
}

const HANG_MS = 10_000;
const STORAGE_CODE = /^(FORMAT_(?!JAVA_VALUE)[A-Z_]+|STORAGE_[A-Z_]+): /;
const JAVA_VALUE_CODE = /^FORMAT_JAVA_VALUE: /;

export class DamageLab {
  readonly requests: string[];
  private constructor(
    readonly corpus: string,
    private readonly source: string,
    private readonly work: string,
    readonly entityIds: readonly bigint[],
    private readonly baseline: ReadonlyMap<string, Answer>,
    readonly dictionary: TypeDictionary,
  ) {
    this.requests = [...baseline.keys()];
  }

  static async create(corpus: string, ids?: readonly bigint[]): Promise<DamageLab> {
    const source = corpusStorage(corpus);
    const work = mkdtempSync(join(tmpdir(), `si-damage-${corpus}-`));
    const storage = await Storage.open(source);
    try {
      const entityIds = ids ?? allEntityIds(storage);
      const requests = ['/', '/microstream/root', '/microstream/dictionary', '/microstream/maintenance/filesStatistics'];
      for (const id of entityIds) requests.push(`/microstream/object/${id}`, `/microstream/object/${id}?references=true&variableLength=64`);
      const baseline = new Map<string, Answer>();
      for (const url of requests) baseline.set(url, await ask(storage, url));
      return new DamageLab(corpus, source, work, entityIds, baseline, storage.dictionary);
    } finally {
      await storage.close();
    }
  }

  /** The corpus storage's files (relative paths) and their bytes, and its folders, read once. */
  private originals: Map<string, Buffer> | undefined;
  private readonly folders = new Set<string>();

  /**
   * A fresh copy of the corpus storage (the previous case's damage removed): byte for byte the
   * corpus storage, no file more or less. Only what differs is written again (a case damages a
   * file or two): copying the whole storage for each of the 1,210 cases took the most of the
   * suite's damage tests (884 KB for `collections`, 67 ms of wall time a copy on a loaded disk).
   */
  freshCopy(): string {
    if (this.originals === undefined) {
      this.originals = new Map();
      const walk = (relativeDir: string): void => {
        for (const entry of readdirSync(join(this.source, relativeDir), { withFileTypes: true })) {
          const path = join(relativeDir, entry.name);
          if (entry.isDirectory()) {
            this.folders.add(path);
            walk(path);
          } else this.originals!.set(path, readFileSync(join(this.source, path)));
        }
      };
      walk('');
    }
    mkdirSync(this.work, { recursive: true });
    // Whatever the corpus does not hold goes (nothing a case writes is kept).
    const prune = (relativeDir: string): void => {
      for (const entry of readdirSync(join(this.work, relativeDir), { withFileTypes: true })) {
        const path = join(relativeDir, entry.name);
        if (entry.isDirectory() && this.folders.has(path)) prune(path);
        else if (entry.isDirectory() || !this.originals!.has(path)) rmSync(join(this.work, path), { recursive: true, force: true });
      }
    };
    prune('');
    for (const folder of this.folders) mkdirSync(join(this.work, folder), { recursive: true });
    for (const [path, bytes] of this.originals) {
      const target = join(this.work, path);
      if (existsSync(target) && statSync(target).size === bytes.length && readFileSync(target).equals(bytes)) continue;
      writeFileSync(target, bytes);
    }
    return this.work;
  }

  dispose(): void {
    rmSync(this.work, { recursive: true, force: true });
  }

  /** Path of a file of the copy, relative to the storage directory. */
  path(relativePath: string): string {
    return join(this.work, relativePath);
  }

  /** Data files of the corpus storage, relative paths, with their sizes. */
  dataFiles(): { path: string; size: number }[] {
    const out: { path: string; size: number }[] = [];
    for (const channel of readdirSync(this.source).filter((n) => n.startsWith('channel_')).sort()) {
      for (const name of readdirSync(join(this.source, channel)).filter((n) => n.endsWith('.dat')).sort()) {
        out.push({ path: join(channel, name), size: statSync(join(this.source, channel, name)).size });
      }
    }
    return out;
  }

  logFiles(): string[] {
    return readdirSync(this.source)
      .filter((n) => n.startsWith('channel_'))
      .sort()
      .map((channel) => join(channel, `transactions_${channel.slice('channel_'.length)}.sft`));
  }

  originalBytes(relativePath: string): Buffer {
    return readFileSync(join(this.source, relativePath));
  }

  /** Every how many cases `check` runs on the damaged copy too (see `checkCase`). */
  private checked = 0;

  async run(c: DamageCase): Promise<CaseOutcome> {
    const dir = this.freshCopy();
    c.apply(dir);
    const outcome = await this.serveCase(c, dir);
    if (this.checked++ % CHECK_EVERY !== 0) return outcome;
    return { ...outcome, ...(await checkCase(dir, outcome)) };
  }

  private async serveCase(c: DamageCase, dir: string): Promise<CaseOutcome> {
    const counts: Record<Verdict, number> = { intact: 0, reported: 0, flagged: 0, missing: 0, undetectable: 0, wrong: 0 };
    const problems: string[] = [];
    let storage: Storage;
    try {
      storage = await withTimeout(Storage.open(dir), HANG_MS);
      try {
        checkServable(storage); // what `serve` checks after opening
      } catch (error) {
        await storage.close();
        throw error;
      }
    } catch (error) {
      if (error === HANG) return { kind: c.kind, name: c.name, result: 'hang', warnings: [], counts, problems: ['opening hangs'] };
      const message = error instanceof Error ? error.message : String(error);
      if (!isAppError(error)) {
        return { kind: c.kind, name: c.name, result: 'crash', message, warnings: [], counts, problems: [`opening crashed: ${String(error)}`] };
      }
      for (const mention of c.startupErrorMentions ?? []) {
        if (typeof mention === 'string' ? !message.includes(mention) : !mention.test(message)) {
          problems.push(`startup error does not mention ${String(mention)}: ${message}`);
        }
      }
      return { kind: c.kind, name: c.name, result: 'startup-error', message, warnings: [], counts, problems };
    }
    try {
      if (c.mustRefuse === true) problems.push('started, but must refuse to');
      for (const url of this.requests) {
        let answer: Answer;
        try {
          answer = await withTimeout(ask(storage, url), HANG_MS);
        } catch (error) {
          counts.wrong++;
          problems.push(`${url}: ${error === HANG ? 'hangs' : `throws ${String(error)}`}`);
          continue;
        }
        const verdict = this.judge(c, url, answer);
        counts[verdict]++;
        if (verdict === 'wrong') problems.push(`${url}: ${describe(answer)} (undamaged: ${describe(this.baseline.get(url)!)})`);
      }
      return { kind: c.kind, name: c.name, result: 'served', warnings: [...storage.warnings], counts, problems };
    } finally {
      await storage.close();
    }
  }

  private judge(c: DamageCase, url: string, answer: Answer): Verdict {
    const expected = this.baseline.get(url)!;
    const same = answer.status === expected.status && answer.contentType === expected.contentType && answer.body.equals(expected.body);
    if (same) return 'intact';
    if (url === '/microstream/maintenance/filesStatistics') return answer.status === 200 ? 'intact' : 'wrong';
    if (url === '/microstream/dictionary' && c.changesDictionary === true) return answer.status === 200 ? 'intact' : 'wrong';
    const error = answer.headers?.['x-storage-inspector-error'] ?? '';
    if (answer.status === 500 && (STORAGE_CODE.test(error) || JAVA_VALUE_CODE.test(error))) return 'reported';
    if (answer.headers?.['x-storage-inspector-warning'] !== undefined) return 'flagged';
    if (answer.status === 404) {
      const lost = /^No entity found for objectId (\d+)$/.exec(answer.body.toString());
      if (lost !== null && c.mayLose?.(BigInt(lost[1]!)) === true) return 'missing';
    }
    if (c.mayChange === true && answer.status === 200 && expected.status === 200) return 'undetectable';
    if (c.mayChange === true && answer.status === 404 && /^No entity found/.test(answer.body.toString())) return 'undetectable';
    return 'wrong';
  }
}

const HANG = Symbol('hang');

/** `check` runs on every CHECK_EVERY-th damaged copy (all of them would double the suite's time). */
const CHECK_EVERY = 5;

/**
 * `check` on a damaged copy: it must not crash or hang, and it must exit 1 whenever our server
 * refuses the copy or answers an object with a storage error or a warning (then MicroStream would
 * refuse it, or data is unreadable).
 */
async function checkCase(dir: string, outcome: CaseOutcome): Promise<Pick<CaseOutcome, 'checkExitCode' | 'problems'>> {
  const problems = [...outcome.problems];
  try {
    const report = await withTimeout(checkStorage(dir), HANG_MS);
    const damageSeen = outcome.result === 'startup-error' || outcome.counts.reported + outcome.counts.flagged > 0;
    if (damageSeen && report.exitCode !== 1) {
      problems.push(`check exits ${report.exitCode} although serve ${outcome.result === 'startup-error' ? `refuses (${outcome.message ?? ''})` : 'reports damage'}`);
    }
    return { checkExitCode: report.exitCode, problems };
  } catch (error) {
    if (isAppError(error) && /is not a MicroStream or EclipseStore storage/.test(error.message)) return { checkExitCode: 1, problems };
    problems.push(`check ${error === HANG ? 'hangs' : `crashed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`}`);
    return { checkExitCode: undefined, problems };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(HANG), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function ask(storage: Storage, url: string): Promise<Answer> {
  return storage.consistent(() => answerRequest(storage, { instance: 'microstream' }, { method: 'GET', url, headers: {} }));
}

function describe(answer: Answer): string {
  const body = answer.body.length > 160 ? `${answer.body.subarray(0, 160).toString()}...` : answer.body.toString();
  const error = answer.headers?.['x-storage-inspector-error'];
  const warning = answer.headers?.['x-storage-inspector-warning'];
  return `${answer.status} ${JSON.stringify(body)}${error === undefined ? '' : ` [${error}]`}${warning === undefined ? '' : ` [${warning}]`}`;
}

/** Every object id with a record in the storage, ascending. */
function allEntityIds(storage: Storage): bigint[] {
  const ids: bigint[] = [];
  for (const channel of storage.channels) {
    channel.objects.forEach((low, high) => ids.push((BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)));
  }
  return ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** What a byte of a data file is, for deciding whether damage to it can be detected. */
export type ByteRole =
  | 'record-length'
  | 'record-type'
  | 'record-oid'
  | 'list-header'
  | 'value'
  | 'reference'
  | 'gap'
  | 'beyond';

export interface RecordInfo {
  readonly offset: number;
  readonly length: number;
  readonly typeId: bigint;
  readonly objectId: bigint;
}

/** Walks a (valid) data file: its records and the role of every byte. */
export function mapDataFile(bytes: Buffer, dictionary: TypeDictionary): { records: RecordInfo[]; roles: ByteRole[] } {
  const roles = new Array<ByteRole>(bytes.length).fill('beyond');
  const records: RecordInfo[] = [];
  let pos = 0;
  while (pos + 8 <= bytes.length) {
    const length = Number(bytes.readBigInt64LE(pos));
    if (length < 0) {
      roles.fill('gap', pos, pos - length);
      pos -= length;
      continue;
    }
    if (length < 24 || pos + length > bytes.length) break;
    const typeId = bytes.readBigInt64LE(pos + 8);
    const objectId = bytes.readBigInt64LE(pos + 16);
    records.push({ offset: pos, length, typeId, objectId });
    roles.fill('record-length', pos, pos + 8);
    roles.fill('record-type', pos + 8, pos + 16);
    roles.fill('record-oid', pos + 16, pos + 24);
    const entry = dictionary.byId.get(typeId);
    const content = bytes.subarray(pos + 24, pos + length);
    if (entry !== undefined) {
      const layout = layoutEntity(entry, content);
      for (const slot of layout.slots) {
        if (!slot.variable) {
          roles.fill(slot.field.kind === 'reference' ? 'reference' : 'value', pos + 24 + slot.offset, pos + 24 + slot.offset + fixedSizeOf(slot.field)!);
        } else {
          markList(slot.field, content, slot.offset, pos + 24, roles);
        }
      }
    }
    pos += length;
  }
  return { records, roles };
}

/** Marks a binary list at `at` (content offset); returns the offset after it. */
function markList(field: FieldDescriptor, content: Buffer, at: number, base: number, roles: ByteRole[]): number {
  const total = Number(content.readBigInt64LE(at));
  const count = Number(content.readBigInt64LE(at + 8));
  roles.fill('list-header', base + at, base + at + 16);
  if (field.kind === 'chars' || field.kind === 'bytes') {
    roles.fill('value', base + at + 16, base + at + total);
    return at + total;
  }
  if (field.kind !== 'list') return at + total;
  let pos = at + 16;
  const fixed = listElementSize(field);
  for (let i = 0; i < count; i++) {
    for (const nested of field.elements) {
      const size = fixedSizeOf(nested);
      if (size !== undefined) {
        roles.fill(nested.kind === 'reference' ? 'reference' : 'value', base + pos, base + pos + size);
        pos += size;
      } else {
        pos = markList(nested, content, pos, base, roles);
      }
    }
  }
  if (fixed !== undefined && pos !== at + total) throw new Error('list walk disagrees with its header');
  return at + total;
}

/** Re-parses a dictionary text (for cases that edit it). */
export function dictionaryOf(text: string): TypeDictionary {
  return parseTypeDictionary(text);
}

export function describeOutcome(o: CaseOutcome): string {
  const c = o.counts;
  const head = `${o.kind} / ${o.name}: ${o.result}`;
  const detail = o.result === 'served' ? ` intact ${c.intact}, reported ${c.reported}, flagged ${c.flagged}, missing ${c.missing}, undetectable ${c.undetectable}, wrong ${c.wrong}` : ` ${o.message ?? ''}`;
  return `${head}${detail}`;
}

export function fileName(path: string): string {
  return basename(path);
}

export { relative };
