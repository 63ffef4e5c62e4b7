/**
 * The Java services that serve the REST adapter, each with its own routes, serialization and
 * errors: `spark` (MicroStream's and EclipseStore's SparkJava service, the recorded corpora; the
 * default), `javalin` (EclipseStore's current service) and `micronaut` (the Micronaut
 * integrations' controller). The names alone, so that options can name a dialect without
 * importing the services (dialects.ts switches between them).
 */
export const DIALECTS = ['spark', 'javalin', 'micronaut'] as const;
export type Dialect = (typeof DIALECTS)[number];

export function isDialect(name: string): name is Dialect {
  return (DIALECTS as readonly string[]).includes(name);
}
