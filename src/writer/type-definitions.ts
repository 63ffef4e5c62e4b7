import {
  isPrimitiveName,
  type FieldDescriptor,
  type MemberDescriptor,
  type TypeEntry,
} from '../format/type-dictionary.js';

/**
 * Building dictionary entries for types to be written: handler-defined member lists as they are,
 * and reflective classes (storage-format.md §8.2) from their Java fields, with references first
 * and primitives second, each group in declaration order (superclass fields first).
 */

/** One persisted Java instance field, as declared. */
export interface JavaField {
  readonly name: string;
  /** A primitive name (`int`, …) or a class name (`java.lang.String`, `[I`, `gen.Person`, …). */
  readonly type: string;
  /** The class that declares the field; defaults to the class being described. */
  readonly declaredBy?: string;
}

/** A type entry from its id, name and members (instance fields and pseudo-members). */
export function makeTypeEntry(typeId: bigint, typeName: string, members: readonly MemberDescriptor[]): TypeEntry {
  const fields = members.filter((m): m is FieldDescriptor => m.kind !== 'enumConstant' && m.kind !== 'primitiveDefinition');
  const enumConstants = members.flatMap((m) => (m.kind === 'enumConstant' ? [m.name] : []));
  return { typeId, typeName, members, fields, enumConstants };
}

/** The dictionary member list of a reflectively stored class. */
export function reflectiveMembers(className: string, fields: readonly JavaField[]): MemberDescriptor[] {
  const described = fields.map((f): FieldDescriptor => {
    const qualifier = f.declaredBy ?? className;
    return isPrimitiveName(f.type)
      ? { kind: 'primitive', typeName: f.type, name: f.name, qualifier }
      : { kind: 'reference', typeName: f.type, name: f.name, qualifier };
  });
  return [...described.filter((f) => f.kind === 'reference'), ...described.filter((f) => f.kind === 'primitive')];
}

/**
 * The member list of an enum: one `enum` pseudo-member per constant in ordinal order, then
 * `java.lang.Enum#name`, `java.lang.Enum#ordinal` and the enum's own fields by the reflective rule.
 */
export function enumMembers(className: string, constants: readonly string[], ownFields: readonly JavaField[] = []): MemberDescriptor[] {
  const inherited: JavaField[] = [
    { name: 'name', type: 'java.lang.String', declaredBy: 'java.lang.Enum' },
    { name: 'ordinal', type: 'int', declaredBy: 'java.lang.Enum' },
  ];
  return [
    ...constants.map((name): MemberDescriptor => ({ kind: 'enumConstant', name })),
    ...reflectiveMembers(className, [...inherited, ...ownFields]),
  ];
}

/** Member list of an array type `[L…;`, `[[I`, …: one reference list. */
export function objectArrayMembers(componentType: string): MemberDescriptor[] {
  return [
    {
      kind: 'list',
      typeName: '[list]',
      name: 'elements',
      elements: [{ kind: 'reference', typeName: componentType, name: 'element' }],
    },
  ];
}
