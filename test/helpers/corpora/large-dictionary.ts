import { appendFileSync } from 'node:fs';

/**
 * Grows a storage's type dictionary by types no record uses, to a given size: a large dictionary
 * that is still valid (each added type has an id of its own above every id in use, and fields
 * of the dictionary's syntax). `fieldsPerType` sets how many types that takes.
 */
export function padDictionary(path: string, targetBytes: number, options: { firstTypeId?: bigint; fieldsPerType?: number } = {}): number {
  const fields = options.fieldsPerType ?? 48;
  let typeId = options.firstTypeId ?? 5_000_000n;
  let size = 0;
  let types = 0;
  const chunk: string[] = [];
  let chunkBytes = 0;
  while (size < targetBytes) {
    const lines = [`${typeId.toString().padStart(19, '0')} com.example.padding.UnusedType${types}{`];
    for (let f = 0; f < fields; f++) lines.push(`\t${f % 3 === 0 ? '[char]' : f % 3 === 1 ? 'long  ' : 'int   '} someRatherLongFieldNameNumber${f},`);
    lines.push('}', '');
    const text = lines.join('\n');
    chunk.push(text);
    chunkBytes += text.length;
    size += text.length;
    typeId++;
    types++;
    if (chunkBytes > 1 << 22) {
      appendFileSync(path, chunk.join(''));
      chunk.length = 0;
      chunkBytes = 0;
    }
  }
  appendFileSync(path, chunk.join(''));
  return types;
}
