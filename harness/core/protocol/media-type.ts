/**
 * Media-type comparison with parameters significant (RFC 9110 §8.3.1; docs/duties.md §7:
 * matching that drops the parameters hides the gap until the decoder fails). Parsing is done by the `content-type` package.
 *
 * Type, subtype and parameter names compare case-insensitively (RFC 9110 §8.3.1: "The type and
 * subtype tokens are case-insensitive", "Parameter names are case-insensitive"); parameter values
 * compare exactly, except `charset`, whose values are case-insensitive (RFC 9110 §8.3.2). So
 * `profile` and `version` are significant, and a type with a parameter the other lacks is another
 * type: a `supports()` that lets the incoming type carry extra parameters is the loose matching
 * that hides the gap.
 */
import contentType from 'content-type';

export interface MediaType {
  type: string;
  parameters: Record<string, string>;
}

/** Parses a media type; `undefined` when it is not one. */
export function parseMediaType(text: string): MediaType | undefined {
  try {
    const parsed = contentType.parse(text);
    const parameters = { ...parsed.parameters };
    if (parameters.charset !== undefined) parameters.charset = parameters.charset.toLowerCase();
    return { type: parsed.type.toLowerCase(), parameters };
  } catch {
    return undefined;
  }
}

/** Canonical text: lower-case type, parameters sorted by name. Unparseable input is returned as is. */
export function canonicalMediaType(text: string): string {
  const mt = parseMediaType(text);
  if (!mt) return text;
  const params = Object.keys(mt.parameters)
    .sort()
    .map((k) => `;${k}=${JSON.stringify(mt.parameters[k])}`)
    .join('');
  return mt.type + params;
}

/** Same type and exactly the same parameters. */
export function sameMediaType(a: string, b: string): boolean {
  return canonicalMediaType(a) === canonicalMediaType(b);
}

export function includesMediaType(list: readonly string[], mt: string): boolean {
  return list.some((x) => sameMediaType(x, mt));
}
