/**
 * The bytes an Agent Card signature covers (A2A v1.0.1 §8.4): the card without `signatures`, with
 * default values removed as §8.4.1 rule 1 says, in the JSON Canonicalization Scheme of RFC 8785
 * (the `canonicalize` package).
 *
 * §8.4 can be read more than one way (research/a2a-spec.md §2.5: A2A#2122, A2A#2249). The reading
 * this harness signs with, each part with the sentence it rests on:
 *
 * 1. REQUIRED fields stay, whatever they hold. §8.4.1: "Required fields: Fields marked with
 *    `REQUIRED` MUST always be present, even if the field value matches the default." The worked
 *    example keeps `"description": ""` and `"skills": []`.
 * 2. Fields declared `optional` in the proto stay when present, whatever they hold. §8.4.1:
 *    "Optional fields explicitly set to defaults: Fields marked with `optional` that were explicitly
 *    set to a value (even if that value matches a default) MUST be included". The example keeps
 *    `"streaming": false`.
 * 3. Any other scalar or repeated field holding its proto3 default (`""`, `false`, `[]`, `{}` for a
 *    map) is removed. §8.4.1: "Fields with default values MUST be omitted unless the field is
 *    marked as `REQUIRED` or has the `optional` keyword." The example drops `"extensions": []`.
 * 4. A message-typed field that is present stays, even when empty: proto3 message fields have
 *    explicit presence (§5.7), so an empty object was set, not defaulted. The text does not say so
 *    in as many words; this is the reading of rule 1's "field presence semantics".
 * 5. §8.4.2 step 1 and §8.4.3 step 3 ("Remove properties with default values") are read as rule 1,
 *    not as a second, stricter rule (A2A#2249).
 * 6. `signatures` is removed from the top level only. §8.4.1 rule 3: "The `signatures` field itself
 *    MUST be excluded from the content being signed".
 * 7. A field the proto does not know is kept as it is (there is no default to compare with).
 *
 * @a2a-js/sdk 1.3.0 (`canonicalizeAgentCard`) removes every empty string, list and object,
 * REQUIRED ones and set messages included (a2a-js#627). Two consequences, both recorded by
 * test/signing.test.ts: the spec's own worked example canonicalises differently there, and a
 * security requirement without scopes (`{ schemes: { partnerMtls: { list: [] } } }`, as the mTLS
 * cards of seed 000 carry) vanishes from what the SDK signs, so removing it from a signed card goes
 * unseen by the SDK's verifier.
 */
import canonicalize from 'canonicalize';
import { V1_MESSAGES, type FieldSpec } from './card-validator.js';

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Whether a value is the proto3 default of a field that has no explicit presence. */
function holdsDefault(f: FieldSpec, v: unknown): boolean {
  switch (f.type.t) {
    case 'string':
      return v === '';
    case 'bool':
      return v === false;
    case 'strings':
    case 'messages':
      return Array.isArray(v) && v.length === 0;
    case 'messageMap':
    case 'stringMap':
      return isObject(v) && Object.keys(v).length === 0;
    case 'int':
      return v === 0 || v === '0';
    case 'enum':
      return typeof v === 'string' && v.endsWith('_UNSPECIFIED');
    case 'bytes':
      return v === '';
    case 'message':
    case 'struct':
    case 'timestamp':
    case 'value':
      return false; // messages have presence: set means set (reading 4)
  }
}

function strip(value: unknown, message: string): unknown {
  const spec = V1_MESSAGES[message];
  if (!spec || !isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const f = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (!f) {
      out[key] = v; // reading 7
      continue;
    }
    if (v === null || v === undefined) continue;
    if (!f.required && !f.optional && holdsDefault(f, v)) continue; // readings 1–3
    const t = f.type;
    out[key] =
      t.t === 'message' ? strip(v, t.of)
      : t.t === 'messages' && Array.isArray(v) ? v.map((x) => strip(x, t.of))
      : t.t === 'messageMap' && isObject(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x, t.of)]))
      : v;
  }
  return out;
}

/** The card as it is signed: `signatures` and default values removed (the readings above), not yet canonical. */
export function cardSigningContent(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _signatures, ...rest } = card;
  return strip(rest, 'AgentCard') as Record<string, unknown>;
}

/** The JWS payload of a card signature: RFC 8785 text of `cardSigningContent`. */
export function cardSigningPayload(card: Record<string, unknown>): string {
  const text = canonicalize(cardSigningContent(card));
  if (text === undefined) throw new Error('[harness] the card has no canonical form');
  return text;
}
