import type { ChunkAppender } from './chunk-appender.js';
import type { TypeTablePlan } from './column-model.js';

/**
 * A type's staging table while the tables are built: its columns' plan and the appender filling
 * it (table-build.ts fills it, finish-tables.ts turns it into the type's table). Its own module,
 * so that neither of the two imports the other for it.
 */
export interface Staging {
  readonly plan: TypeTablePlan;
  readonly table: string;
  readonly appender: ChunkAppender;
}
