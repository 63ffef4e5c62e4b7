/**
 * The type dictionary of a fresh EclipseStore 4.1 storage (JDK 17): the native types, the JDK types
 * with dedicated handlers (more than MicroStream 4.1 had: `Period`, `LocalDate`, `BitSet`, the
 * immutable collections, the lazy collections...) and the serializer's types of the 27 built-in
 * objects, with the type ids EclipseStore assigned. Copied verbatim from the EclipseStore
 * conformance storage `noroot`; an EclipseStore-family storage starts from this text.
 */
export const ECLIPSESTORE_BASE_DICTIONARY_TEXT = `0000000000000000001 byte{
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
0000000000000010000 org.eclipse.serializer.reference.Lazy$Default{
\tjava.lang.Object subject,
}
0000000000001000001 java.time.Period{
\tint years ,
\tint months,
\tint days  ,
}
0000000000001000002 java.util.Currency{
\t[char] currencyCode,
}
0000000000001000003 java.util.regex.Pattern{
\tint    flags  ,
\t[char] pattern,
}
0000000000001000004 java.net.InetAddress{
\t[char] address,
}
0000000000001000005 java.net.Inet4Address{
\t[char] address,
}
0000000000001000006 java.net.Inet6Address{
\t[char] address,
}
0000000000001000007 java.nio.file.Path{
\t[char] uri,
}
0000000000001000008 java.net.InetSocketAddress{
\tjava.lang.String     hostname,
\tjava.net.InetAddress address ,
\tint                  port    ,
}
0000000000001000010 java.net.URI{
\t[char] address,
}
0000000000001000011 java.net.URL{
\t[char] address,
}
0000000000001000012 java.time.ZoneOffset{
\tint totalSeconds,
}
0000000000001000014 java.sql.Date{
\tlong timestamp,
}
0000000000001000015 java.sql.Time{
\tlong timestamp,
}
0000000000001000016 java.sql.Timestamp{
\tlong date ,
\tint  nanos,
}
0000000000001000017 java.util.OptionalInt{
\tboolean isPresent,
\tint     value    ,
}
0000000000001000018 java.util.OptionalLong{
\tboolean isPresent,
\tlong    value    ,
}
0000000000001000019 java.util.OptionalDouble{
\tboolean isPresent,
\tdouble  value    ,
}
0000000000001000020 java.util.BitSet{
\tint     wordsInUse  ,
\tboolean sizeIsSticky,
\t[list]  words       (
\t\tlong word,
\t),
}
0000000000001000021 java.time.LocalDate{
\tint   year ,
\tshort month,
\tshort day  ,
}
0000000000001000022 java.time.YearMonth{
\tint year ,
\tint month,
}
0000000000001000023 java.time.MonthDay{
\tint month,
\tint day  ,
}
0000000000001000024 java.util.Collections$UnmodifiableNavigableSet$EmptyNavigableSet{}
0000000000001000029 java.util.Collections$UnmodifiableNavigableMap$EmptyNavigableMap{}
0000000000001000033 java.util.Collections$ReverseComparator{}
0000000000001000034 java.util.WeakHashMap{
\t[list] elements(
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000035 java.util.concurrent.CopyOnWriteArrayList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000036 java.util.concurrent.CopyOnWriteArraySet{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000037 java.util.Comparators$NaturalOrderComparator{
\tenum INSTANCE,
}
0000000000001000038 java.util.ImmutableCollections$List12{
\tjava.lang.Object e0,
\tjava.lang.Object e1,
}
0000000000001000041 java.util.ImmutableCollections$Set12{
\tjava.lang.Object e0,
\tjava.lang.Object e1,
}
0000000000001000043 java.util.Optional{
\tjava.lang.Object java.util.Optional#value,
}
0000000000001000044 org.eclipse.serializer.collections.BulkList{
\tlong   capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000049 org.eclipse.serializer.collections.LimitList{
\tlong   capacity,
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000050 org.eclipse.serializer.collections.ConstList{
\t[list] elements(
\t\tjava.lang.Object element,
\t),
}
0000000000001000051 org.eclipse.serializer.collections.EqBulkList{
\torg.eclipse.serializer.hashing.HashEqualator hashEqualator,
\tlong                                         capacity     ,
\t[list]                                       elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000052 org.eclipse.serializer.collections.HashEnum{
\tfloat  hashDensity,
\t[list] elements   (
\t\tjava.lang.Object element,
\t),
}
0000000000001000054 org.eclipse.serializer.collections.ConstHashEnum{
\tfloat  hashDensity,
\t[list] elements   (
\t\tjava.lang.Object element,
\t),
}
0000000000001000055 org.eclipse.serializer.collections.EqHashEnum{
\torg.eclipse.serializer.hashing.HashEqualator hashEqualator,
\tfloat                                        hashDensity  ,
\t[list]                                       elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000056 org.eclipse.serializer.collections.EqConstHashEnum{
\torg.eclipse.serializer.hashing.HashEqualator hashEqualator,
\tfloat                                        hashDensity  ,
\t[list]                                       elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000057 org.eclipse.serializer.collections.HashTable{
\torg.eclipse.serializer.collections.HashTable$Keys   keys       ,
\torg.eclipse.serializer.collections.HashTable$Values values     ,
\tfloat                                               hashDensity,
\t[list]                                              elements   (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000059 org.eclipse.serializer.collections.ConstHashTable{
\torg.eclipse.serializer.collections.ConstHashTable$Keys   keys       ,
\torg.eclipse.serializer.collections.ConstHashTable$Values values     ,
\tfloat                                                    hashDensity,
\t[list]                                                   elements   (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000060 org.eclipse.serializer.collections.EqHashTable{
\torg.eclipse.serializer.hashing.HashEqualator          hashEqualator,
\torg.eclipse.serializer.collections.EqHashTable$Keys   keys         ,
\torg.eclipse.serializer.collections.EqHashTable$Values values       ,
\tfloat                                                 hashDensity  ,
\t[list]                                                elements     (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000061 org.eclipse.serializer.collections.EqConstHashTable{
\torg.eclipse.serializer.hashing.HashEqualator               hashEqualator,
\torg.eclipse.serializer.collections.EqConstHashTable$Keys   keys         ,
\torg.eclipse.serializer.collections.EqConstHashTable$Values values       ,
\tfloat                                                      hashDensity  ,
\t[list]                                                     elements     (
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000062 org.eclipse.serializer.collections.Singleton{
\tjava.lang.Object element,
}
0000000000001000063 org.eclipse.serializer.util.Substituter$Default{
\torg.eclipse.serializer.hashing.HashEqualator hashEqualator,
\tfloat                                        hashDensity  ,
\t[list]                                       elements     (
\t\tjava.lang.Object element,
\t),
}
0000000000001000064 org.eclipse.serializer.collections.lazy.LazyArrayList{
\tint                                                         maxSegmentSize,
\tint                                                         size          ,
\torg.eclipse.serializer.collections.lazy.LazySegmentUnloader unloader      ,
\t[list]                                                      segments      (
\t\tint                                                      offset,
\t\tint                                                      size  ,
\t\torg.eclipse.serializer.reference.ControlledLazyReference data  ,
\t),
}
0000000000001000065 org.eclipse.serializer.collections.lazy.LazyHashMap{
\tint                                                         maxSegmentSize,
\tint                                                         size          ,
\torg.eclipse.serializer.collections.lazy.LazySegmentUnloader unloader      ,
\t[list]                                                      segments      (
\t\tint                                                                             min ,
\t\tint                                                                             max ,
\t\tint                                                                             size,
\t\torg.eclipse.serializer.collections.lazy.LazyHashMap$LazyHashMapSegmentEntryList data,
\t),
}
0000000000001000066 org.eclipse.serializer.collections.lazy.LazyHashMap$LazyHashMapSegmentEntryList{
\t[list] segments(
\t\tint              hash ,
\t\tjava.lang.Object key  ,
\t\tjava.lang.Object value,
\t),
}
0000000000001000067 org.eclipse.serializer.collections.lazy.LazyHashSet{
\torg.eclipse.serializer.collections.lazy.LazyHashMap map,
}
0000000000001000068 org.eclipse.serializer.reference.ControlledLazyReference$Default{
\tjava.lang.Object subject,
}
0000000000001000069 java.util.Collections$SetFromMap{
\tjava.util.Map map,
}
0000000000001000070 org.eclipse.serializer.persistence.types.PersistenceRoots$Default{
\t[list] instances  (
\t\tjava.lang.Object instance,
\t),
\t[list] identifiers(
\t\t[char] identifier,
\t),
}
0000000000001000071 org.eclipse.serializer.persistence.types.PersistenceRootReference$Default{
\tjava.lang.Object root,
}
0000000000001000072 org.eclipse.serializer.hashing.XHashing$SingletonValueHashEqualator{}
0000000000001000073 org.eclipse.serializer.hashing.XHashing$SingletonIdentityHashEqualator{}
0000000000001000074 org.eclipse.serializer.hashing.XHashing$SingletonKeyValueIdentityHashEqualator{}
0000000000001000075 org.eclipse.serializer.collections.Empty{}
0000000000001000076 org.eclipse.serializer.collections.EmptyTable{
\torg.eclipse.serializer.collections.EmptyTable$Keys   org.eclipse.serializer.collections.EmptyTable#keys  ,
\torg.eclipse.serializer.collections.EmptyTable$Values org.eclipse.serializer.collections.EmptyTable#values,
}
0000000000001000077 org.eclipse.serializer.collections.EmptyTable$Keys{
\torg.eclipse.serializer.collections.EmptyTable org.eclipse.serializer.collections.EmptyTable$Keys#this$0,
}
0000000000001000078 org.eclipse.serializer.collections.EmptyTable$Values{
\torg.eclipse.serializer.collections.EmptyTable org.eclipse.serializer.collections.EmptyTable$Values#this$0,
}
0000000000001000079 java.util.Collections$EmptyList{}
0000000000001000080 java.util.Collections$EmptySet{}
0000000000001000081 java.util.Collections$EmptyMap{}
`;
