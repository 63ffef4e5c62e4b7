import type { StorageFamily } from '../format/storage-family.js';
import { answerRequest, type Answer, type JavaServiceOptions, type RawRequest, type RequestContext, type ServiceState } from './java-service.js';
import { answerJavalin } from './javalin-service.js';
import { answerMicronaut } from './micronaut-service.js';

/**
 * The Java services that serve the REST adapter, each with its own routes, serialization and
 * errors: `spark` (MicroStream's and EclipseStore's SparkJava service, the recorded corpora; the
 * default), `javalin` (EclipseStore's current service) and `micronaut` (the Micronaut
 * integrations' controller).
 */
export const DIALECTS = ['spark', 'javalin', 'micronaut'] as const;
export type Dialect = (typeof DIALECTS)[number];

export function isDialect(name: string): name is Dialect {
  return (DIALECTS as readonly string[]).includes(name);
}

/**
 * The first path segment when `--instance` is not given: the Java default of the service for the
 * storage's family (`microstream` / `store-data`; Micronaut's controllers use `microstream` /
 * `eclipsestore`).
 */
export function defaultInstance(dialect: Dialect, family: StorageFamily): string {
  if (dialect === 'micronaut') return family.name === 'eclipsestore' ? 'eclipsestore' : 'microstream';
  return family.defaultInstance;
}

/** Answers one request in the dialect the options name (`spark` when none). */
export function answerInDialect(state: ServiceState, options: JavaServiceOptions, request: RawRequest, context: RequestContext = {}): Promise<Answer> {
  switch (options.dialect ?? 'spark') {
    case 'javalin':
      return answerJavalin(state, options, request, context);
    case 'micronaut':
      return answerMicronaut(state, options, request, context);
    default:
      return answerRequest(state, options, request, context);
  }
}
