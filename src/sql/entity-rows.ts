import { charsText, type EntityLayout, type VariableSlot } from '../format/entity-layout.js';
import type { LatestRecord } from '../graph/queries/latest-records.js';
import type { Staging } from './staging.js';

/** An entity's row in its type's staging table: members by column of the plan (table-build.ts, type-fill.ts). */
export function appendEntity(staging: Staging, fieldOfColumn: Int32Array, record: LatestRecord, layout: EntityLayout): void {
  const appender = staging.appender;
  const view = layout.view;
  appender.appendBigInt(record.objectId);
  appender.appendBigInt(record.typeId);
  const columns = staging.plan.columns;
  for (let c = 0; c < columns.length; c++) {
    const field = fieldOfColumn[c]!;
    const slot = field < 0 ? undefined : layout.slots[field];
    if (slot === undefined) {
      appender.appendNull();
      continue;
    }
    const role = columns[c]!.role;
    const at = slot.offset;
    switch (role.kind) {
      case 'primitive':
        switch (role.type) {
          case 'boolean':
            appender.appendBoolean(view.getUint8(at) !== 0);
            break;
          case 'byte':
            appender.appendTinyInt(view.getInt8(at));
            break;
          case 'short':
            appender.appendSmallInt(view.getInt16(at, true));
            break;
          case 'char':
            appender.appendVarchar(String.fromCharCode(view.getUint16(at, true)));
            break;
          case 'int':
            appender.appendInteger(view.getInt32(at, true));
            break;
          case 'long':
            appender.appendBigInt(view.getBigInt64(at, true));
            break;
          case 'float':
            appender.appendFloat(view.getFloat32(at, true));
            break;
          case 'double':
            appender.appendDouble(view.getFloat64(at, true));
            break;
        }
        break;
      case 'reference':
      case 'value': {
        const id = view.getBigInt64(at, true);
        if (id === 0n) appender.appendNull();
        else appender.appendBigInt(id);
        break;
      }
      case 'chars': {
        const s = slot as VariableSlot;
        appender.appendVarchar(charsText(view, s.elementsOffset, s.count));
        break;
      }
      case 'bytes': {
        const s = slot as VariableSlot;
        appender.appendBlob(new Uint8Array(view.buffer, view.byteOffset + s.elementsOffset, s.count));
        break;
      }
      case 'list': {
        const s = slot as VariableSlot;
        appender.appendBigInt(BigInt(s.count));
        break;
      }
    }
  }
  appender.endRow();
}
