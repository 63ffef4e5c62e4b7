import { resolveJdkConstant } from '../../format/ids.js';
import { quoteText } from './column-model.js';

/**
 * The JVM-cached wrappers (small Integers, Booleans, ...) that MicroStream refers to by constant
 * ids instead of storing them: rows of `_values` (without a type id, they are not stored), so a
 * member holding `Integer.valueOf(7)` shows 7 like any other Integer.
 */
export function jdkConstantRows(): string {
  const rows: string[] = [];
  for (let group = 1; group <= 6; group++) {
    for (let index = 0; index < 256; index++) {
      const id = 9_000_000_000_000_000_000n + BigInt(group * 1000 + index);
      const constant = resolveJdkConstant(id);
      if (constant === undefined) continue;
      const integral = constant.typeName === 'java.lang.Byte' || constant.typeName === 'java.lang.Short' || constant.typeName === 'java.lang.Integer' || constant.typeName === 'java.lang.Long';
      const bool = constant.typeName === 'java.lang.Boolean' ? constant.text : 'NULL';
      const text = constant.typeName === 'java.lang.Character' ? `chr(${constant.text.charCodeAt(0)})` : quoteText(constant.text);
      rows.push(`(${id}, ${text}, ${integral ? constant.text : 'NULL'}, ${bool})`);
    }
  }
  return rows.join(', ');
}
