/**
 * The type dictionary of a fresh MicroStream 4.1 storage (JDK 17): the native types, the JDK types
 * with dedicated handlers and the MicroStream types of the 27 built-in objects, with the type ids
 * Java assigned (storage-format.md §7.6). Copied verbatim from the conformance storage `noroot`;
 * a new storage starts from this text, and application types get ids above its maximum.
 */
export const BASE_DICTIONARY_TEXT = `0000000000000000001 byte{
\tprimitive 8 bit integer signed,
}
0000000000000000002 boolean{
\tprimitive 8 bit boolean,
}
0000000000000000003 short{
\tprimitive 16 bit integer signed,
}
0000000000000000004 char{
\tprimitive 16 bit integer unicode,
}
0000000000000000005 int{
\tprimitive 32 bit integer signed,
}
0000000000000000006 float{
\tprimitive 32 bit decimal IEEE754,
}
0000000000000000007 long{
\tprimitive 64 bit integer signed,
}
0000000000000000008 double{
\tprimitive 64 bit decimal IEEE754,
}
0000000000000000010 java.lang.Object{}
0000000000000000011 java.lang.Byte{
\tbyte value,
}
0000000000000000012 java.lang.Boolean{
\tboolean value,
}
0000000000000000013 java.lang.Short{
\tshort value,
}
0000000000000000014 java.lang.Character{
\tchar value,
}
0000000000000000015 java.lang.Integer{
\tint value,
}
0000000000000000016 java.lang.Float{
\tfloat value,
}
0000000000000000017 java.lang.Long{
\tlong value,
}
0000000000000000018 java.lang.Double{
\tdouble value,
}
0000000000000000019 java.lang.Void{}
0000000000000000020 java.lang.Class{
\tlong value,
}
0000000000000000030 java.lang.String{
\t[char] value,
}
0000000000000000032 java.lang.StringBuffer{
\tlong   capacity,
\t[char] value   ,
}
0000000000000000033 java.lang.StringBuilder{
\tlong   capacity,
\t[char] value   ,
}
0000000000000000034 java.io.File{
\t[char] path,
}
0000000000000000035 java.util.Date{
\tlong timestamp,
}
0000000000000000037 java.math.BigInteger{
\t[byte] value,
}
0000000000000000038 java.math.BigDecimal{
\t[char] value,
}
0000000000000000043 java.util.ArrayList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000044 java.util.HashSet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000046 java.util.HashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000048 java.util.Hashtable{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000049 java.util.ArrayDeque{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000050 java.util.IdentityHashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000051 java.util.LinkedHashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000052 java.util.LinkedHashSet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000054 java.util.LinkedList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000056 java.util.PriorityQueue{
\tjava.util.Comparator comparator,
\t[list]               elements  (
\t\tjava.lang.Object element,
\t),
}
0000000000000000057 java.util.TreeMap{
\tjava.util.Comparator comparator,
\t[list]               elements  (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000058 java.util.TreeSet{
\tjava.util.Comparator comparator,
\t[list]               elements  (
\t\tjava.lang.Object element,
\t),
}
0000000000000000059 java.util.Vector{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000060 java.util.Stack{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000061 java.util.Properties{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000062 java.util.concurrent.ConcurrentHashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000063 java.util.concurrent.ConcurrentLinkedDeque{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000064 java.util.concurrent.ConcurrentLinkedQueue{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000000065 java.util.concurrent.ConcurrentSkipListMap{
\tjava.util.Comparator comparator,
\t[list]               elements  (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000000000066 java.util.concurrent.ConcurrentSkipListSet{
\tjava.util.Comparator comparator,
\t[list]               elements  (
\t\tjava.lang.Object element,
\t),
}
0000000000000000068 java.util.Locale{
\t[char] languageTag,
}
0000000000000000101 [B{
\t[list] elements(
\t\tbyte element,
\t),
}
0000000000000000102 [Z{
\t[list] elements(
\t\tboolean element,
\t),
}
0000000000000000103 [S{
\t[list] elements(
\t\tshort element,
\t),
}
0000000000000000104 [C{
\t[list] elements(
\t\tchar element,
\t),
}
0000000000000000105 [I{
\t[list] elements(
\t\tint element,
\t),
}
0000000000000000106 [F{
\t[list] elements(
\t\tfloat element,
\t),
}
0000000000000000107 [J{
\t[list] elements(
\t\tlong element,
\t),
}
0000000000000000108 [D{
\t[list] elements(
\t\tdouble element,
\t),
}
0000000000000000110 [Ljava.lang.Object;{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000000010000 one.microstream.reference.Lazy$Default{
\tjava.lang.Object subject,
}
0000000000001000001 java.util.Currency{
\t[char] currencyCode,
}
0000000000001000002 java.util.regex.Pattern{
\tint    flags  ,
\t[char] pattern,
}
0000000000001000003 java.net.InetAddress{
\t[char] address,
}
0000000000001000004 java.net.Inet4Address{
\t[char] address,
}
0000000000001000005 java.net.Inet6Address{
\t[char] address,
}
0000000000001000006 java.nio.file.Path{
\t[char] uri,
}
0000000000001000007 java.net.InetSocketAddress{
\tjava.lang.String     hostname,
\tjava.net.InetAddress address ,
\tint                  port    ,
}
0000000000001000009 java.net.URI{
\t[char] address,
}
0000000000001000010 java.net.URL{
\t[char] address,
}
0000000000001000011 java.sql.Date{
\tlong timestamp,
}
0000000000001000012 java.sql.Time{
\tlong timestamp,
}
0000000000001000013 java.sql.Timestamp{
\tlong timestamp,
}
0000000000001000014 java.util.OptionalInt{
\tboolean isPresent,
\tint     value    ,
}
0000000000001000015 java.util.OptionalLong{
\tboolean isPresent,
\tlong    value    ,
}
0000000000001000016 java.util.OptionalDouble{
\tboolean isPresent,
\tdouble  value    ,
}
0000000000001000017 java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet{}
0000000000001000022 java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap{}
0000000000001000026 java.util.Collections$ReverseComparator{}
0000000000001000027 java.util.WeakHashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000028 java.util.concurrent.CopyOnWriteArrayList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000029 java.util.Comparators$NaturalOrderComparator{
\tenum INSTANCE,
}
0000000000001000030 java.util.Optional{
\tjava.lang.Object java.util.Optional#value,
}
0000000000001000031 one.microstream.collections.BulkList{
\tlong   capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000036 one.microstream.collections.LimitList{
\tlong   capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000037 one.microstream.collections.FixedList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000038 one.microstream.collections.ConstList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000039 one.microstream.collections.EqBulkList{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tlong                                  capacity     ,
\t[list]                                elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000040 one.microstream.collections.HashEnum{
\tfloat  hashDensity,
\t[list] elements   (
\t\tjava.lang.Object element,
\t),
}
0000000000001000042 one.microstream.collections.ConstHashEnum{
\tfloat  hashDensity,
\t[list] elements   (
\t\tjava.lang.Object element,
\t),
}
0000000000001000043 one.microstream.collections.EqHashEnum{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat                                 hashDensity  ,
\t[list]                                elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000044 one.microstream.collections.EqConstHashEnum{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat                                 hashDensity  ,
\t[list]                                elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000045 one.microstream.collections.HashTable{
\tone.microstream.collections.HashTable$Keys   keys       ,
\tone.microstream.collections.HashTable$Values values     ,
\tfloat                                        hashDensity,
\t[list]                                       elements   (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000047 one.microstream.collections.ConstHashTable{
\tone.microstream.collections.ConstHashTable$Keys   keys       ,
\tone.microstream.collections.ConstHashTable$Values values     ,
\tfloat                                             hashDensity,
\t[list]                                            elements   (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000048 one.microstream.collections.EqHashTable{
\tone.microstream.hashing.HashEqualator          hashEqualator,
\tone.microstream.collections.EqHashTable$Keys   keys         ,
\tone.microstream.collections.EqHashTable$Values values       ,
\tfloat                                          hashDensity  ,
\t[list]                                         elements     (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000049 one.microstream.collections.EqConstHashTable{
\tone.microstream.hashing.HashEqualator               hashEqualator,
\tone.microstream.collections.EqConstHashTable$Keys   keys         ,
\tone.microstream.collections.EqConstHashTable$Values values       ,
\tfloat                                               hashDensity  ,
\t[list]                                              elements     (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000050 one.microstream.collections.Singleton{
\tjava.lang.Object element,
}
0000000000001000051 one.microstream.util.Substituter$Default{
\tone.microstream.hashing.HashEqualator hashEqualator,
\tfloat                                 hashDensity  ,
\t[list]                                elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000052 one.microstream.persistence.types.PersistenceRoots$Default{
\t[list] instances  (
\t\tjava.lang.Object instance,
\t),
\t[list] identifiers(
\t\t[char] identifier,
\t),
}
0000000000001000053 one.microstream.persistence.types.PersistenceRootReference$Default{
\tjava.lang.Object root,
}
0000000000001000054 one.microstream.hashing.XHashing$SingletonValueHashEqualator{}
0000000000001000055 one.microstream.hashing.XHashing$SingletonIdentityHashEqualator{}
0000000000001000056 one.microstream.hashing.XHashing$SingletonKeyValueIdentityHashEqualator{}
0000000000001000057 one.microstream.collections.Empty{}
0000000000001000058 one.microstream.collections.EmptyTable{
\tone.microstream.collections.EmptyTable$Keys   one.microstream.collections.EmptyTable#keys  ,
\tone.microstream.collections.EmptyTable$Values one.microstream.collections.EmptyTable#values,
}
0000000000001000059 one.microstream.collections.EmptyTable$Keys{
\tone.microstream.collections.EmptyTable one.microstream.collections.EmptyTable$Keys#this$0,
}
0000000000001000060 one.microstream.collections.EmptyTable$Values{
\tone.microstream.collections.EmptyTable one.microstream.collections.EmptyTable$Values#this$0,
}
0000000000001000061 java.util.Collections$EmptyList{}
0000000000001000062 java.util.Collections$EmptySet{}
0000000000001000063 java.util.Collections$EmptyMap{}
`;
