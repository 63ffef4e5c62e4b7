import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The type dictionary of a fresh storage of each family (JDK 17), from one table: the native types,
 * the JDK types with dedicated handlers and the library's types of the 27 built-in objects, with
 * the type ids each library assigned (storage-format.md §7.6). MicroStream 4.1's text is the
 * conformance storage `noroot` verbatim, EclipseStore 4.1's the EclipseStore conformance storage
 * `noroot` verbatim (test/writer/base-dictionary.test.ts compares both): EclipseStore has more
 * JDK handlers (`Period`, `LocalDate`, `BitSet`, the immutable and lazy collections...), other ids
 * from 1000001 on, and its own package for MicroStream's types (the family's `typeName`, which
 * also widens the columns Java aligns). A new storage starts from this text, and application
 * types get ids above its maximum.
 *
 * The table is data, `base-dictionary.txt` beside this module (the build copies it into dist/,
 * scripts/copy-data-files.ts). Each entry there starts with its type id in MicroStream 4.1, then in
 * EclipseStore 4.1 (`-`: not in that family's dictionary), then the entry with MicroStream's names
 * and single spaces where Java aligns members in columns.
 */
const TABLE = new URL('./base-dictionary.txt', import.meta.url);

let table: string | undefined;

/**
 * The table's lines, read once. writer-family.ts makes both base dictionaries when it is loaded, so a
 * missing table stops a command before it writes anything.
 */
function tableLines(): string[] {
  if (table === undefined) {
    try {
      table = readFileSync(TABLE, 'utf8');
    } catch (error) {
      throw new Error(`the table of base type dictionaries ${fileURLToPath(TABLE)} cannot be read (an incomplete installation?): ${(error as Error).message}`, { cause: error });
    }
  }
  return table.replace(/\r?\n$/, '').split(/\r?\n/);
}

export type BaseDictionaryFamily = 'microstream' | 'eclipsestore';

const ID_DIGITS = 19;
const ENTRY_HEAD = /^(-|\d+) (-|\d+) /;
const MEMBER = /^(\t+)(\S+) (\S+?)([,(])$/;

/** The dictionary text of a fresh storage of `family`, its library's types named by `typeName`. */
export function baseDictionaryText(family: BaseDictionaryFamily, typeName: (microStreamName: string) => string): string {
  const column = family === 'microstream' ? 1 : 2;
  const lines: string[] = [];
  let keep = false;
  for (const line of tableLines()) {
    const head = ENTRY_HEAD.exec(line);
    if (head !== null) {
      const id = head[column]!;
      keep = id !== '-';
      if (keep) lines.push(`${id.padStart(ID_DIGITS, '0')} ${renamed(line.slice(head[0].length), typeName)}`);
    } else if (keep) lines.push(renamed(line, typeName));
  }
  return `${alignMembers(lines).join('\n')}\n`;
}

/** The line with every MicroStream type name in it named the family's way. */
function renamed(line: string, typeName: (microStreamName: string) => string): string {
  return line.replace(/one\.microstream\.[\w.$]+/g, (name) => typeName(name));
}

/**
 * Java's columns: the members of one entry (or of one nested list) with their type names padded
 * to the longest and their names to the longest, then `,` or `(`.
 */
function alignMembers(lines: readonly string[]): string[] {
  const out = [...lines];
  const groups = new Map<string, number[]>();
  let parents: string[] = [];
  lines.forEach((line, k) => {
    if (line.endsWith('{')) {
      parents = [`entry ${k}`];
      return;
    }
    if (/^\t+\),$/.test(line)) {
      parents.pop();
      return;
    }
    const member = MEMBER.exec(line);
    if (member === null) return;
    const key = `${parents[parents.length - 1]!} ${member[1]!.length}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [k]);
    else group.push(k);
    if (member[4] === '(') parents.push(`list ${k}`);
  });
  for (const group of groups.values()) {
    const members = group.map((k) => MEMBER.exec(lines[k]!)!);
    const typeWidth = Math.max(...members.map((m) => m[2]!.length));
    const nameWidth = Math.max(...members.map((m) => m[3]!.length));
    group.forEach((k, i) => {
      const m = members[i]!;
      out[k] = `${m[1]!}${m[2]!.padEnd(typeWidth)} ${m[3]!.padEnd(nameWidth)}${m[4]!}`;
    });
  }
  return out;
}
