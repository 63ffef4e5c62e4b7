import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'fixtures');

/** The vendored conformance corpus: MicroStream 4.1 storages and the Java service's recorded answers. */
export const CONFORMANCE_DIR = join(FIXTURES, 'conformance');

export interface CaseHeader {
  readonly storage: string;
  readonly storageDir: string;
  readonly instance: string;
  readonly host: string;
  readonly javaTimeZone: string;
}

export interface RecordedCase {
  readonly request: string;
  readonly method: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly status: number;
  readonly contentType: string;
  readonly body?: string;
  readonly bodyBase64?: string;
  readonly kind: string;
  readonly vary?: readonly string[];
}

export function loadCases(file: string): { header: CaseHeader; cases: RecordedCase[] } {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const [first, ...rest] = lines;
  return { header: JSON.parse(first ?? '{}') as CaseHeader, cases: rest.map((l) => JSON.parse(l) as RecordedCase) };
}

export const STORAGE_NAMES = ['primitives', 'arrays', 'collections', 'graph', 'evolution', 'noroot'] as const;

/** One vendored corpus: storages written by one Java generation and its REST adapter's answers. */
export interface Corpus {
  /** The generation that wrote it, for test names. */
  readonly generation: string;
  readonly dir: string;
  readonly storages: readonly string[];
}

/** Every vendored corpus: MicroStream 4.1, MicroStream 8.1 and EclipseStore 4.1.0. */
export const CORPORA: readonly Corpus[] = [
  { generation: 'MicroStream 4.1', dir: CONFORMANCE_DIR, storages: STORAGE_NAMES },
  { generation: 'MicroStream 8.1', dir: join(FIXTURES, 'conformance-ms8'), storages: [...STORAGE_NAMES, 'modernjdk'] },
  { generation: 'EclipseStore 4.1', dir: join(FIXTURES, 'conformance-es'), storages: [...STORAGE_NAMES, 'modernjdk'] },
];

const IDENTITY_HASH = /("(?:[A-Za-z_$][A-Za-z0-9_$]*\.)+[A-Za-z_$][A-Za-z0-9_$]*)@[0-9a-f]{1,8}"/g;
const CREATION_TIME = /"creationTime":"([^"]*)"/g;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

export function expectedBody(c: RecordedCase): Buffer {
  return c.bodyBase64 !== undefined ? Buffer.from(c.bodyBase64, 'base64') : Buffer.from(c.body ?? '', 'utf8');
}

/**
 * Compares an answer with a recorded case after the substitutions its `vary` names; returns a
 * description of the first difference, or undefined when they agree.
 */
export function compareWithCase(
  c: RecordedCase,
  storageDir: string,
  ourDir: string,
  actual: { status: number; contentType: string | undefined; body: Buffer },
): string | undefined {
  if (actual.status !== c.status) return `status ${actual.status}, expected ${c.status}`;
  if (actual.contentType !== c.contentType) return `content type ${actual.contentType}, expected ${c.contentType}`;
  let expected = expectedBody(c);
  let got = actual.body;
  const vary = c.vary ?? [];
  if (vary.length > 0) {
    let e = expected.toString('utf8');
    let g = got.toString('utf8');
    if (vary.includes('storageDir')) e = e.split(`"${storageDir}/`).join(`"${ourDir}/`);
    if (vary.includes('creationTime')) {
      for (const m of g.matchAll(CREATION_TIME)) {
        if (!INSTANT.test(m[1] ?? '')) return `creationTime ${m[1]} does not look like Instant.toString()`;
      }
      e = e.replace(CREATION_TIME, '"creationTime":"*"');
      g = g.replace(CREATION_TIME, '"creationTime":"*"');
    }
    if (vary.includes('identityHashCode')) {
      e = e.replace(IDENTITY_HASH, '$1@*"');
      g = g.replace(IDENTITY_HASH, '$1@*"');
    }
    expected = Buffer.from(e, 'utf8');
    got = Buffer.from(g, 'utf8');
  }
  if (!expected.equals(got)) {
    const at = firstDifference(expected, got);
    return `body differs at byte ${at}: expected ${JSON.stringify(expected.subarray(Math.max(0, at - 60), at + 60).toString('utf8'))}, got ${JSON.stringify(got.subarray(Math.max(0, at - 60), at + 60).toString('utf8'))}`;
  }
  return undefined;
}

function firstDifference(a: Buffer, b: Buffer): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
}

/**
 * Replays the cases (all at once) and names every one that did not answer as recorded:
 * `METHOD request: what differed`.
 */
export async function failingCases(cases: readonly RecordedCase[], replay: (c: RecordedCase) => Promise<string | undefined>): Promise<string[]> {
  const results = await Promise.all(cases.map((c) => replay(c)));
  const failures: string[] = [];
  results.forEach((problem, i) => {
    if (problem !== undefined) failures.push(`${cases[i]!.method} ${cases[i]!.request}: ${problem}`);
  });
  return failures;
}
