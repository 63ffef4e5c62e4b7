/**
 * Entity records in data files (storage-format.md §5.1): an 8-byte total length (header
 * included; negative = gap to skip, 0 = invalid), the 8-byte type id and the 8-byte object id,
 * then the content as the type's dictionary entry lays it out.
 */
export const RECORD_HEADER_SIZE = 24;
