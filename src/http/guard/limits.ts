import type { ServerErrorCode } from '../../errors.js';
import { layoutEntity, type VariableSlot } from '../../format/entity-layout.js';
import type { TypeEntry } from '../../format/type-dictionary.js';
import { pageEnd, type DescribeOptions, type EntitySource, type HaltingSource } from '../../inspect/describe-object.js';
import type { AnswerBudget } from '../../inspect/description-bytes.js';
import { simplifiedRenderer } from '../../inspect/simplified-value.js';
import { bigAnswerSlots, isBig, type BigAnswerAdmission } from './big-answers.js';

/**
 * Per-request limits that the Java service does not have: a response size limit and a deadline.
 * Both only trigger above their limits, which are far above anything a Java-compatible answer of
 * the corpus needs; below them every answer is unchanged.
 *
 * The size of an object answer is known only while it is being built (`references=true` with an
 * unbounded window describes every referenced object). So the budget is charged twice: before an
 * object is described, with a lower bound of its JSON computed from its record (member and list
 * counts inside the window), so that a request that cannot fit is refused before its descriptions
 * pile up; and while the JSON is written, with the exact byte count, chunk by chunk, so that no
 * string larger than the limit is ever built.
 */

export const DEFAULT_MAX_RESPONSE_BYTES = 256 * 1024 * 1024;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/** A limit was exceeded; `code` goes into the X-Storage-Inspector-Error header. */
export class RequestLimitError extends Error {
  constructor(
    readonly code: Extract<ServerErrorCode, 'RESPONSE_TOO_LARGE' | 'REQUEST_TIMEOUT' | 'SERVER_BUSY' | 'SHUTTING_DOWN'>,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestLimitError';
  }
}

export function responseTooLarge(limit: number): RequestLimitError {
  return new RequestLimitError(
    'RESPONSE_TOO_LARGE',
    413,
    `the answer would be larger than the response size limit of ${limit} bytes (--max-response-bytes); ask for less with fixedLength, variableLength, valueLength or without references=true`,
  );
}

export function shuttingDown(): RequestLimitError {
  return new RequestLimitError('SHUTTING_DOWN', 503, 'the server is shutting down; this big answer was not started (answers already started are completed)');
}

export function requestTimedOut(timeoutMs: number): RequestLimitError {
  return new RequestLimitError('REQUEST_TIMEOUT', 503, `the request took longer than the request timeout of ${timeoutMs} ms (--request-timeout)`);
}

/** Bytes and time one request may still use. */
export class RequestBudget implements AnswerBudget {
  private charged = 0;
  private release: (() => void) | undefined;
  private readonly deadline: number;

  constructor(
    readonly maxBytes: number,
    readonly timeoutMs: number,
    /** From the HTTP layer: big answers are admitted outside the request (big-answers.ts). */
    private readonly admission?: BigAnswerAdmission,
  ) {
    this.deadline = admission?.deadline ?? (timeoutMs > 0 ? Date.now() + timeoutMs : Number.POSITIVE_INFINITY);
  }

  /** Adds bytes that the answer will certainly contain; throws once they exceed the limit. */
  charge(bytes: number): void {
    this.charged += bytes;
    if (this.charged > this.maxBytes) throw responseTooLarge(this.maxBytes);
  }

  /** The error for an answer that would exceed `maxBytes` (description-bytes.ts throws it). */
  tooLarge(): RequestLimitError {
    return responseTooLarge(this.maxBytes);
  }

  /** Throws once the deadline has passed. */
  checkTime(): void {
    if (Date.now() > this.deadline) throw requestTimedOut(this.timeoutMs);
  }

  get chargedBytes(): number {
    return this.charged;
  }

  /**
   * Whether the answer may go on being built: false once this request is known to be big and has
   * not been admitted (its HTTP layer waits for admission and runs it again). Without an HTTP
   * layer (library use) a big answer waits for a building slot right here, kept until `finish`.
   */
  async admitBig(lowerBound: number, reads: number): Promise<boolean> {
    if (!isBig(lowerBound, reads)) return true;
    if (this.admission !== undefined) return this.admission.admitted;
    if (this.release !== undefined) return true;
    this.release = await bigAnswerSlots.acquire();
    this.checkTime();
    return true;
  }

  /** Ends the request: frees a slot taken by `admitBig`. */
  finish(): void {
    this.release?.();
  }
}

/** Entity reads after which a long description yields to other requests. */
const YIELD_EVERY_READS = 256;

/**
 * A single object (references=false) whose record is smaller than this cannot produce a big
 * answer (2 JSON bytes per 8-byte value at least, but far from BIG_ANSWER_BYTES): its lower bound
 * is not computed, which keeps small requests as cheap as before.
 */
const SINGLE_OBJECT_CHECK_BYTES = 64 * 1024;

/**
 * Wraps an entity source so that every entity read for a description first charges a lower bound
 * of the JSON that describing it will produce (with the request's windows), and checks the deadline.
 * Without references=true, only a big record is charged (a single object can be a huge list).
 */
export function budgetedSource(source: EntitySource, budget: RequestBudget, options: DescribeOptions): HaltingSource {
  return new BudgetedSource(source, budget, options);
}

/**
 * A class, not an object literal with a getter: V8 builds such a literal in its runtime, in
 * dictionary mode, and through the getter's closure it kept each request's objects (its budget,
 * the admission, the request itself) alive across the young generation's collections, which
 * promoted them to the old one. Measured on /object at 10M entities, 15k requests/s over 64
 * connections: 2 KB promoted per request before, none after; the server's CPU per request
 * 44 → 32 µs. test/http/java/per-request-shapes.test.ts keeps the wrappers fast, and
 * `npm run bench:garbage` measures what an answer promotes.
 */
class BudgetedSource implements HaltingSource {
  /** Set once the answer turned out big before its admission: the description stops here. */
  halted = false;
  private readonly lowerBound: RequestBudget;
  private reads = 0;

  constructor(
    private readonly source: EntitySource,
    private readonly budget: RequestBudget,
    private readonly options: DescribeOptions,
  ) {
    this.lowerBound = new RequestBudget(budget.maxBytes, 0);
  }

  get dictionary(): EntitySource['dictionary'] {
    return this.source.dictionary;
  }

  async readEntity(objectId: bigint): ReturnType<EntitySource['readEntity']> {
    // A request describing thousands of objects lets the others in now and then.
    if (++this.reads % YIELD_EVERY_READS === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    // Not before the first read: the request has only just begun (a clock read less per answer).
    if (this.reads > 1) this.budget.checkTime();
    const entity = await this.source.readEntity(objectId);
    if (entity === undefined) return entity;
    const options = this.options;
    if (!options.references && entity.content.length < SINGLE_OBJECT_CHECK_BYTES && !holdsEmptyElements(this.source.dictionary.byId.get(entity.typeId))) return entity;
    const estimate = descriptionEstimate(this.source, entity.objectId, entity.typeId, entity.content, options);
    this.lowerBound.charge(estimate.bytes);
    // The first object of references=true tells how many others will be described.
    const reads = this.reads;
    const expectedReads = reads === 1 && options.references ? Math.max(reads, estimate.values) : reads;
    if (!(await this.budget.admitBig(this.lowerBound.chargedBytes, expectedReads))) this.halted = true;
    return entity;
  }
}

/**
 * Whether the type has a top-level `[list]` of elements without members: they take 0 bytes each, so
 * a small record may claim up to 2^31 - 1 of them (entity-layout.ts), each a value of the answer.
 */
function holdsEmptyElements(entry: TypeEntry | undefined): boolean {
  return entry !== undefined && entry.fields.some((f) => f.kind === 'list' && f.elements.length === 0);
}

/** The frame of a description without its values. */
const SKELETON_BYTES = '{"objectId":"","typeId":"","length":"","variableLength":,"simplified":,"data":[],"references":}'.length;
/** Smallest values: a one-digit length, `null` variable lengths, `true`, `[]` references. */
const SKELETON_MIN_VALUES = 1 + 4 + 4 + 2;

/**
 * A number of bytes that the JSON description of this entity certainly reaches: the fixed frame
 * with its ids, plus at least two bytes (`""`, `"0"`, `[]`) for every value in the windows
 * (separators not even counted), and the number of those values. Damaged content contributes
 * only the frame; describing it fails anyway.
 */
export function descriptionEstimate(
  source: EntitySource,
  objectId: bigint,
  typeId: bigint,
  content: Uint8Array,
  options: DescribeOptions,
): { readonly bytes: number; readonly values: number } {
  const frame = SKELETON_BYTES + SKELETON_MIN_VALUES + String(objectId).length + String(typeId).length;
  const entry = source.dictionary.byId.get(typeId);
  if (entry === undefined || simplifiedRenderer(entry, source.dictionary) !== undefined) return { bytes: frame, values: 0 };
  let layout;
  try {
    layout = layoutEntity(entry, content);
  } catch {
    return { bytes: frame, values: 0 };
  }
  let values = 0;
  let fixedCount = 0;
  for (const slot of layout.slots) if (!slot.variable) fixedCount++;
  values += Math.max(0, pageEnd(fixedCount, options.fixedOffset, options.fixedLength) - options.fixedOffset);
  for (const slot of layout.slots) {
    if (!slot.variable) continue;
    const count = (slot as VariableSlot).count;
    values += 1 + Math.max(0, pageEnd(count, options.variableOffset, options.variableLength) - options.variableOffset);
  }
  return { bytes: frame + 2 * values, values };
}
