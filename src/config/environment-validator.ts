// The validator of the server's environment (src/config.ts), compiled from its schema when the
// server runs from source. The server's bundle replaces this module with the same validator compiled
// by Ajv at build time (src/cli/build.mjs), so that a start does not spend ~40 ms generating it.
import { Ajv, type AnySchema, type ValidateFunction } from 'ajv';

/** Strings become numbers and booleans, defaults are filled in, and every problem is reported. */
export const environmentValidation = { coerceTypes: true, useDefaults: true, allErrors: true } as const;

export function compileEnvironmentValidator(schema: AnySchema): ValidateFunction<Record<string, unknown>> {
  // The schema is ours and fixed: it is not checked against the meta-schema at every start.
  return new Ajv({ ...environmentValidation, validateSchema: false }).compile(schema);
}
