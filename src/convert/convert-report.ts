/** What `convert` reports (the CLI prints it as text or JSON). */

export interface TypeFigures {
  readonly typeName: string;
  /** The name in the new dictionary, when `--to eclipsestore` renamed it. */
  readonly writtenAs?: string;
  /** Current versions written, and their bytes. */
  written: number;
  writtenBytes: number;
  /** Older versions of objects left out. */
  superseded: number;
  supersededBytes: number;
  /** Current versions of objects not reachable from the roots, left out. */
  garbage: number;
  garbageBytes: number;
}

export interface ObjectsAndBytes {
  readonly objects: number;
  readonly bytes: number;
}

/** With `--allow-damage`: what the rescue the conversion started from did (see `rescue`). */
export interface RescuedFirst {
  /** The codes of check's serious problems that made the rescue necessary. */
  readonly problems: readonly string[];
  readonly keptObjects: number;
  /** Objects kept in an older version (their newest could not be read). */
  readonly olderVersions: number;
  /** Objects lost whose id is known. */
  readonly lost: number;
  /** References to lost objects replaced (null, an entry left out, an empty Lazy) so that the library starts. */
  readonly replacedReferences: number;
  readonly rootEntriesLeftOut: readonly string[];
}

export interface ConvertReport {
  /** The storage as the user named it (a directory as given, a database URL and table). */
  readonly source: string;
  /** Where the storage is kept, when not in a directory (`postgresql`). */
  readonly kind?: string | undefined;
  readonly out: string;
  readonly from: 'microstream' | 'eclipsestore';
  readonly to: 'microstream' | 'eclipsestore';
  readonly sourceChannels: number;
  readonly channels: number;
  /** Chunk checksums of the new storage (the source's; none when moved to EclipseStore 4.1). */
  readonly checksums: 'none' | 'crc32c' | 'sha256';
  readonly keepUnreachable: boolean;
  /** Bytes of the source's data files (committed), and of the new storage's. */
  readonly sourceDataBytes: number;
  readonly dataBytes: number;
  readonly written: ObjectsAndBytes;
  readonly superseded: ObjectsAndBytes;
  readonly garbage: ObjectsAndBytes;
  readonly dictionary: { readonly entries: number; readonly leftOut: number; readonly bytes: number };
  /** With `--allow-damage` on a damaged source: the rescue converted. */
  readonly rescuedFirst?: RescuedFirst | undefined;
  /** Per type, most bytes first. */
  readonly types: readonly TypeFigures[];
  /** With `--current-types`: the objects rewritten into the newest definition of their type, and those that kept an older one. */
  readonly currentTypes?: CurrentTypesReport | undefined;
}

export interface CurrentTypesReport {
  /** Objects rewritten into the newest definition of their type. */
  readonly objects: number;
  /** Per older definition (type id) whose objects were rewritten. */
  readonly rewritten: readonly { readonly typeName: string; readonly fromTypeId: string; readonly toTypeId: string; readonly objects: number }[];
  /** Per older definition whose objects keep their stored shape: why, how many, the first object ids (at most 20). */
  readonly kept: readonly {
    readonly typeName: string;
    readonly typeId: string;
    readonly newestTypeId: string;
    readonly objects: number;
    readonly objectIds: readonly string[];
    readonly reason: string;
  }[];
}
