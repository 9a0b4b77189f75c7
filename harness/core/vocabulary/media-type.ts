/**
 * Media-type comparison with parameters significant (RFC 9110 §8.3.1; seed 001: "loose matching
 * that strips parameters masks the failure"). Parsing is done by the `content-type` package.
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
    return { type: parsed.type.toLowerCase(), parameters: parsed.parameters };
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
