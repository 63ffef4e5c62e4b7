import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFORMANCE_DIR } from '../helpers/corpora/conformance.js';
import { REPO_ROOT } from '../viewer/browser.js';

/**
 * The package as a Node program uses it: a separate project that depends on the built package
 * (a `file:` dependency, as `npm install ../storage-inspector` makes it), imports it by its name
 * from JavaScript and type-checks against its declarations from TypeScript. What it reads is
 * compared with what the SQL tables of the same storage say. Needs the build (`npm run build`,
 * which `npm install` runs).
 */

const GRAPH = join(CONFORMANCE_DIR, 'storages', 'graph');
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

const CONSUMER_JS = `
import { openStorage } from 'storage-inspector';
const storage = await openStorage(process.argv[2]);
const out = { family: storage.family, rootId: storage.rootId };
try {
  const root = await storage.root();
  out.root = { id: root.id, typeName: root.typeName, members: root.members.map((m) => m.name) };
  out.books = [];
  for await (const book of storage.instances('Book')) {
    out.books.push({ id: book.id, typeName: book.typeName, title: book.values.title?.text ?? null, pages: book.values.pages });
  }
  // Leaving a loop early ends its pass.
  let seen = 0;
  for await (const _ of storage.instances('conformance.bookstore.Book')) if (++seen === 2) break;
  out.seen = seen;
  const first = await storage.object(out.books[0].id);
  out.first = { id: first.id, author: first.values.author, price: first.values.price?.text ?? null };
  out.missing = (await storage.object(123n)) === undefined;
  const answer = await storage.sql('SELECT _oid, title, pages FROM Book ORDER BY _oid', { limit: 10000 });
  out.sql = { columns: answer.columns.map((c) => c.name), rows: answer.rows, truncated: answer.truncated };
  try {
    storage.instances('NoSuchType');
  } catch (error) {
    out.unknownType = error.message;
  }
} finally {
  await storage.close();
}
process.stdout.write(JSON.stringify(out, (_key, value) => (typeof value === 'bigint' ? { bigint: String(value) } : value)));
`;

const CONSUMER_TS = `
import { openStorage, type InspectedStorage, type Reference, type StoredObject, type SqlResult, type Value } from 'storage-inspector';
export async function titles(location: string): Promise<string[]> {
  const storage: InspectedStorage = await openStorage(location, { sqlTimeoutMs: 5000 });
  const out: string[] = [];
  for await (const book of storage.instances('Book', { elementLimit: 10 })) {
    const id: bigint = book.id;
    const title: Value | undefined = book.values['title'];
    if (title !== null && typeof title === 'object' && 'id' in title) out.push(\`\${id}: \${(title as Reference).text ?? ''}\`);
  }
  const root: StoredObject | undefined = await storage.object('1000000000000000001');
  const answer: SqlResult = await storage.sql('SELECT 1', { limit: 1 });
  out.push(String(root?.typeId), String(answer.rowCount));
  await storage.close();
  return out;
}
`;

let project: string;
beforeAll(() => {
  if (!existsSync(join(REPO_ROOT, 'dist', 'library', 'index.js')) || !existsSync(join(REPO_ROOT, 'dist', 'library', 'index.d.ts'))) {
    throw new Error('the package is not built: run npm run build');
  }
  project = mkdtempSync(join(tmpdir(), 'library-consumer-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module', dependencies: { 'storage-inspector': `file:${REPO_ROOT}` } }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project, stdio: 'pipe' });
  writeFileSync(join(project, 'consumer.mjs'), CONSUMER_JS);
  writeFileSync(join(project, 'consumer.ts'), CONSUMER_TS);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['consumer.ts'] }),
  );
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('the package from another project', () => {
  it('is imported by its name and reads root, objects, instances and SQL as the tables say', { timeout: 120_000 }, () => {
    const text = execFileSync(process.execPath, ['consumer.mjs', GRAPH], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const out = JSON.parse(text) as {
      family: string;
      rootId: { bigint: string };
      root: { id: { bigint: string }; typeName: string; members: string[] };
      books: { id: { bigint: string }; typeName: string; title: string | null; pages: number }[];
      seen: number;
      first: { id: { bigint: string }; author: { id: { bigint: string }; typeName: string } | null; price: string | null };
      missing: boolean;
      sql: { columns: string[]; rows: [string, string | null, number][]; truncated: boolean };
      unknownType: string;
    };
    expect(out.family).toBe('microstream');
    expect(out.root.id).toEqual(out.rootId);
    expect(out.root.members.length).toBeGreaterThan(0);
    expect(out.sql.columns).toEqual(['_oid', 'title', 'pages']);
    expect(out.sql.truncated).toBe(false);
    // Every instance the iterator gave is a row of the table, with the same title and pages.
    const byId = [...out.books].sort((a, b) => (BigInt(a.id.bigint) < BigInt(b.id.bigint) ? -1 : 1));
    expect(byId.map((b) => [b.id.bigint, b.title, b.pages])).toEqual(out.sql.rows);
    expect(new Set(out.books.map((b) => b.typeName))).toEqual(new Set(['conformance.bookstore.Book']));
    expect(out.seen).toBe(2);
    expect(out.first.id).toEqual(out.books[0]!.id);
    expect(out.first.author?.typeName).toBe('conformance.bookstore.Author');
    expect(out.first.price).toMatch(/^\d+\.\d\d$/);
    expect(out.missing).toBe(true);
    expect(out.unknownType).toBe('no type named NoSuchType in the type dictionary');
  });

  it('runs the README\'s example as it is written, in the clone (its demo storage)', { timeout: 120_000 }, () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const example = /```js\n(import \{ openStorage \} from 'storage-inspector';[\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    // The example's comments show what it prints; printed here, compared with them.
    writeFileSync(join(project, 'readme-example.mjs'), example!.replace(/\} finally \{/, 'console.log(JSON.stringify({ root: String(root.id), columns: columns.map((c) => c.name), rows: rows.length }));\n} finally {'));
    const text = execFileSync(process.execPath, [join(project, 'readme-example.mjs')], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const shownRoot = /storage\.root\(\);\s+\/\/ \{ id: (\d+)n/.exec(example!)![1]!;
    const shownTitle = /text: '([^']+)' \}/.exec(example!)![1]!;
    expect(text).toContain(`text: '${shownTitle}'`);
    expect(JSON.parse(text.trim().split('\n').at(-1)!)).toEqual({ root: shownRoot, columns: ['genre', 'count_star()'], rows: 5 });
  });

  it('type-checks against the declarations it ships', { timeout: 120_000 }, () => {
    expect(() => execFileSync(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, encoding: 'utf8', stdio: 'pipe' })).not.toThrow();
    // And a wrong use is caught: an id is a bigint, not a number.
    writeFileSync(join(project, 'wrong.ts'), "import { openStorage } from 'storage-inspector';\nconst s = await openStorage('x');\nconst id: number = (await s.root())!.id;\nexport { id };\n");
    writeFileSync(
      join(project, 'tsconfig.wrong.json'),
      JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, skipLibCheck: true, types: [] }, files: ['wrong.ts'] }),
    );
    let message = '';
    try {
      execFileSync(process.execPath, [TSC, '-p', 'tsconfig.wrong.json'], { cwd: project, encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      message = String((error as { stdout?: string }).stdout);
    }
    expect(message).toContain("Type 'bigint' is not assignable to type 'number'");
  });
});
