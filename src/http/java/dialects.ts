import type { StorageFamily } from '../../format/storage-family.js';
import type { Dialect } from './dialect-names.js';
import type { NeedsAdmission } from '../guard/big-answers.js';
import { answerRequest, type Answer, type JavaServiceOptions, type RawRequest, type RequestContext, type ServiceState } from './java-service.js';
import { answerJavalin } from './javalin-service.js';
import { answerMicronaut } from './micronaut-service.js';

export { DIALECTS, isDialect, type Dialect } from './dialect-names.js';

/**
 * The first path segment when `--instance` is not given: the Java default of the service for the
 * storage's family (`microstream` / `store-data`; Micronaut's controllers use `microstream` /
 * `eclipsestore`).
 */
export function defaultInstance(dialect: Dialect, family: StorageFamily): string {
  if (dialect === 'micronaut') return family.name === 'eclipsestore' ? 'eclipsestore' : 'microstream';
  return family.defaultInstance;
}

/**
 * Answers one request in the dialect the options name (`spark` when none); NEEDS_ADMISSION when
 * its answer is big and the context's admission has not been granted yet (big-answers.ts).
 */
export function answerInDialect(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext): Promise<Answer | NeedsAdmission> {
  switch (options.dialect ?? 'spark') {
    case 'javalin':
      return answerJavalin(state, options, request, context);
    case 'micronaut':
      return answerMicronaut(state, options, request, context);
    default:
      return answerRequest(state, options, request, context);
  }
}
