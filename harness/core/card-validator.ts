/**
 * A2A v1.0 Agent Card validator, written from the normative proto (`lf.a2a.v1`, spec §1.4).
 *
 * - REQUIRED fields (`field_behavior = REQUIRED`) must be present; a REQUIRED string must be
 *   non-empty and a REQUIRED list must have at least one element (spec §5.7).
 * - Types follow ProtoJSON: strings, booleans, lists, objects, maps.
 * - Oneofs (`SecurityScheme.scheme`, `OAuthFlows.flow`) hold exactly one member.
 * - Unknown fields are refused, as a ProtoJSON parser does by default, so a v0.3-style
 *   `{ "type": "mutualTLS" }` security scheme or a stray top-level field is an error.
 *
 * The table it reads (harness/core/protocol/proto-v1.ts) is cross-checked against the proto by a test.
 */

import { V1_ENUMS, V1_MESSAGES, type FieldSpec } from './protocol/proto-v1.js';

export { V1_ENUMS, V1_MESSAGES, type FieldSpec, type FieldType, type MessageSpec } from './protocol/proto-v1.js';

export interface ValidationIssue {
  /** JSON pointer to the offending value. */
  pointer: string;
  message: string;
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

function validateMessage(name: string, value: unknown, ptr: string, out: ValidationIssue[]): void {
  const spec = V1_MESSAGES[name];
  if (!spec) throw new Error(`[harness] validator has no spec for message ${name}`);
  if (!isObj(value)) {
    out.push({ pointer: ptr || '/', message: `${name} must be an object` });
    return;
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(spec.fields, key)) out.push({ pointer: `${ptr}/${esc(key)}`, message: `unknown field "${key}" in ${name}` });
  }
  for (const [field, fs] of Object.entries(spec.fields)) {
    const p = `${ptr}/${esc(field)}`;
    const v = value[field];
    if (v === undefined || v === null) {
      if (fs.required) out.push({ pointer: p, message: `${name}.${field} is REQUIRED` });
      continue;
    }
    validateField(name, field, fs, v, p, out);
  }
  if (spec.oneof) {
    const set = spec.oneof.filter((k) => value[k] !== undefined && value[k] !== null);
    if (set.length !== 1)
      out.push({
        pointer: ptr || '/',
        message: `${name} must set exactly one of ${spec.oneof.join(', ')} (found ${set.length})`,
      });
  }
}

function validateField(msg: string, field: string, fs: FieldSpec, v: unknown, p: string, out: ValidationIssue[]) {
  const where = `${msg}.${field}`;
  switch (fs.type.t) {
    case 'string':
      if (typeof v !== 'string') out.push({ pointer: p, message: `${where} must be a string` });
      else if (fs.required && !fs.emptyAllowed && v === '') out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      return;
    case 'bool':
      if (typeof v !== 'boolean') out.push({ pointer: p, message: `${where} must be a boolean` });
      return;
    case 'strings':
      if (!Array.isArray(v)) out.push({ pointer: p, message: `${where} must be a list of strings` });
      else {
        v.forEach((x, i) => {
          if (typeof x !== 'string') out.push({ pointer: `${p}/${i}`, message: `${where}[${i}] must be a string` });
        });
        if (fs.required && v.length === 0) out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      }
      return;
    case 'message':
      validateMessage(fs.type.of, v, p, out);
      return;
    case 'messages':
      if (!Array.isArray(v)) out.push({ pointer: p, message: `${where} must be a list` });
      else {
        const of = fs.type.of;
        for (const [i, x] of v.entries()) validateMessage(of, x, `${p}/${i}`, out);
        if (fs.required && !fs.emptyAllowed && v.length === 0) out.push({ pointer: p, message: `${where} is REQUIRED and empty` });
      }
      return;
    case 'messageMap':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object (map)` });
      else {
        const of = fs.type.of;
        for (const [k, x] of Object.entries(v)) validateMessage(of, x, `${p}/${esc(k)}`, out);
      }
      return;
    case 'stringMap':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object (map of strings)` });
      else
        for (const [k, x] of Object.entries(v))
          if (typeof x !== 'string') out.push({ pointer: `${p}/${esc(k)}`, message: `${where}["${k}"] must be a string` });
      return;
    case 'struct':
      if (!isObj(v)) out.push({ pointer: p, message: `${where} must be an object` });
      return;
    case 'value':
      return; // google.protobuf.Value: any JSON value
    case 'int':
      // ProtoJSON writes int32 as a number (a string of digits is accepted on input).
      if (!(typeof v === 'number' && Number.isInteger(v) && Math.abs(v) <= 2 ** 31) && !(typeof v === 'string' && /^-?\d+$/.test(v)))
        out.push({ pointer: p, message: `${where} must be an integer` });
      return;
    case 'enum': {
      const values = V1_ENUMS[fs.type.of] ?? [];
      if (typeof v !== 'string' || !values.includes(v))
        out.push({ pointer: p, message: `${where} must be one of ${fs.type.of}'s names (${values.join(', ')})` });
      return;
    }
    case 'timestamp':
      // google.protobuf.Timestamp in ProtoJSON: RFC 3339 with a Z or an offset.
      if (typeof v !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/.test(v) || Number.isNaN(Date.parse(v)))
        out.push({ pointer: p, message: `${where} must be an RFC 3339 timestamp` });
      return;
    case 'bytes':
      // bytes in ProtoJSON: standard or URL-safe base64, padded or not.
      if (typeof v !== 'string' || !isBase64(v)) out.push({ pointer: p, message: `${where} must be base64 (ProtoJSON bytes)` });
      return;
  }
}

/** Standard or URL-safe base64, with or without padding (ProtoJSON's reading of `bytes`). */
export function isBase64(v: string): boolean {
  if (/^[A-Za-z0-9+/]*={0,2}$/.test(v) || /^[A-Za-z0-9_-]*={0,2}$/.test(v)) {
    const bare = v.replace(/=+$/, '');
    return bare.length % 4 !== 1 && (v.length === bare.length || v.length % 4 === 0);
  }
  return false;
}

/** Validates a value as the ProtoJSON of an A2A v1.0 message (`Task`, `StreamResponse`, …). An empty list: valid. */
export function validateV1(message: string, value: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  validateMessage(message, value, '', out);
  return out;
}

/** Validates an A2A v1.0 Agent Card. An empty list means the card is structurally valid. */
export function validateCardV1(card: unknown): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  validateMessage('AgentCard', card, '', out);
  return out;
}
