import { parseTypeDictionary, type TypeEntry } from '../../format/type-dictionary.js';
import type { StorageWriter } from '../storage-writer.js';

/**
 * The dictionary entries of an EclipseStore 4.1.0 GigaMap of `conformance.gigamap.Person`s with a
 * hashing index on the city and a unique bit-sliced index on the id, as EclipseStore registers
 * them (custom handlers: the members must be exactly these). The entity and indexer classes are
 * the GigaMap corpus's, which the real EclipseStore used to check generated storages knows.
 * The type ids here are EclipseStore's; the writer gives each entry the next free id.
 */
const ENTRIES_TEXT = `0000000000001000082 conformance.gigamap.GigaRoot{
	java.lang.String                        conformance.gigamap.GigaRoot#name      ,
	org.eclipse.store.gigamap.types.GigaMap conformance.gigamap.GigaRoot#persons   ,
	org.eclipse.store.gigamap.types.GigaMap conformance.gigamap.GigaRoot#tags      ,
	java.util.ArrayList                     conformance.gigamap.GigaRoot#personList,
}
0000000000001000083 org.eclipse.store.gigamap.types.GigaMap{}
0000000000001000084 org.eclipse.store.gigamap.types.GigaMap$Default{
	org.eclipse.store.gigamap.types.GigaLevel3              level3                     ,
	org.eclipse.store.gigamap.types.GigaIndices$Default     indices                    ,
	org.eclipse.store.gigamap.types.GigaConstraints$Default constraints                ,
	org.eclipse.serializer.equality.Equalator               equalator                  ,
	int                                                     level1LengthExponent       ,
	int                                                     level2LengthExponent       ,
	int                                                     level3MinimumLengthExponent,
	int                                                     level3MaximumLengthExponent,
	long                                                    size                       ,
	long                                                    currentId                  ,
}
0000000000001000085 org.eclipse.store.gigamap.types.GigaLevel3{
	[list] segments(
		org.eclipse.serializer.reference.Lazy segment,
	),
}
0000000000001000087 org.eclipse.store.gigamap.types.GigaIndices$Default{
	org.eclipse.store.gigamap.types.GigaMap parent     ,
	[list]                                  indexGroups(
		org.eclipse.store.gigamap.types.IndexGroup indexGroup,
	),
}
0000000000001000088 org.eclipse.store.gigamap.types.GigaConstraints$Default{
	org.eclipse.store.gigamap.types.BitmapIndices             uniqueConstraints,
	org.eclipse.store.gigamap.types.CustomConstraints$Default customConstraints,
}
0000000000001000089 org.eclipse.store.gigamap.types.GigaMap$DefaultEqualator{}
0000000000001000090 org.eclipse.store.gigamap.types.BitmapIndices$Default{
	org.eclipse.store.gigamap.types.GigaMap                 parent           ,
	org.eclipse.serializer.collections.EqHashTable          bitmapIndices    ,
	org.eclipse.serializer.collections.types.XImmutableEnum identityIndices  ,
	org.eclipse.serializer.collections.types.XImmutableEnum uniqueConstraints,
}
0000000000001000091 org.eclipse.store.gigamap.types.CustomConstraints$Default{
	org.eclipse.store.gigamap.types.GigaMap        parent  ,
	org.eclipse.serializer.collections.EqHashTable elements,
}
0000000000001000092 org.eclipse.store.gigamap.types.BinaryBitmapIndex{
	org.eclipse.store.gigamap.types.BitmapIndices parent ,
	java.lang.String                              name   ,
	org.eclipse.store.gigamap.types.BinaryIndexer indexer,
	[list]                                        entries(
		org.eclipse.store.gigamap.types.BitmapEntry entry,
	),
}
0000000000001000095 org.eclipse.store.gigamap.types.HashingBitmapIndex{
	org.eclipse.store.gigamap.types.BitmapIndices parent ,
	java.lang.String                              name   ,
	org.eclipse.store.gigamap.types.Indexer       indexer,
	[list]                                        entries(
		java.lang.Object                            key  ,
		org.eclipse.store.gigamap.types.BitmapEntry entry,
	),
}
0000000000001000099 org.eclipse.serializer.collections.EqHashTable$Keys{
	org.eclipse.serializer.collections.EqHashTable org.eclipse.serializer.collections.EqHashTable$Keys#this$0,
}
0000000000001000100 org.eclipse.serializer.collections.EqHashTable$Values{
	org.eclipse.serializer.collections.EqHashTable org.eclipse.serializer.collections.EqHashTable$Values#this$0,
}
0000000000001000101 conformance.gigamap.PersonIndices$Id{}
0000000000001000106 conformance.gigamap.PersonIndices$City{}
0000000000001000108 conformance.gigamap.PersonIndices$Birthday{}
0000000000001000113 conformance.gigamap.Tag$Weight{}
0000000000001000116 org.eclipse.store.gigamap.types.GigaLevel2{
	[list] segments(
		org.eclipse.serializer.reference.Lazy segment,
	),
}
0000000000001000117 org.eclipse.store.gigamap.types.BitmapEntry{
	org.eclipse.store.gigamap.types.BitmapLevel3 level3  ,
	int                                          position,
}
0000000000001000119 org.eclipse.store.gigamap.types.BitmapLevel3{
	[list] segments(
		org.eclipse.store.gigamap.types.BitmapLevel2 segment,
	),
}
0000000000001000120 org.eclipse.store.gigamap.types.GigaLevel1{
	[list] entities(
		java.lang.Object entity,
	),
}
0000000000001000121 org.eclipse.store.gigamap.types.BitmapLevel2{
	int    version,
	[byte] data   ,
}
0000000000001000122 conformance.gigamap.Person{
	java.lang.String    conformance.gigamap.Person#name    ,
	java.lang.String    conformance.gigamap.Person#city    ,
	java.time.LocalDate conformance.gigamap.Person#birthday,
	long                conformance.gigamap.Person#id      ,
	int                 conformance.gigamap.Person#score   ,
}
`;

export interface GigaMapTypes {
  readonly root: TypeEntry;
  readonly gigaMap: TypeEntry;
  readonly level3: TypeEntry;
  readonly level2: TypeEntry;
  readonly level1: TypeEntry;
  readonly indices: TypeEntry;
  readonly constraints: TypeEntry;
  readonly equalator: TypeEntry;
  readonly bitmapIndices: TypeEntry;
  readonly customConstraints: TypeEntry;
  readonly binaryIndex: TypeEntry;
  readonly hashingIndex: TypeEntry;
  readonly tableKeys: TypeEntry;
  readonly tableValues: TypeEntry;
  readonly idIndexer: TypeEntry;
  readonly cityIndexer: TypeEntry;
  readonly bitmapEntry: TypeEntry;
  readonly bitmapLevel3: TypeEntry;
  readonly bitmapLevel2: TypeEntry;
  readonly person: TypeEntry;
  readonly lazy: TypeEntry;
  readonly string: TypeEntry;
  readonly eqHashTable: TypeEntry;
  readonly constHashEnum: TypeEntry;
}

/** Defines the GigaMap types in the writer's dictionary (existing entries of the same layout are reused). */
export function defineGigaMapTypes(writer: StorageWriter): GigaMapTypes {
  const byName = new Map<string, TypeEntry>();
  for (const entry of parseTypeDictionary(ENTRIES_TEXT).entries) byName.set(entry.typeName, writer.defineType(entry.typeName, entry.members));
  const get = (name: string): TypeEntry => {
    const entry = byName.get(name) ?? writer.dictionary.require(name);
    return entry;
  };
  const p = 'org.eclipse.store.gigamap.types.';
  return {
    root: get('conformance.gigamap.GigaRoot'),
    gigaMap: get(`${p}GigaMap$Default`),
    level3: get(`${p}GigaLevel3`),
    level2: get(`${p}GigaLevel2`),
    level1: get(`${p}GigaLevel1`),
    indices: get(`${p}GigaIndices$Default`),
    constraints: get(`${p}GigaConstraints$Default`),
    equalator: get(`${p}GigaMap$DefaultEqualator`),
    bitmapIndices: get(`${p}BitmapIndices$Default`),
    customConstraints: get(`${p}CustomConstraints$Default`),
    binaryIndex: get(`${p}BinaryBitmapIndex`),
    hashingIndex: get(`${p}HashingBitmapIndex`),
    tableKeys: get('org.eclipse.serializer.collections.EqHashTable$Keys'),
    tableValues: get('org.eclipse.serializer.collections.EqHashTable$Values'),
    idIndexer: get('conformance.gigamap.PersonIndices$Id'),
    cityIndexer: get('conformance.gigamap.PersonIndices$City'),
    bitmapEntry: get(`${p}BitmapEntry`),
    bitmapLevel3: get(`${p}BitmapLevel3`),
    bitmapLevel2: get(`${p}BitmapLevel2`),
    person: get('conformance.gigamap.Person'),
    lazy: get('org.eclipse.serializer.reference.Lazy$Default'),
    string: get('java.lang.String'),
    eqHashTable: get('org.eclipse.serializer.collections.EqHashTable'),
    constHashEnum: get('org.eclipse.serializer.collections.ConstHashEnum'),
  };
}
