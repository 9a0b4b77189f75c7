/** Checks a results.json against its published schema (docs/results.schema.json). */
import { schemaValidator } from './json-schema.js';

/** The first schema violation as `field: what`, or undefined. */
export function resultsProblem(doc: unknown): string | undefined {
  const validate = schemaValidator('results.schema.json');
  if (validate(doc)) return undefined;
  const e = validate.errors![0]!;
  return `${e.instancePath || '/'}: ${e.message}`;
}
