/**
 * The project's published JSON Schemas (docs/*.schema.json), compiled with Ajv (draft 2020-12,
 * formats on). One place for the set-up; each schema is compiled once per process.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PACKAGE_ROOT } from '../infrastructure/package-root.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => void;
const compiled = new Map<string, ValidateFunction>();

/**
 * A validator for `docs/<file>`, or for one of its `$defs` when `def` is given.
 * `allErrors` collects every violation (for tests and `doctor`); without it the first is enough.
 */
export function schemaValidator(file: string, def?: string, allErrors = false): ValidateFunction {
  const key = `${file}#${def ?? ''}#${allErrors}`;
  let v = compiled.get(key);
  if (!v) {
    const ajv = new Ajv2020({ strict: false, allErrors });
    addFormats(ajv);
    const schema = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'docs', file), 'utf8')) as object;
    if (def) {
      ajv.addSchema(schema, file);
      v = ajv.getSchema(`${file}#/$defs/${def}`)!;
    } else v = ajv.compile(schema);
    compiled.set(key, v);
  }
  return v;
}
