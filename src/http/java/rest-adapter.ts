import { FormatError } from '../../errors.js';
import { UTC } from '../../javatext/java-time-zones.js';
import { describeObject, type ObjectDescription } from '../../inspect/describe-object.js';
import { checkedSource, damageReport, type RequestWarnings } from './integrity.js';
import type { JavaServiceOptions, ServiceState } from './java-answers.js';
import { clampToInt, ParameterError, type ObjectRequest } from './java-params.js';
import { NEEDS_ADMISSION, type NeedsAdmission } from '../guard/big-answers.js';
import { budgetedSource, type RequestBudget } from '../guard/limits.js';

/**
 * What the Java `StorageRestAdapter` does behind every web framework that serves it (SparkJava,
 * Javalin, Spring Boot, Micronaut): the paging checks and the description of an object, and
 * finding the root. The frameworks differ only in how they parse parameters, route, serialize
 * and report errors (java-service.ts, javalin-service.ts, micronaut-service.ts).
 */

export type { ObjectRequest } from './java-params.js';

export const LONG_MAX = 9223372036854775807n;
const FIRST_OBJECT_ID = 1000000000000000001n;


/**
 * `StorageRestAdapter.getObject`: negative paging values are refused (`invalid parameter <name>`,
 * in this order), then the object is described. Damage is checked for every record read
 * (integrity.ts); the size budget before each described object of `references`, or before a
 * single big record (limits.ts). NEEDS_ADMISSION when the answer turned out big before the request
 * was admitted.
 */
export async function adapterObject(
  state: ServiceState,
  options: JavaServiceOptions,
  request: ObjectRequest,
  budget: RequestBudget,
  warnings: RequestWarnings,
): Promise<ObjectDescription | NeedsAdmission> {
  // Checked in Java's order; the first negative one is named.
  if (request.fixedOffset < 0n) throw new ParameterError('invalid parameter fixedOffset');
  if (request.fixedLength < 0n) throw new ParameterError('invalid parameter fixedLength');
  if (request.variableOffset < 0n) throw new ParameterError('invalid parameter variableOffset');
  if (request.variableLength < 0n) throw new ParameterError('invalid parameter variableLength');
  if (request.valueLength < 0n) throw new ParameterError('invalid parameter valueLength');
  const describeOptions = {
    fixedOffset: clampToInt(request.fixedOffset),
    fixedLength: clampToInt(request.fixedLength),
    variableOffset: clampToInt(request.variableOffset),
    variableLength: clampToInt(request.variableLength),
    valueLength: clampToInt(request.valueLength),
    references: request.references,
    timeZone: options.timeZone ?? UTC,
  };
  const checked = checkedSource(state, await damageReport(state), warnings);
  // With references=true every described object is charged; without, only a big record (a huge list).
  const source = budgetedSource(checked, budget, describeOptions);
  // Halted: the answer is big and waits for admission outside the consistent view (big-answers.ts).
  return (await describeObject(source, request.objectId, describeOptions)) ?? NEEDS_ADMISSION;
}

/**
 * Before answering the root: it comes from the roots entity, so without the family's roots type
 * in the dictionary it cannot be known (every storage has it), and a damaged data file may hide a
 * newer roots entity.
 */
export async function checkRoot(state: ServiceState, warnings: RequestWarnings): Promise<void> {
  const entities = state.channels.reduce((n, c) => n + c.objects.size, 0);
  const rootsTypeName = state.family.rootsTypeName;
  const rootsType = state.dictionary.currentByName.get(rootsTypeName);
  if (entities > 0 && rootsType === undefined) {
    throw new FormatError('FORMAT_UNKNOWN_TYPE_ID', `the type dictionary lacks ${rootsTypeName}: the root cannot be determined`);
  }
  if (state.rootObjectId === 0n && rootsType !== undefined) {
    // The roots entity is written first, as object 1000000000000000001: if that record has
    // another type now, "no root" would be a guess.
    const first = await state.readEntity(FIRST_OBJECT_ID);
    if (first !== undefined && first.typeId !== rootsType.typeId) {
      const name = state.dictionary.byId.get(first.typeId)?.typeName ?? 'unknown to the dictionary';
      throw new FormatError(
        'FORMAT_BAD_RECORD',
        `object ${FIRST_OBJECT_ID}, the roots entity, has type id ${first.typeId} (${name}) instead of ${rootsType.typeId}: the root cannot be determined`,
        { file: first.file, offset: first.offset + 8 },
      );
    }
  }
  for (const region of (await damageReport(state)).regions) warnings.noteRoot(region);
}
