import type { ObjectDescription } from './describe-object.js';
import { gsonString, javaUtf8 } from './gson-json.js';

/**
 * The JSON of an object description written as bytes within a budget: the Java services' object
 * answer, whose size is known only while it is written (`references=true` with an unbounded
 * window describes every referenced object). Beside `objectDescriptionJson` (describe-object.ts),
 * Gson's and Jackson's string literals (gson-json.ts, jackson-json.ts), which it writes alike.
 */

/** What a bounded answer may use (http/guard/limits.ts's RequestBudget): bytes, and a deadline checked as it goes. */
export interface AnswerBudget {
  readonly maxBytes: number;
  /** Throws once the answer may take no more time. */
  checkTime(): void;
  /** The error for an answer over `maxBytes`. */
  tooLarge(): Error;
}

/** Characters collected before they are encoded and counted. */
const CHUNK_CHARS = 64 * 1024;

/**
 * Writes JSON text into UTF-8 chunks (Java's encoding: a lone surrogate becomes `?`), counting
 * bytes as it goes and failing as soon as they exceed the limit. Text is only cut between
 * complete tokens, so a surrogate pair is never split.
 */
export class BoundedJsonWriter {
  private readonly chunks: Buffer[] = [];
  private pending: string[] = [];
  private pendingChars = 0;
  private bytes = 0;

  constructor(private readonly budget: AnswerBudget) {}

  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= CHUNK_CHARS) this.flush();
  }

  /** All bytes written, once; throws if they exceed the limit. */
  finish(): Buffer {
    // The answer is complete: past its deadline or not, it is cheaper to send than to refuse.
    this.flush(false);
    return this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.bytes);
  }

  private flush(checkTime = true): void {
    if (this.pending.length === 0) return;
    const chunk = javaUtf8(this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    this.bytes += chunk.length;
    if (this.bytes > this.budget.maxBytes) throw this.budget.tooLarge();
    if (checkTime) this.budget.checkTime();
    this.chunks.push(chunk);
  }
}

/**
 * The bytes of `objectDescriptionJson(d)` (Gson's compact form), written through a bounded writer.
 * Kept identical to `objectDescriptionJson`; test/security/limits.test.ts compares the two on every
 * object of the corpus.
 */
export function objectDescriptionBytes(d: ObjectDescription, budget: AnswerBudget, stringLiteral: (text: string) => string = gsonString): Buffer {
  const out = new BoundedJsonWriter(budget);
  writeDescription(out, d, stringLiteral);
  return out.finish();
}

type DataValue = ObjectDescription['data'][number];

function writeDescription(out: BoundedJsonWriter, d: ObjectDescription, stringLiteral: (text: string) => string): void {
  const variableLength = d.variableLength === null ? 'null' : `[${d.variableLength.map((n) => `"${n}"`).join(',')}]`;
  out.write(
    `{"objectId":"${d.objectId}","typeId":"${d.typeId}","length":"${d.length}","variableLength":${variableLength},"simplified":${d.simplified},"data":`,
  );
  writeData(out, d.data, stringLiteral);
  out.write(',"references":');
  if (d.references === null) {
    out.write('null}');
    return;
  }
  out.write('[');
  d.references.forEach((r, i) => {
    if (i > 0) out.write(',');
    if (r === null) out.write('null');
    else writeDescription(out, r, stringLiteral);
  });
  out.write(']}');
}

function writeData(out: BoundedJsonWriter, values: readonly DataValue[], stringLiteral: (text: string) => string): void {
  out.write('[');
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out.write(',');
    const v = values[i] as DataValue;
    if (typeof v === 'bigint') out.write(`"${v}"`);
    else if (typeof v === 'string') out.write(stringLiteral(v));
    else writeData(out, v, stringLiteral);
  }
  out.write(']');
}
