import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { assembleTypeDictionary } from '../format/dictionary-text.js';
import type { StorageRegistry } from '../registry/storage-registry.js';

/**
 * The resources: each served storage's type dictionary (as the .ptd file writes it), and a short
 * text on the data model for a model to read once before asking.
 */

/** Characters of a dictionary resource at most (a dictionary of thousands of classes is cut, and says so). */
const DICTIONARY_CHARS = 512 * 1024;

export const DATA_MODEL_URI = 'storage-inspector://data-model';

export const DATA_MODEL_TEXT = `# How a MicroStream / EclipseStore storage is organised

- The storage is a graph of Java objects persisted as binary records in data files (channel_N/channel_N_M.dat),
  plus a type dictionary (PersistenceTypeDictionary.ptd) describing every persisted class.
- Every object has a 64-bit object id (decimal string here, e.g. "1000000000000000028"). JDK constants
  (Boolean.TRUE, empty collections, ...) have small fixed ids and are never stored.
- Every record has a type id; a type id is one version of a class in the type dictionary. When a class
  changes its fields, a new type id is added: old records keep the old layout (legacy versions).
- Members: primitives are stored inline (int, long as decimal string, double, boolean, char...). Every
  other field is a reference: the object id of another record. Strings, BigDecimal, Date etc. are
  objects of their own; their value is shown inline as "text" next to the reference.
- Collections, arrays and maps are records with a list member ("[list]"): elements (or key/value entries)
  of references or values. Large ones are paged: pass the cursor an answer ends with.
- The root object (storage_overview names it) is the application's root; the roots entity
  (PersistenceRoots) holds it and the registered constants. An object not reachable from the roots
  entity is garbage: still on disk until housekeeping removes it.
- A missing reference is an id that some record refers to but that is stored nowhere (lost data).
- A record is written anew on every store of its object: older versions stay in the files until
  housekeeping; object_versions lists them with their commit times and what changed.

Ask: storage_overview first; describe_object on the root and follow ids; list_instances and search to
find objects; referrers and paths_from_root to explain where an object hangs; analyze_storage for garbage,
missing references and waste; type_dictionary for a class's fields; check_storage for a damaged storage.
Every answer is bounded: a line starting with "truncated:" gives the next cursor or what to narrow.
`;

export function registerResources(server: McpServer, registry: StorageRegistry): void {
  server.registerResource(
    'data-model',
    DATA_MODEL_URI,
    { title: 'The data model of a MicroStream/EclipseStore storage', description: 'Objects, ids, types, references, garbage, versions: read once before asking', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: DATA_MODEL_TEXT }] }),
  );
  for (const context of registry.all()) {
    const uri = `storage-inspector://${encodeURIComponent(context.name)}/type-dictionary`;
    server.registerResource(
      `type-dictionary-${context.name}`,
      uri,
      {
        title: `Type dictionary of ${context.name}`,
        description: 'Every persisted class with its type id(s) and members, as PersistenceTypeDictionary.ptd writes them',
        mimeType: 'text/plain',
      },
      (href) => {
        const text = assembleTypeDictionary(context.storage.dictionary.entries);
        const cut = text.length > DICTIONARY_CHARS ? `${text.slice(0, DICTIONARY_CHARS)}\n… truncated: ${text.length - DICTIONARY_CHARS} more characters; use the type_dictionary tool per class\n` : text;
        return { contents: [{ uri: href.href, mimeType: 'text/plain', text: cut }] };
      },
    );
  }
}
