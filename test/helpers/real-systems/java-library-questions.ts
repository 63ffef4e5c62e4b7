import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { JAVA_REFERENCE_VARIABLE } from './java-reference.js';

/**
 * The SQL bench's Java program (bench/sql/java/LibraryQuestions.java): the bench's two questions
 * answered by an application on the real MicroStream 4.1 (start the embedded storage, walk from
 * the root, count). Compiled with `javac` into a temporary directory; run on a copy of a storage
 * (the library writes a lock file into what it opens); its answers compared with `sql --format csv`.
 * Shared by the bench (bench/sql/sql-java-table.ts, which measures it) and the test that checks
 * its answers (test/sql/java-library-questions.test.ts).
 */

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const LIBRARY_QUESTIONS_SOURCE = join(REPO, 'bench', 'sql', 'java', 'LibraryQuestions.java');
const LIBRARY_JAR = 'microstream-4.1.jar';

/**
 * The directory of the real libraries' jars: the one STORAGE_INSPECTOR_JAVA_REFERENCE names, else
 * `../shared/java` beside the clone (where CI lays the shared reference material, see .ci/run).
 */
export function javaJarDirectory(): string | undefined {
  const named = process.env[JAVA_REFERENCE_VARIABLE];
  if (named !== undefined && named !== '') return existsSync(join(named, LIBRARY_JAR)) ? named : undefined;
  const beside = join(REPO, '..', 'shared', 'java');
  return existsSync(join(beside, LIBRARY_JAR)) ? beside : undefined;
}

/** Why the Java program cannot be compiled and run here, or undefined when it can. */
export function libraryQuestionsMissing(): string | undefined {
  for (const tool of ['java', 'javac']) {
    if (spawnSync(tool, ['-version'], { encoding: 'utf8' }).error !== undefined) return `${tool} is not on the PATH`;
  }
  const jars = javaJarDirectory();
  if (jars === undefined) return `no ${LIBRARY_JAR} in the directory ${JAVA_REFERENCE_VARIABLE} names, nor in ../shared/java beside the clone`;
  for (const jar of ['generated-types-v1.jar', 'generated-types-v2.jar']) if (!existsSync(join(jars, jar))) return `${jars} holds no ${jar}`;
  return undefined;
}

export interface CompiledQuestions {
  /** `java`'s arguments that answer the questions on `storageCopy` with at most `heap` (e.g. `16g`) of heap. */
  javaArgs(storageCopy: string, heap: string): string[];
  dispose(): void;
}

/**
 * `generate` writes gen.Book in one shape, or two after its type change (the second shape's class
 * is then the application's current one, as `ms41` chooses): the jar of type classes that fits.
 */
function typesJar(jars: string, storage: string): string {
  const dictionary = readFileSync(join(storage, 'PersistenceTypeDictionary.ptd'), 'utf8');
  const shapes = dictionary.split('\n').filter((line) => line.includes(' gen.Book{')).length;
  return join(jars, shapes >= 2 ? 'generated-types-v2.jar' : 'generated-types-v1.jar');
}

/** javac into a temporary directory (the fields it uses are the same in both shapes of the types). */
export function compileLibraryQuestions(): CompiledQuestions {
  const jars = javaJarDirectory();
  if (jars === undefined) throw new Error(libraryQuestionsMissing());
  const classes = mkdtempSync(join(tmpdir(), 'library-questions-classes-'));
  const compiled = spawnSync('javac', ['-cp', [join(jars, LIBRARY_JAR), join(jars, 'generated-types-v1.jar')].join(':'), '-d', classes, LIBRARY_QUESTIONS_SOURCE], { encoding: 'utf8' });
  if (compiled.status !== 0) {
    rmSync(classes, { recursive: true, force: true });
    throw new Error(`javac ${LIBRARY_QUESTIONS_SOURCE} failed: ${compiled.stderr}${compiled.error?.message ?? ''}`);
  }
  return {
    javaArgs: (storageCopy, heap) => {
      if (!/^\d+[mg]$/.test(heap)) throw new Error(`heap ${heap}: a number of m or g expected`);
      return [`-Xmx${heap}`, '-cp', [join(jars, LIBRARY_JAR), typesJar(jars, storageCopy), classes].join(':'), 'LibraryQuestions', storageCopy];
    },
    dispose: () => rmSync(classes, { recursive: true, force: true }),
  };
}

/** A copy of `storage` for the library to open, removed after `use` (whatever it did). */
export async function withStorageCopy<T>(storage: string, use: (copy: string) => Promise<T>): Promise<T> {
  const work = mkdtempSync(join(tmpdir(), 'library-questions-storage-'));
  try {
    const copy = join(work, 'storage');
    cpSync(storage, copy, { recursive: true });
    return await use(copy);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** RFC 4180 fields of a CSV text (quoted fields with doubled quotes), rows without the empty last line. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') row.push(field), (field = '');
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field), rows.push(row), (row = []), (field = '');
    } else field += c;
  }
  if (field !== '' || row.length > 0) row.push(field), rows.push(row);
  return rows;
}

/**
 * How the Java program's answers differ from ours (`sql --format csv`, one text per question, in
 * the program's order), one line per difference; empty when they are equal. Every field is compared
 * as text except `average`: DuckDB divides the exact decimal sum in binary floating point, Java
 * rounds the exact quotient, so the two may differ in the last bits (relative 1e-12 allowed).
 */
export function answerDifferences(ours: readonly string[], javaStdout: string): string[] {
  const theirs = javaStdout.replace(/\r\n/g, '\n').trim().split(/\n\n/);
  const differences: string[] = [];
  if (theirs.length !== ours.length) return [`the Java program printed ${theirs.length} answers, ${ours.length} expected`];
  ours.forEach((text, q) => {
    const a = parseCsv(text.trim());
    const b = parseCsv(theirs[q]!);
    if (a.length !== b.length) differences.push(`question ${q + 1}: sql ${a.length - 1} rows, Java ${b.length - 1}`);
    const header = a[0] ?? [];
    for (let r = 0; r < Math.min(a.length, b.length); r++) {
      const x = a[r]!;
      const y = b[r]!;
      if (x.length !== y.length) differences.push(`question ${q + 1}, line ${r + 1}: sql ${x.join(',')} | Java ${y.join(',')}`);
      for (let c = 0; c < Math.min(x.length, y.length); c++) {
        const same =
          r > 0 && header[c] === 'average' ? Math.abs(Number(x[c]) - Number(y[c])) <= 1e-12 * Math.abs(Number(x[c])) : x[c] === y[c];
        if (!same) differences.push(`question ${q + 1}, line ${r + 1}, ${header[c] ?? `column ${c + 1}`}: sql ${x[c]} | Java ${y[c]}`);
      }
    }
  });
  return differences;
}
