/** The storage writer library: see storage-writer.ts for the entry point. */
export { StorageWriter, DEFAULT_FILE_MAXIMUM_SIZE, type StorageWriterOptions, type StoreResult } from './storage-writer.js';
export { StoreBuilder } from './store-builder.js';
export { cutAfterBytes, cutInside, planByteLength, type PlannedWrite, type PlannedWriteKind, type StoreCut, type StorePlan } from './store-plan.js';
export { encodeRecord, contentLength, type ElementValue, type FieldValue, type TypedListValue } from './entity-encoder.js';
export { WriterDictionary } from './writer-dictionary.js';
export { enumMembers, makeTypeEntry, objectArrayMembers, reflectiveMembers, type JavaField } from './type-definitions.js';
export { readExistingStorage, type ExistingState, type ReadExistingOptions } from './existing-storage.js';
export { FIRST_OBJECT_ID } from './builtins.js';
export { generateStorage, MIN_GENERATED_ENTITIES, type GenerateOptions, type GenerateProgress, type GenerateSummary } from './generator/generate-storage.js';
