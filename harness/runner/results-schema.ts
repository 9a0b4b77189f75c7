/** Checks a results.json against its published schema (docs/results.schema.json). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PACKAGE_ROOT } from './catalogue.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
let validate: ValidateFunction | undefined;

/** The first schema violation as `field: what`, or undefined. */
export function resultsProblem(doc: unknown): string | undefined {
  if (!validate) {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    validate = ajv.compile(JSON.parse(readFileSync(join(PACKAGE_ROOT, 'docs/results.schema.json'), 'utf8')));
  }
  if (validate(doc)) return undefined;
  const e = validate.errors![0]!;
  return `${e.instancePath || '/'}: ${e.message}`;
}
