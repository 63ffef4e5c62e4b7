import type { FieldDescriptor, MemberDescriptor, TypeEntry } from './type-dictionary.js';

/**
 * Writing the type dictionary in the canonical form Java 4.1 writes (storage-format.md §7.3):
 * 19-digit zero-padded type ids, one tab of indentation per nesting level, and the type,
 * qualifier and name columns padded per member list. Assembling a parsed Java-written dictionary
 * gives back its exact bytes.
 */

const TYPE_ID_WIDTH = 19;

/** The dictionary text of the entries, in the order given (Java writes them sorted by type id). */
export function assembleTypeDictionary(entries: readonly TypeEntry[]): string {
  const parts: string[] = [];
  for (const entry of entries) parts.push(assembleTypeEntry(entry));
  return parts.join('');
}

/** One entry, including its final line break. */
export function assembleTypeEntry(entry: TypeEntry): string {
  const head = `${formatTypeId(entry.typeId)} ${entry.typeName}{`;
  if (entry.members.length === 0) return `${head}}\n`;
  return `${head}\n${assembleMembers(entry.members, 1)}}\n`;
}

/** A type id left-padded with zeros to 19 characters (negative ids keep their sign in front). */
export function formatTypeId(typeId: bigint): string {
  if (typeId < 0n) return `-${(-typeId).toString().padStart(TYPE_ID_WIDTH - 1, '0')}`;
  return typeId.toString().padStart(TYPE_ID_WIDTH, '0');
}

interface Columns {
  readonly type: number;
  readonly qualifier: number;
  readonly name: number;
}

function assembleMembers(members: readonly MemberDescriptor[], depth: number): string {
  const indent = '\t'.repeat(depth);
  const columns = measure(members);
  let text = '';
  for (const member of members) {
    switch (member.kind) {
      case 'primitiveDefinition':
        text += `${indent}primitive ${member.definition},\n`;
        break;
      case 'enumConstant':
        text += `${indent}enum ${member.name},\n`;
        break;
      default:
        text += `${indent}${fieldText(member, columns)}`;
        if (member.kind === 'list') {
          text += `(\n${assembleMembers(member.elements, depth + 1)}${indent})`;
        }
        text += ',\n';
    }
  }
  return text;
}

/** Column widths of one member list: pseudo-members do not count. */
function measure(members: readonly MemberDescriptor[]): Columns {
  let type = 0;
  let qualifier = 0;
  let name = 0;
  for (const member of members) {
    if (member.kind === 'primitiveDefinition' || member.kind === 'enumConstant') continue;
    type = Math.max(type, member.typeName.length);
    if (member.qualifier !== undefined) qualifier = Math.max(qualifier, member.qualifier.length);
    name = Math.max(name, member.name.length);
  }
  return { type, qualifier, name };
}

function fieldText(field: FieldDescriptor, columns: Columns): string {
  const qualifier = field.qualifier === undefined ? '' : `${field.qualifier.padEnd(columns.qualifier)}#`;
  return `${field.typeName.padEnd(columns.type)} ${qualifier}${field.name.padEnd(columns.name)}`;
}
