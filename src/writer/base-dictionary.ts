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
 * Each entry below starts with its type id in MicroStream 4.1, then in EclipseStore 4.1 (`-`: not
 * in that family's dictionary), then the entry with MicroStream's names and single spaces where
 * Java aligns members in columns.
 */
const ENTRIES = `1 1 byte{
\tprimitive 8 bit integer signed,
}
2 2 boolean{
\tprimitive 8 bit boolean,
}
3 3 short{
\tprimitive 16 bit integer signed,
}
4 4 char{
\tprimitive 16 bit integer unicode,
}
5 5 int{
\tprimitive 32 bit integer signed,
}
6 6 float{
\tprimitive 32 bit decimal IEEE754,
}
7 7 long{
\tprimitive 64 bit integer signed,
}
8 8 double{
\tprimitive 64 bit decimal IEEE754,
}
10 10 java.lang.Object{}
11 11 java.lang.Byte{
\tbyte value,
}
12 12 java.lang.Boolean{
\tboolean value,
}
13 13 java.lang.Short{
\tshort value,
}
14 14 java.lang.Character{
\tchar value,
}
15 15 java.lang.Integer{
\tint value,
}
16 16 java.lang.Float{
\tfloat value,
}
17 17 java.lang.Long{
\tlong value,
}
18 18 java.lang.Double{
\tdouble value,
}
19 19 java.lang.Void{}
20 20 java.lang.Class{
\tlong value,
}
30 30 java.lang.String{
\t[char] value,
}
32 32 java.lang.StringBuffer{
\tlong capacity,
\t[char] value,
}
33 33 java.lang.StringBuilder{
\tlong capacity,
\t[char] value,
}
34 34 java.io.File{
\t[char] path,
}
35 35 java.util.Date{
\tlong timestamp,
}
37 37 java.math.BigInteger{
\t[byte] value,
}
38 38 java.math.BigDecimal{
\t[char] value,
}
43 43 java.util.ArrayList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
44 44 java.util.HashSet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
46 46 java.util.HashMap{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
48 48 java.util.Hashtable{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
49 49 java.util.ArrayDeque{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
50 50 java.util.IdentityHashMap{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
51 51 java.util.LinkedHashMap{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
52 52 java.util.LinkedHashSet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
54 54 java.util.LinkedList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
56 56 java.util.PriorityQueue{
\tjava.util.Comparator comparator,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
57 57 java.util.TreeMap{
\tjava.util.Comparator comparator,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
58 58 java.util.TreeSet{
\tjava.util.Comparator comparator,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
59 59 java.util.Vector{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
60 60 java.util.Stack{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
61 61 java.util.Properties{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
62 62 java.util.concurrent.ConcurrentHashMap{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
63 63 java.util.concurrent.ConcurrentLinkedDeque{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
64 64 java.util.concurrent.ConcurrentLinkedQueue{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
65 65 java.util.concurrent.ConcurrentSkipListMap{
\tjava.util.Comparator comparator,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
66 66 java.util.concurrent.ConcurrentSkipListSet{
\tjava.util.Comparator comparator,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
68 68 java.util.Locale{
\t[char] languageTag,
}
101 101 [B{
\t[list] elements(
\t\tbyte element,
\t),
}
102 102 [Z{
\t[list] elements(
\t\tboolean element,
\t),
}
103 103 [S{
\t[list] elements(
\t\tshort element,
\t),
}
104 104 [C{
\t[list] elements(
\t\tchar element,
\t),
}
105 105 [I{
\t[list] elements(
\t\tint element,
\t),
}
106 106 [F{
\t[list] elements(
\t\tfloat element,
\t),
}
107 107 [J{
\t[list] elements(
\t\tlong element,
\t),
}
108 108 [D{
\t[list] elements(
\t\tdouble element,
\t),
}
110 110 [Ljava.lang.Object;{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
10000 10000 one.microstream.reference.Lazy$Default{
\tjava.lang.Object subject,
}
- 1000001 java.time.Period{
\tint years,
\tint months,
\tint days,
}
1000001 1000002 java.util.Currency{
\t[char] currencyCode,
}
1000002 1000003 java.util.regex.Pattern{
\tint flags,
\t[char] pattern,
}
1000003 1000004 java.net.InetAddress{
\t[char] address,
}
1000004 1000005 java.net.Inet4Address{
\t[char] address,
}
1000005 1000006 java.net.Inet6Address{
\t[char] address,
}
1000006 1000007 java.nio.file.Path{
\t[char] uri,
}
1000007 1000008 java.net.InetSocketAddress{
\tjava.lang.String hostname,
\tjava.net.InetAddress address,
\tint port,
}
1000009 1000010 java.net.URI{
\t[char] address,
}
1000010 1000011 java.net.URL{
\t[char] address,
}
- 1000012 java.time.ZoneOffset{
\tint totalSeconds,
}
1000011 1000014 java.sql.Date{
\tlong timestamp,
}
1000012 1000015 java.sql.Time{
\tlong timestamp,
}
- 1000016 java.sql.Timestamp{
\tlong date,
\tint nanos,
}
1000013 - java.sql.Timestamp{
\tlong timestamp,
}
1000014 1000017 java.util.OptionalInt{
\tboolean isPresent,
\tint value,
}
1000015 1000018 java.util.OptionalLong{
\tboolean isPresent,
\tlong value,
}
1000016 1000019 java.util.OptionalDouble{
\tboolean isPresent,
\tdouble value,
}
- 1000020 java.util.BitSet{
\tint wordsInUse,
\tboolean sizeIsSticky,
\t[list] words(
\t\tlong word,
\t),
}
- 1000021 java.time.LocalDate{
\tint year,
\tshort month,
\tshort day,
}
- 1000022 java.time.YearMonth{
\tint year,
\tint month,
}
- 1000023 java.time.MonthDay{
\tint month,
\tint day,
}
1000017 1000024 java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet{}
1000022 1000029 java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap{}
1000026 1000033 java.util.Collections$ReverseComparator{}
1000027 1000034 java.util.WeakHashMap{
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
1000028 1000035 java.util.concurrent.CopyOnWriteArrayList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
- 1000036 java.util.concurrent.CopyOnWriteArraySet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000029 1000037 java.util.Comparators$NaturalOrderComparator{
\tenum INSTANCE,
}
- 1000038 java.util.ImmutableCollections$List12{
\tjava.lang.Object e0,
\tjava.lang.Object e1,
}
- 1000041 java.util.ImmutableCollections$Set12{
\tjava.lang.Object e0,
\tjava.lang.Object e1,
}
1000030 1000043 java.util.Optional{
\tjava.lang.Object java.util.Optional#value,
}
1000031 1000044 one.microstream.collections.BulkList{
\tlong capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000036 1000049 one.microstream.collections.LimitList{
\tlong capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000037 - one.microstream.collections.FixedList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000038 1000050 one.microstream.collections.ConstList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000039 1000051 one.microstream.collections.EqBulkList{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tlong capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000040 1000052 one.microstream.collections.HashEnum{
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000042 1000054 one.microstream.collections.ConstHashEnum{
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000043 1000055 one.microstream.collections.EqHashEnum{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000044 1000056 one.microstream.collections.EqConstHashEnum{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
1000045 1000057 one.microstream.collections.HashTable{
\tone.microstream.collections.HashTable$Keys keys,
\tone.microstream.collections.HashTable$Values values,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
1000047 1000059 one.microstream.collections.ConstHashTable{
\tone.microstream.collections.ConstHashTable$Keys keys,
\tone.microstream.collections.ConstHashTable$Values values,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
1000048 1000060 one.microstream.collections.EqHashTable{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tone.microstream.collections.EqHashTable$Keys keys,
\tone.microstream.collections.EqHashTable$Values values,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
1000049 1000061 one.microstream.collections.EqConstHashTable{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tone.microstream.collections.EqConstHashTable$Keys keys,
\tone.microstream.collections.EqConstHashTable$Values values,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
1000050 1000062 one.microstream.collections.Singleton{
\tjava.lang.Object element,
}
1000051 1000063 one.microstream.util.Substituter$Default{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat hashDensity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
- 1000064 one.microstream.collections.lazy.LazyArrayList{
\tint maxSegmentSize,
\tint size,
\tone.microstream.collections.lazy.LazySegmentUnloader unloader,
\t[list] segments(
\t\tint offset,
\t\tint size,
\t\tone.microstream.reference.ControlledLazyReference data,
\t),
}
- 1000065 one.microstream.collections.lazy.LazyHashMap{
\tint maxSegmentSize,
\tint size,
\tone.microstream.collections.lazy.LazySegmentUnloader unloader,
\t[list] segments(
\t\tint min,
\t\tint max,
\t\tint size,
\t\tone.microstream.collections.lazy.LazyHashMap$LazyHashMapSegmentEntryList data,
\t),
}
- 1000066 one.microstream.collections.lazy.LazyHashMap$LazyHashMapSegmentEntryList{
\t[list] segments(
\t\tint hash,
\t\tjava.lang.Object key,
\t\tjava.lang.Object value,
\t),
}
- 1000067 one.microstream.collections.lazy.LazyHashSet{
\tone.microstream.collections.lazy.LazyHashMap map,
}
- 1000068 one.microstream.reference.ControlledLazyReference$Default{
\tjava.lang.Object subject,
}
- 1000069 java.util.Collections$SetFromMap{
\tjava.util.Map map,
}
1000052 1000070 one.microstream.persistence.types.PersistenceRoots$Default{
\t[list] instances(
\t\tjava.lang.Object instance,
\t),
\t[list] identifiers(
\t\t[char] identifier,
\t),
}
1000053 1000071 one.microstream.persistence.types.PersistenceRootReference$Default{
\tjava.lang.Object root,
}
1000054 1000072 one.microstream.hashing.XHashing$SingletonValueHashEqualator{}
1000055 1000073 one.microstream.hashing.XHashing$SingletonIdentityHashEqualator{}
1000056 1000074 one.microstream.hashing.XHashing$SingletonKeyValueIdentityHashEqualator{}
1000057 1000075 one.microstream.collections.Empty{}
1000058 1000076 one.microstream.collections.EmptyTable{
\tone.microstream.collections.EmptyTable$Keys one.microstream.collections.EmptyTable#keys,
\tone.microstream.collections.EmptyTable$Values one.microstream.collections.EmptyTable#values,
}
1000059 1000077 one.microstream.collections.EmptyTable$Keys{
\tone.microstream.collections.EmptyTable one.microstream.collections.EmptyTable$Keys#this$0,
}
1000060 1000078 one.microstream.collections.EmptyTable$Values{
\tone.microstream.collections.EmptyTable one.microstream.collections.EmptyTable$Values#this$0,
}
1000061 1000079 java.util.Collections$EmptyList{}
1000062 1000080 java.util.Collections$EmptySet{}
1000063 1000081 java.util.Collections$EmptyMap{}`;

export type BaseDictionaryFamily = 'microstream' | 'eclipsestore';

const ID_DIGITS = 19;
const ENTRY_HEAD = /^(-|\d+) (-|\d+) /;
const MEMBER = /^(\t+)(\S+) (\S+?)([,(])$/;

/** The dictionary text of a fresh storage of `family`, its library's types named by `typeName`. */
export function baseDictionaryText(family: BaseDictionaryFamily, typeName: (microStreamName: string) => string): string {
  const column = family === 'microstream' ? 1 : 2;
  const lines: string[] = [];
  let keep = false;
  for (const line of ENTRIES.split('\n')) {
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
