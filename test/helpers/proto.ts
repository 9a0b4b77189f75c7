/** The A2A v1.0.1 proto beside the checkout (../shared/spec), where it is present: it may not be copied into the repo. */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROTO = join(dirname(fileURLToPath(import.meta.url)), '../../../shared/spec/a2a-v1.0.1.proto');

/** snake_case proto field → ProtoJSON camelCase name. */
const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** One field as the proto declares it: its JSON name, number, label and type. */
export interface ProtoField {
  name: string;
  number: number;
  label: '' | 'optional' | 'repeated';
  /** The proto type as written (`string`, `Message`, `map<string, X>`, `google.protobuf.Struct`…). */
  type: string;
  required: boolean;
}

/** Reads `message X { ... }` blocks and their fields from the proto text. */
export function protoMessages(text: string): Map<string, { fields: string[]; required: string[]; optional: string[]; declared: ProtoField[] }> {
  const out = new Map<string, { fields: string[]; required: string[]; optional: string[]; declared: ProtoField[] }>();
  const re = /^message (\w+) \{([\s\S]*?)^\}/gm;
  for (const m of text.matchAll(re)) {
    const body = m[2]!.split('\n').filter((l) => !l.trim().startsWith('//'));
    const declared: ProtoField[] = [];
    for (const line of body) {
      const f = /^\s+(optional |repeated )?(map<[^>]+>|[\w.]+) (\w+) = (\d+)(.*);/.exec(line);
      if (!f) continue;
      declared.push({
        name: camel(f[3]!),
        number: Number(f[4]),
        label: (f[1]?.trim() ?? '') as ProtoField['label'],
        type: f[2]!,
        required: f[5]!.includes('REQUIRED'),
      });
    }
    out.set(m[1]!, {
      fields: declared.map((f) => f.name),
      required: declared.filter((f) => f.required).map((f) => f.name),
      optional: declared.filter((f) => f.label === 'optional').map((f) => f.name),
      declared,
    });
  }
  return out;
}

/** The service's `rpc` lines: name, request, response, and whether the response is a stream. */
export function protoMethods(text: string): Array<{ name: string; request: string; response: string; stream: boolean }> {
  return [...text.matchAll(/^\s+rpc (\w+)\((\w+)\) returns \((stream )?([\w.]+)\)/gm)].map((m) => ({
    name: m[1]!,
    request: m[2]!,
    response: m[4]!.replace(/^google\.protobuf\./, ''),
    stream: m[3] !== undefined,
  }));
}
