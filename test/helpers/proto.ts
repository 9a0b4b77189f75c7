/** The A2A v1.0.1 proto beside the checkout (../shared/spec), where it is present: it may not be copied into the repo. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROTO = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/spec/a2a-v1.0.1.proto');

/** snake_case proto field → ProtoJSON camelCase name. */
const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** Reads `message X { ... }` blocks and their fields from the proto text. */
export function protoMessages(text: string): Map<string, { fields: string[]; required: string[]; optional: string[] }> {
  const out = new Map<string, { fields: string[]; required: string[]; optional: string[] }>();
  const re = /^message (\w+) \{([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const body = m[2]!.split('\n').filter((l) => !l.trim().startsWith('//'));
    const fields: string[] = [];
    const required: string[] = [];
    const optional: string[] = [];
    for (const line of body) {
      const f = /^\s+(optional |repeated )?(?:map<[^>]+>|[\w.]+) (\w+) = \d+(.*);/.exec(line);
      if (!f) continue;
      fields.push(camel(f[2]!));
      if (f[3]!.includes('REQUIRED')) required.push(camel(f[2]!));
      if (f[1] === 'optional ') optional.push(camel(f[2]!));
    }
    out.set(m[1]!, { fields, required, optional });
  }
  return out;
}
