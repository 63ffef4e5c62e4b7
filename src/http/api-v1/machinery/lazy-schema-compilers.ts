import { createRequire } from 'node:module';
import type { ValidatorFactory } from '@fastify/ajv-compiler';
import type { SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { finiteNumbersValidator } from './finite-numbers.js';

/**
 * fastify's own schema compilers (ajv for validation, fast-json-stringify for answers), each route's
 * compiled on its first request instead of all of them while the server starts. fastify compiles
 * every route's schemas before it listens, and the /api/v1 routes are many: on the demo storage
 * that was about a quarter of the time from launch to the first answer of /{instance}/root, a
 * route the Java clients use and that has no schema. A schema that does not compile now fails its
 * route's first request (500) instead of the start; the API tests call every route.
 * The compiler packages themselves (ajv, fast-json-stringify and theirs) are loaded on that first
 * request too: fastify loads them only when it is given no compilers of its own.
 * The same compilers with the same options: answers and validation errors are unchanged.
 */

type Compiler<Fn> = (definition: unknown) => Fn;
type Factory<Fn> = (...args: never[]) => Compiler<Fn>;

/** A factory (made by `load` when first needed) whose compilers compile when the compiled function is first called. */
function lazily<Fn extends (...args: never[]) => unknown>(load: () => Factory<Fn>): Factory<Fn> {
  return (...args) => {
    // The compiler itself too (ajv's is a new Ajv instance with its formats): made on first use.
    let compile: Compiler<Fn> | undefined;
    return (definition) => {
      let compiled: Fn | undefined;
      const call = (...callArgs: Parameters<Fn>): ReturnType<Fn> => {
        compiled ??= (compile ??= load()(...args))(definition);
        const result = compiled(...callArgs) as ReturnType<Fn>;
        // ajv's validators report through a property of the function (fastify reads `validate.errors`).
        (call as unknown as { errors?: unknown }).errors = (compiled as unknown as { errors?: unknown }).errors;
        return result;
      };
      return call as unknown as Fn;
    };
  };
}

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;

/** fast-json-stringify's compiler factory, loaded when first asked for (a CommonJS package: loaded synchronously). */
function serializerFactory(): Factory<Serialize> {
  const selector = createRequire(import.meta.url)('@fastify/fast-json-stringify-compiler') as typeof SerializerSelector;
  return selector() as unknown as Factory<Serialize>;
}

/** For `Fastify({ schemaController: { compilersFactory } })`. */
export function lazySchemaCompilers(): { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory } {
  let validator: Factory<Validate> | undefined;
  let serializer: Factory<Serialize> | undefined;
  return {
    buildValidator: lazily(() => (validator ??= finiteNumbersValidator() as unknown as Factory<Validate>)) as unknown as ValidatorFactory,
    buildSerializer: lazily(() => (serializer ??= serializerFactory())) as unknown as SerializerFactory,
  };
}
