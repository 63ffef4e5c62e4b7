/** Dictionary type names of EclipseStore's GigaMap and its parts (docs/gigamap.md §1). */

const PACKAGE = 'org.eclipse.store.gigamap.types.';

export const GIGAMAP = `${PACKAGE}GigaMap$Default`;
export const GIGA_LEVEL1 = `${PACKAGE}GigaLevel1`;
export const GIGA_LEVEL2 = `${PACKAGE}GigaLevel2`;
export const GIGA_LEVEL3 = `${PACKAGE}GigaLevel3`;
export const GIGA_INDICES = `${PACKAGE}GigaIndices$Default`;
export const BITMAP_INDICES = `${PACKAGE}BitmapIndices$Default`;
export const HASHING_INDEX = `${PACKAGE}HashingBitmapIndex`;
export const BINARY_INDEX = `${PACKAGE}BinaryBitmapIndex`;
export const SINGLE_INDEX = `${PACKAGE}SingleBitmapIndex`;
export const COMPOSITE_INDEX = `${PACKAGE}CompositeBitmapIndexHashing`;
export const SUB_INDEX = `${PACKAGE}SubBitmapIndexHashing`;
export const BITMAP_ENTRY = `${PACKAGE}BitmapEntry`;
export const BITMAP_LEVEL3 = `${PACKAGE}BitmapLevel3`;
export const BITMAP_LEVEL2 = `${PACKAGE}BitmapLevel2`;
export const LAZY = 'org.eclipse.serializer.reference.Lazy$Default';

/** Whether a type (by name) is part of a GigaMap's machinery rather than the user's entities. */
export function isGigaMapMachinery(typeName: string): boolean {
  return typeName.startsWith(PACKAGE);
}

export type IndexKind = 'hashing' | 'binary' | 'boolean' | 'composite';

export const INDEX_KINDS: ReadonlyMap<string, IndexKind> = new Map<string, IndexKind>([
  [HASHING_INDEX, 'hashing'],
  [BINARY_INDEX, 'binary'],
  [SINGLE_INDEX, 'boolean'],
  [COMPOSITE_INDEX, 'composite'],
]);
