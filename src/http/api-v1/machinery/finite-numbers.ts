import { createRequire } from 'node:module';
import type AjvCompilerModule from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * fastify's validator (Ajv), with one rule more: no number in a validated request part is
 * infinite or NaN. Ajv coerces query strings such as `Infinity`, `-Infinity` and `1e309` to
 * `Infinity`, calls that an integer, and skips `minimum`/`maximum` for a value that is not finite
 * (its range checks are guarded by `isFinite`), so without this rule `?limit=Infinity` passes every
 * limit of every route. Checking after Ajv, on the values it produced, covers every route with a
 * schema, present and future, whatever its schema says.
 */

type BuildValidator = NonNullable<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator']>;

interface ValidateFunction {
  (data: unknown, context?: { parentData?: Record<string, unknown>; parentDataProperty?: string }): unknown;
  errors?: unknown[] | null;
  schemaEnv?: unknown;
}

/** Where the first non-finite number in a validated value is (a JSON pointer), if there is one. */
export function nonFiniteAt(value: unknown, pointer = '', depth = 0): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : pointer;
  // Request parts are shallow (query strings, path parameters); the depth bound keeps a body bounded too.
  if (value === null || typeof value !== 'object' || depth > 32) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found = nonFiniteAt(item, `${pointer}/${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Ajv's validate function, followed by the finite-number rule on what it validated (and coerced). */
function finiteChecked(validate: ValidateFunction): ValidateFunction {
  const checked: ValidateFunction = (data, context) => {
    const result = validate(data, context);
    if (result !== true) {
      checked.errors = validate.errors ?? null;
      return result;
    }
    // Ajv may replace a coerced root value in its parent (fastify passes the request as parent).
    const validated = context?.parentData !== undefined && context.parentDataProperty !== undefined ? context.parentData[context.parentDataProperty] : data;
    const at = nonFiniteAt(validated);
    if (at === undefined) {
      checked.errors = null;
      return true;
    }
    checked.errors = [{ instancePath: at, schemaPath: '#', keyword: 'finite', params: {}, message: 'must be a finite number' }];
    return false;
  };
  // fastify passes the parent (for coercing a root value) only to functions that have Ajv's schemaEnv.
  if (validate.schemaEnv !== undefined) checked.schemaEnv = validate.schemaEnv;
  return checked;
}

/**
 * fastify's `schemaController.compilersFactory.buildValidator`: its own Ajv compiler, checked for
 * finite numbers. The compiler (and Ajv, a large package) is loaded here, when this is called, not
 * when this module is: lazy-schema-compilers.ts calls it on the first request that validates.
 */
export function finiteNumbersValidator(): BuildValidator {
  const AjvCompiler = createRequire(import.meta.url)('@fastify/ajv-compiler') as typeof AjvCompilerModule;
  const build = AjvCompiler();
  const factory = (externalSchemas: Parameters<typeof build>[0], options: Parameters<typeof build>[1]) => {
    const compile = build(externalSchemas, options) as unknown as (route: unknown) => ValidateFunction;
    return (route: unknown) => finiteChecked(compile(route));
  };
  return factory as unknown as BuildValidator;
}
