/**
 * The bytes an Agent Card signature covers (A2A v1.0.1 §8.4): the card without `signatures`, with
 * default values removed as §8.4.1 rule 1 says, in the JSON Canonicalization Scheme of RFC 8785
 * (the `canonicalize` package).
 *
 * §8.4 can be read more than one way: A2A #2122 ("§8.4.1 canonicalization is under-determined - two
 * SDKs produce different bytes for the same card, and neither reproduces the section's own worked
 * example"); A2A #2249 adds that the signing example cannot be verified as published (no key, no
 * payload). The reading this harness signs with, each part with the sentence it rests on:
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
 *    not as a second, stricter rule (the clean-empty reading below takes them as one: A2A #2122).
 * 6. `signatures` is removed from the top level only. §8.4.1 rule 3: "The `signatures` field itself
 *    MUST be excluded from the content being signed".
 * 7. A field the proto does not know is kept as it is (there is no default to compare with).
 *
 * @a2a-js/sdk 1.3.0 (`canonicalizeAgentCard`) removes every empty string, list and object,
 * REQUIRED ones and set messages included (a2a-js#627). Two consequences, both recorded by
 * test/signing.test.ts: the spec's own worked example canonicalises differently there, and a
 * security requirement without scopes (`{ schemes: { partnerMtls: { list: [] } } }`, as the mTLS
 * cards of docs/duties.md §2 carry) vanishes from what the SDK signs, so removing it from a signed card goes
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

/**
 * A value with the defaults of its fields removed, message by message: this harness's reading keeps
 * fields the proto does not know and REQUIRED fields whatever they hold (readings 1–3, 7); the proto's
 * own JSON mapping, as the SDKs run it, drops both.
 */
interface Mapping {
  unknown: 'keep' | 'drop';
  required: 'keep' | 'drop';
}
const OURS: Mapping = { unknown: 'keep', required: 'keep' };
const PROTO_JSON: Mapping = { unknown: 'drop', required: 'drop' };

function strip(value: unknown, message: string, m: Mapping = OURS): unknown {
  const spec = V1_MESSAGES[message];
  if (!spec || !isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const f = Object.hasOwn(spec.fields, key) ? spec.fields[key] : undefined;
    if (!f) {
      if (m.unknown === 'keep') out[key] = v; // reading 7
      continue;
    }
    if (v === null || v === undefined) continue;
    if ((m.required === 'drop' || !f.required) && !f.optional && holdsDefault(f, v)) continue; // readings 1–3
    const t = f.type;
    out[key] =
      t.t === 'message'
        ? strip(v, t.of, m)
        : t.t === 'messages' && Array.isArray(v)
          ? v.map((x) => strip(x, t.of, m))
          : t.t === 'messageMap' && isObject(v)
            ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x, t.of, m)]))
            : v;
  }
  return out;
}

/**
 * A value as the proto's own JSON mapping writes it (what comes back from the protobuf wire): fields
 * the proto does not know dropped, and every default of a field without explicit presence, REQUIRED
 * or not.
 */
export function asProtoJson(value: unknown, message: string): unknown {
  return strip(value, message, PROTO_JSON);
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

// --- the other published reading: "clean-empty" (A2A #2122) -----------------------------------

/**
 * The canonical form as @a2a-js/sdk 1.3.0 (`canonicalizeAgentCard`) and a2a-python
 * (`_canonicalize_agent_card`, "Recursively remove empty strings, lists and dicts") compute it, from
 * their documented rules: the card through the proto's JSON mapping (fields the proto does not know
 * dropped; a scalar without explicit presence dropped at its default; an empty list dropped), then
 * every empty string, list and object removed at every depth, a parent emptied by that removed too;
 * `false` and `0` stay. A2A #2122 records that the two SDKs agree with each other here and not with
 * §8.4.1's worked example. test/signing.test.ts checks this against the SDK's own function.
 */
export function cleanEmptySigningContent(card: Record<string, unknown>): Record<string, unknown> {
  const { signatures: _signatures, ...rest } = card;
  return (cleanEmpty(strip(rest, 'AgentCard', PROTO_JSON)) ?? {}) as Record<string, unknown>;
}

export function cleanEmptySigningPayload(card: Record<string, unknown>): string {
  const text = canonicalize(cleanEmptySigningContent(card));
  if (text === undefined) throw new Error('[harness] the card has no canonical form');
  return text;
}

/** Empty strings, lists and objects removed at every depth (a parent emptied by it too); undefined for an emptied value. */
function cleanEmpty(v: unknown): unknown {
  if (v === '' || v === null || v === undefined) return undefined;
  if (Array.isArray(v)) {
    const kept = v.map(cleanEmpty).filter((x) => x !== undefined);
    return kept.length ? kept : undefined;
  }
  if (isObject(v)) {
    const kept = Object.entries(v)
      .map(([k, x]) => [k, cleanEmpty(x)] as const)
      .filter(([, x]) => x !== undefined);
    return kept.length ? Object.fromEntries(kept) : undefined;
  }
  return v;
}

/**
 * Where the published readings of §8.4.1 give a card different bytes: the JSON pointers of what the
 * harness's reading signs and the clean-empty reading leaves out (empty when they agree).
 */
export function contestedCanonicalForm(card: Record<string, unknown>): string[] {
  const ours = cardSigningContent(card);
  if (canonicalize(ours) === canonicalize(cleanEmptySigningContent(card))) return [];
  const theirs = cleanEmptySigningContent(card);
  const out: string[] = [];
  const walk = (a: unknown, b: unknown, at: string) => {
    if (out.length >= 10) return;
    if (isObject(a)) {
      for (const [k, x] of Object.entries(a)) {
        const p = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
        if (!isObject(b) || !Object.hasOwn(b, k)) out.push(p);
        else walk(x, b[k], p);
      }
    } else if (Array.isArray(a)) {
      for (const [i, x] of a.entries()) {
        if (Array.isArray(b) && i < b.length) walk(x, b[i], `${at}/${i}`);
        else out.push(`${at}/${i}`);
      }
    }
  };
  walk(ours, theirs, '');
  return out.length ? out : [''];
}
