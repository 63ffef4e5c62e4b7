import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusStorage } from '../security/server.js';
import { runCliInProcess, type CliRun } from '../helpers/serving/cli-in-process.js';

/**
 * More than 65,534 type ids: the graph index keeps 4 bytes per entity for its type then, instead
 * of failing. The storage's own types come after 70,000 unused ones in the dictionary, so that
 * their numbers do not fit in 2 bytes; `analyze` gives the same answer as without the padding.
 */

const PADDING_TYPES = 70_000;

let work: string;
let padded: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'si-many-types-'));
  padded = join(work, 'padded');
  cpSync(corpusStorage('graph'), padded, { recursive: true });
  const path = join(padded, 'PersistenceTypeDictionary.ptd');
  const text = readFileSync(path, 'utf8');
  // Before the application's types (ids from 1000000 on): theirs then get the numbers past 70,000.
  const at = text.indexOf('\n0000000000001000') + 1;
  const padding: string[] = [];
  for (let i = 0; i < PADDING_TYPES; i++) padding.push(`${String(2_000_000 + i).padStart(19, '0')} com.example.padding.Unused${i}{\n\tint value,\n}\n`);
  writeFileSync(path, text.slice(0, at) + padding.join('') + text.slice(at));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const cli = (...argv: string[]): Promise<CliRun> => runCliInProcess(argv);

describe(`a dictionary of more than ${PADDING_TYPES} type ids`, () => {
  it('analyze exits 0 with the same types, counts and analysis as without the unused types', async () => {
    const many = await cli('analyze', padded, '--json');
    expect(many.code, many.stderr).toBe(0);
    expect(many.stderr).not.toMatch(/not supported|graph index failed/);
    const plain = await cli('analyze', corpusStorage('graph'), '--json');
    expect(plain.code, plain.stderr).toBe(0);
    // File paths aside (the copy is elsewhere).
    const a = JSON.parse(many.stdout.replaceAll(padded, 'STORAGE'));
    const b = JSON.parse(plain.stdout.replaceAll(corpusStorage('graph'), 'STORAGE'));
    expect(a.storage.entities).toBe(1263);
    expect(a.storage.graph.state).toBe('ready');
    expect(a.types).toEqual(b.types);
    expect(a.types.some((t: { typeName: string; instances: number }) => t.typeName === 'conformance.bookstore.Shop' && t.instances > 0)).toBe(true);
    expect(a.analysis).toEqual(b.analysis);
  });
});
