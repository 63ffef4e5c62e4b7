/**
 * The type names of a MicroStream dictionary as EclipseStore's Storage Migrator rewrites them
 * (storage-migrator, `RewriteTypeNameMapper` with its `package.mappings`): the package of a type
 * name (everything before its last dot) is looked up as a whole; a package in the table gets its
 * EclipseStore name and the simple name (with any `$Inner` part) is kept; every other name — JDK
 * and application types, arrays (`[L…`) — stays as it is. Only the entries' own names are
 * rewritten: the migrator maps names while the dictionary is parsed, which touches the type name
 * of an entry, not the declared types or qualifiers of its members.
 */

/** MicroStream package → EclipseStore package, grouped by the prefix both sides share. */
const SERIALIZER = 'org.eclipse.serializer';
const STORE = 'org.eclipse.store';

/** Packages whose tail stays the same under `org.eclipse.serializer` (`one.microstream.<tail>`). */
const SERIALIZER_TAILS = [
  'afs.exceptions', 'afs.types', 'branching', 'bytes', 'chars', 'collections', 'collections.interfaces', 'collections.lazy',
  'collections.old', 'collections.sorting', 'collections.types', 'concurrency', 'entity', 'equality', 'exceptions', 'functional',
  'hashing', 'io', 'math', 'memory', 'memory.android', 'memory.sun', 'meta', 'reference', 'reflect', 'time', 'typing', 'util',
  'util.cql', 'util.iterables', 'util.logging', 'util.similarity', 'util.traversing', 'util.xcsv', 'wrapping',
  'configuration.exceptions', 'configuration.types', 'configuration.hocon.types', 'configuration.yaml.types',
  'persistence.exceptions', 'persistence.internal', 'persistence.types', 'persistence.util',
  'persistence.binary.exceptions', 'persistence.binary.internal', 'persistence.binary.java.io', 'persistence.binary.java.lang',
  'persistence.binary.java.math', 'persistence.binary.java.net', 'persistence.binary.java.nio.file', 'persistence.binary.java.sql',
  'persistence.binary.java.time', 'persistence.binary.java.util', 'persistence.binary.java.util.concurrent',
  'persistence.binary.java.util.regex', 'persistence.binary.types', 'persistence.binary.android.java.time',
  'persistence.binary.android.types', 'persistence.binary.jdk8.java.util', 'persistence.binary.jdk8.types',
  'persistence.binary.jdk17.java.util', 'persistence.binary.jdk17.types',
];

/** Packages whose tail stays the same under `org.eclipse.store`. */
const STORE_TAILS = [
  'afs.aws.types', 'afs.aws.dynamodb.types', 'afs.aws.s3.types', 'afs.azure.storage.types', 'afs.blobstore.types',
  'afs.googlecloud.firestore.types', 'afs.hazelcast.types', 'afs.kafka.types', 'afs.nio.types', 'afs.oracle.coherence.types',
  'afs.oraclecloud.objectstorage.types', 'afs.redis.types', 'afs.sql.types', 'storage.exceptions', 'storage.types', 'storage.util',
  'storage.embedded.types', 'storage.embedded.configuration.types', 'storage.embedded.tools.storage.converter',
  'storage.restadapter.exceptions', 'storage.restadapter.types', 'storage.restclient.exceptions', 'storage.restclient.types',
  'storage.restclient.app.types', 'storage.restclient.app.ui', 'storage.restclient.jersey.types', 'storage.restservice.exceptions',
  'storage.restservice.types', 'storage.restservice.sparkjava.exceptions', 'storage.restservice.sparkjava.types',
];

/** The handler packages named after the package they handle, which moved with it; and one odd entry. */
const IRREGULAR: readonly (readonly [string, string])[] = [
  ['one.microstream.persistence.binary.one.microstream.collections', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.collections`],
  ['one.microstream.persistence.binary.one.microstream.collections.lazy', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.collections.lazy`],
  ['one.microstream.persistence.binary.one.microstream.entity', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.entity`],
  ['one.microstream.persistence.binary.one.microstream.persistence.types', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.persistence.types`],
  ['one.microstream.persistence.binary.one.microstream.reference', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.reference`],
  ['one.microstream.persistence.binary.one.microstream.util', `${SERIALIZER}.persistence.binary.org.eclipse.serializer.util`],
  // As the migrator's table has it (not `…persistence.binary.util`).
  ['one.microstream.persistence.binary.util', SERIALIZER],
];

const PACKAGES: ReadonlyMap<string, string> = new Map([
  ...SERIALIZER_TAILS.map((tail) => [`one.microstream.${tail}`, `${SERIALIZER}.${tail}`] as const),
  ...STORE_TAILS.map((tail) => [`one.microstream.${tail}`, `${STORE}.${tail}`] as const),
  ...IRREGULAR,
]);

/** The EclipseStore name of a type of a MicroStream dictionary (unchanged when its package is not migrated). */
export function eclipseStoreTypeName(typeName: string): string {
  const lastDot = typeName.lastIndexOf('.');
  if (lastDot <= 0) return typeName;
  const moved = PACKAGES.get(typeName.slice(0, lastDot));
  return moved === undefined ? typeName : moved + typeName.slice(lastDot);
}
