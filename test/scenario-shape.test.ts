/**
 * The scenario shape is written twice: the TypeScript types (harness/core/scenario/scenario.ts and what it
 * names) and the published schema a vendor's JSON scenario is checked against (docs/scenario.schema.json).
 * This test generates a JSON Schema from the types (ts-json-schema-generator) and compares the two
 * field by field, at every depth: a field added to one and not the other fails it, naming the field.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createGenerator } from 'ts-json-schema-generator';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import { testTemp } from './helpers/tmp.js';

type Schema = { [k: string]: unknown; $ref?: string; properties?: Record<string, Schema>; additionalProperties?: unknown; items?: Schema | Schema[] };

/**
 * Fields the types have and a scenario file never holds, each with the reason: what the harness fills
 * in itself.
 */
const TYPE_ONLY: Record<string, string> = {
  binding: "the binding a scenario is told over, set where a run tells it over one (harness/core/card-binding.ts); 'never in a scenario file'",
  'peer.live': "a live agent behind the recording proxy, set by `proxy` alone (harness/runner/engine/live.ts; docs/live.md): 'never in a scenario file'",
};

/** A field of the types only: an exception, or a field under one. */
const typeOnly = (p: string) => p in TYPE_ONLY || Object.keys(TYPE_ONLY).some((k) => p.startsWith(`${k}.`));

/** Every field path a schema allows from `start` (`peer.runtime.workMs`; `.*` for a map's values), through refs, unions and arrays. */
function fieldPaths(root: Schema, start: Schema): Set<string> {
  const out = new Set<string>();
  const defs = { ...((root.definitions as Record<string, Schema>) ?? {}), ...((root.$defs as Record<string, Schema>) ?? {}) };
  const walk = (node: unknown, at: string, seen: readonly string[]): void => {
    if (!node || typeof node !== 'object') return;
    let x = node as Schema;
    if (typeof x.$ref === 'string') {
      if (seen.includes(x.$ref)) return;
      const def = defs[decodeURIComponent(x.$ref.split('/').pop()!)];
      if (!def) throw new Error(`a $ref the schema does not define: ${x.$ref}`);
      seen = [...seen, x.$ref];
      x = def;
    }
    for (const k of ['anyOf', 'oneOf', 'allOf'] as const) for (const y of (x[k] as Schema[] | undefined) ?? []) walk(y, at, seen);
    for (const k of ['if', 'then', 'else'] as const) walk(x[k], at, seen);
    for (const y of Array.isArray(x.items) ? x.items : [x.items]) walk(y, at, seen);
    for (const [k, v] of Object.entries(x.properties ?? {})) {
      const path = at ? `${at}.${k}` : k;
      out.add(path);
      walk(v, path, seen);
    }
    if (x.additionalProperties && typeof x.additionalProperties === 'object') walk(x.additionalProperties, `${at}.*`, seen);
  };
  walk(start, '', []);
  return out;
}

/** The JSON Schema of the type `type` declared in (or exported by) `file`, as the types say it. */
function fromTypes(file: string, type: string): Schema {
  return createGenerator({ path: file, tsconfig: join(PACKAGE_ROOT, 'tsconfig.json'), type, skipTypeCheck: true, jsDoc: 'none' }).createSchema(type) as Schema;
}

/** The fields one side has and the other lacks. */
function differences(types: Set<string>, schema: Set<string>): { typesOnly: string[]; schemaOnly: string[] } {
  return {
    typesOnly: [...types].filter((p) => !schema.has(p) && !typeOnly(p)).sort(),
    schemaOnly: [...schema].filter((p) => !types.has(p)).sort(),
  };
}

const published = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'docs/scenario.schema.json'), 'utf8')) as Schema & { $defs: Record<string, Schema> };
const schemaFields = (s: typeof published) => fieldPaths(s, s.$defs.scenario!);
const generated = fromTypes(join(PACKAGE_ROOT, 'harness/core/scenario/scenario.ts'), 'Scenario');
const typeFields = fieldPaths(generated, generated);

describe('the scenario shape: the TypeScript types against docs/scenario.schema.json', () => {
  it('the same fields at every depth (the fields only the types have are named, with the reason)', () => {
    expect(typeFields.size).toBeGreaterThan(100);
    expect(differences(typeFields, schemaFields(published))).toEqual({ typesOnly: [], schemaOnly: [] });
    // Every exception is still a field of the types, and still missing from the schema.
    for (const p of Object.keys(TYPE_ONLY)) expect([typeFields.has(p), schemaFields(published).has(p)], p).toEqual([true, false]);
  });

  it('a field added to the schema alone is named', () => {
    const edited = structuredClone(published);
    const runtime = findProperties(edited.$defs.scenario!, ['peer', 'runtime'], edited);
    expect(runtime).toBeDefined();
    runtime!.addedBySchemaOnly = { type: 'boolean' };
    expect(differences(typeFields, schemaFields(edited))).toEqual({ typesOnly: [], schemaOnly: ['peer.runtime.addedBySchemaOnly'] });
  });

  it('a field added to the types alone is named', () => {
    const dir = testTemp('a2a-shape-');
    const file = join(dir, 'extended.ts');
    const scenario = join(PACKAGE_ROOT, 'harness/core/scenario/scenario.js');
    writeFileSync(
      file,
      `import type { Scenario } from ${JSON.stringify(scenario)};\nexport interface Extended extends Omit<Scenario, 'intent'> { intent: Scenario['intent'] & { addedByTypesOnly?: string } }\n`,
    );
    const extended = fromTypes(file, 'Extended');
    expect(differences(fieldPaths(extended, extended), schemaFields(published))).toEqual({ typesOnly: ['intent.addedByTypesOnly'], schemaOnly: [] });
  });
});

/** The `properties` object at a field path of the scenario schema (through refs and unions: the first that has it). */
function findProperties(start: Schema, path: string[], root: Schema & { $defs: Record<string, Schema> }): Record<string, Schema> | undefined {
  const candidates = (x: Schema): Schema[] => {
    const own = typeof x.$ref === 'string' ? [root.$defs[decodeURIComponent(x.$ref.split('/').pop()!)]!] : [x];
    return own.flatMap((y) => [y, ...(['anyOf', 'oneOf', 'allOf'] as const).flatMap((k) => ((y[k] as Schema[] | undefined) ?? []).flatMap(candidates))]);
  };
  let here: Schema[] = [start];
  for (const key of path) here = here.flatMap(candidates).flatMap((x) => (x.properties?.[key] ? [x.properties[key]!] : []));
  return here.flatMap(candidates).find((x) => x.properties)?.properties;
}
