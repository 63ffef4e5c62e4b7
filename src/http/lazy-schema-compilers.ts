import type { ValidatorFactory } from '@fastify/ajv-compiler';
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import { finiteNumbersValidator } from './finite-numbers.js';

/**
 * fastify's own schema compilers (ajv for validation, fast-json-stringify for answers), each route's
 * compiled on its first request instead of all of them while the server starts. fastify compiles
 * every route's schemas before it listens, and the /api/v1 routes are many: on the demo storage
 * that was about a quarter of the time from launch to the first answer of /{instance}/root, a
 * route the Java clients use and that has no schema. A schema that does not compile now fails its
 * route's first request (500) instead of the start; the API tests call every route.
 * The same compilers with the same options: answers and validation errors are unchanged.
 */

type Compiler<Fn> = (definition: unknown) => Fn;
type Factory<Fn> = (...args: never[]) => Compiler<Fn>;

/** A factory whose compilers compile when the compiled function is first called. */
function lazily<Fn extends (...args: never[]) => unknown>(factory: Factory<Fn>): Factory<Fn> {
  return (...args) => {
    // The compiler itself too (ajv's is a new Ajv instance with its formats): made on first use.
    let compile: Compiler<Fn> | undefined;
    return (definition) => {
      let compiled: Fn | undefined;
      const call = (...callArgs: Parameters<Fn>): ReturnType<Fn> => {
        compiled ??= (compile ??= factory(...args))(definition);
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

/** For `Fastify({ schemaController: { compilersFactory } })`. */
export function lazySchemaCompilers(): { buildValidator: ValidatorFactory; buildSerializer: SerializerFactory } {
  return {
    buildValidator: lazily(finiteNumbersValidator() as unknown as Factory<Validate>) as unknown as ValidatorFactory,
    buildSerializer: lazily(SerializerSelector() as unknown as Factory<Serialize>) as unknown as SerializerFactory,
  };
}
