/**
 * The documents a vendor reads without the source: every relative link in README.md and docs/*.md
 * leads to a file the npm package ships (or a heading in one), and docs/protocol.md states the whole
 * `intent` and `profile` of a run as the NDJSON schema has them, the v1.0 security scheme shapes as
 * the card validator reads them, and the extension URIs the harness defines.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { V1_MESSAGES, validateV1 } from '../harness/core/card-validator.js';
import * as EXTENSIONS from '../harness/core/protocol/extensions.js';
import { DEFAULT_PROFILE } from '../harness/core/protocol/types.js';
import { ROOT } from './helpers/cli.js';

const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const PROTOCOL = read('docs/protocol.md');

// --- what the package ships --------------------------------------------------------------------

/**
 * Whether npm packs a file, by package.json `files` as npm reads it: a directory entry takes the tree
 * under it, a glob its matches, a `!` entry takes matches out again; package.json, README and LICENSE
 * always go. (Checked against `npm pack --dry-run` when written; a child process per test run would
 * cost seconds for the same list.)
 */
function shipper(): (rel: string) => boolean {
  const files = (JSON.parse(read('package.json')) as { files: string[] }).files;
  const strip = (p: string) => p.replace(/^\.?\//, '').replace(/\/$/, '');
  const include = files.filter((f) => !f.startsWith('!')).map(strip);
  const exclude = files.filter((f) => f.startsWith('!')).map((f) => picomatch(strip(f.slice(1)), { dot: true }));
  const globs = include.map((f) => picomatch(f, { dot: true }));
  return (rel) => {
    if (/^(package\.json|README(\.[^/]*)?|LICEN[CS]E(\.[^/]*)?)$/i.test(rel)) return true;
    if (exclude.some((m) => m(rel))) return false;
    return include.some((f, i) => rel === f || rel.startsWith(`${f}/`) || globs[i]!(rel));
  };
}

/** Whether a link target (a path from the root) is a shipped file, or a directory holding one. */
function shipped(rel: string, ships: (rel: string) => boolean): boolean {
  const abs = join(ROOT, rel);
  if (!existsSync(abs)) return false;
  if (!statSync(abs).isDirectory()) return ships(rel);
  const walk = (dir: string): boolean =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(dir, e.name)) : ships(join(dir, e.name))));
  return walk(rel);
}

// --- markdown ----------------------------------------------------------------------------------

/** The text outside fenced blocks and inline code, where a link is a link. */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');

/** Relative link targets: `[text](target)`, with no scheme and not protocol-relative. */
function relativeLinks(md: string): string[] {
  return [...prose(md).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('//'));
}

/** The anchors GitHub gives a file's headings: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = m[1]!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The part of a document from a heading to the next heading of the same or a higher level. */
function section(md: string, heading: string): string {
  const lines = md.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return '';
  const level = /^#+/.exec(heading)![0].length;
  const end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}}\\s`).test(l));
  return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** Table rows whose first cell is one code span: field → the other cells. */
function rows(md: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const m of md.matchAll(/^\| `([^`]+)` \|(.*)\|\s*$/gm))
    out.set(
      m[1]!,
      m[2]!.split(' | ').map((c) => c.trim()),
    );
  return out;
}

// --- the schemas -------------------------------------------------------------------------------

interface Schema {
  type?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
}

/** Every field of an object schema, nested objects' fields as dotted paths, with whether it is required and its enum. */
function fieldsOf(s: Schema, prefix = ''): Array<{ path: string; required: boolean; enum?: unknown[] }> {
  return Object.entries(s.properties ?? {}).flatMap(([k, v]) => [
    {
      path: `${prefix}${k}`,
      required: (s.required ?? []).includes(k),
      ...((v.enum ?? (v as { items?: Schema }).items?.enum) ? { enum: v.enum ?? (v as { items?: Schema }).items!.enum } : {}),
    },
    ...(v.properties ? fieldsOf(v, `${prefix}${k}.`) : []),
  ]);
}

const RUN = JSON.parse(read('docs/ndjson/run.schema.json')) as Schema;
const HELLO = JSON.parse(read('docs/ndjson/hello.schema.json')) as Schema;

describe('the documents a vendor reads', () => {
  it('every relative link in README.md and docs/**/*.md leads to a file package.json "files" ships, or to a heading of one', () => {
    const ships = shipper();
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'), { recursive: true })
        .map(String)
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f.split('\\').join('/')}`),
    ];
    const broken: string[] = [];
    let checked = 0;
    for (const doc of docs) {
      for (const link of relativeLinks(read(doc))) {
        checked++;
        const [path, fragment] = link.split('#', 2) as [string, string | undefined];
        const target = path === '' ? doc : normalize(relative(ROOT, join(ROOT, dirname(doc), decodeURIComponent(path))));
        if (target.startsWith('..') || !shipped(target, ships)) {
          broken.push(`${doc}: ${link} (${target} is not in the package)`);
          continue;
        }
        if (fragment !== undefined && !(target.endsWith('.md') && anchors(read(target)).has(fragment)))
          broken.push(`${doc}: ${link} (no heading #${fragment} in ${target})`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(20);
  });

  it('the link check itself: a file outside "files", a test file, a missing heading and a missing file are caught', () => {
    const ships = shipper();
    expect(shipped('docs/protocol.md', ships) && shipped('docs/ndjson', ships) && shipped('README.md', ships)).toBe(true);
    expect(shipped('action.yml', ships)).toBe(false);
    expect(shipped('harness/core/card-canonical.ts', ships)).toBe(false);
    expect(ships('docs/x.test.ts')).toBe(false);
    expect(shipped('docs/no-such-file.md', ships)).toBe(false);
    expect(anchors(PROTOCOL).has('signed-cards-how-they-are-verified-here')).toBe(true);
    expect(anchors('# A `b`: c, d\n## A `b`: c, d\n```\n# not a heading\n```\n')).toEqual(new Set(['a-b-c-d', 'a-b-c-d-1']));
    expect(relativeLinks('[a](x.md) [b](https://e.org) `[c](y.md)` [d](#h)')).toEqual(['x.md', '#h']);
  });

  it("docs/protocol.md names every field of the run's intent and profile, with the schema's types, optionality and values, and the default profile", () => {
    const doc = section(PROTOCOL, "## The run's `intent` and `profile`, field by field");
    const [intentPart, profilePart] = doc.split('**`profile`');
    expect(profilePart, 'a profile table after the intent table').toBeDefined();
    const intent = RUN.properties!.intent!;
    const profile = RUN.properties!.profile!;
    for (const [schema, part] of [
      [intent, intentPart!],
      [profile, profilePart!],
    ] as const) {
      const table = rows(part);
      const fields = fieldsOf(schema);
      // The same fields, no more, no fewer.
      expect([...table.keys()].sort()).toEqual(fields.map((f) => f.path).sort());
      for (const f of fields) {
        const type = table.get(f.path)![0]!;
        expect(type.includes('optional'), `${f.path}: "optional" iff the schema does not require it`).toBe(!f.required);
        for (const v of f.enum ?? []) expect(type, `${f.path}: names ${String(v)}`).toContain(`\`${String(v)}\``);
      }
    }
    // The hello's fixed profile is the same object as a run's, and the defaults are the code's.
    const fixed = HELLO.properties!.profile!.oneOf!.find((o) => o.type === 'object')!;
    expect(Object.keys(fixed.properties!).sort()).toEqual(Object.keys(profile.properties!).sort());
    expect(Object.keys(DEFAULT_PROFILE).sort()).toEqual(Object.keys(profile.properties!).sort());
    const table = rows(profilePart!);
    for (const [k, v] of Object.entries(DEFAULT_PROFILE)) expect(JSON.parse(table.get(k)![1]!.replace(/^`|`$/g, '')), `default of ${k}`).toEqual(v);
    // The example run message carries them whole, not `{…}`.
    expect(PROTOCOL).not.toMatch(/"(intent|profile)":\{…\}/);
  });

  it('docs/protocol.md shows every v1.0 security scheme and OAuth flow with every field the proto gives it, as the card validator reads them', () => {
    const doc = section(PROTOCOL, '### Security schemes a v1.0 card may carry');
    const blocks = [...doc.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
    expect(blocks).toHaveLength(2);
    const card = JSON.parse(blocks[0]!) as { securitySchemes: Record<string, Record<string, Record<string, unknown>>>; securityRequirements: unknown[] };
    const kinds = Object.values(card.securitySchemes).map((s) => Object.keys(s)[0]!);
    expect(kinds.sort()).toEqual([...V1_MESSAGES.SecurityScheme!.oneof!].sort());
    for (const [name, s] of Object.entries(card.securitySchemes)) {
      expect(validateV1('SecurityScheme', s), name).toEqual([]);
      const [kind, body] = Object.entries(s)[0]!;
      const message = (V1_MESSAGES.SecurityScheme!.fields[kind]!.type as { of: string }).of;
      expect(Object.keys(body).sort(), `${name}: every field of ${message}`).toEqual(Object.keys(V1_MESSAGES[message]!.fields).sort());
    }
    for (const r of card.securityRequirements) expect(validateV1('SecurityRequirement', r)).toEqual([]);
    const flows = blocks[1]!
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, Record<string, unknown>>);
    expect(flows.map((f) => Object.keys(f)[0]).sort()).toEqual([...V1_MESSAGES.OAuthFlows!.oneof!].sort());
    for (const f of flows) {
      expect(validateV1('OAuthFlows', f)).toEqual([]);
      const [kind, body] = Object.entries(f)[0]!;
      const message = (V1_MESSAGES.OAuthFlows!.fields[kind]!.type as { of: string }).of;
      expect(Object.keys(body).sort(), `every field of ${message}`).toEqual(Object.keys(V1_MESSAGES[message]!.fields).sort());
    }
  });

  it('docs/protocol.md names every extension URI the harness defines, each in its table, and shows a skill named as the peers read it', () => {
    const table = rows(section(PROTOCOL, '### Extensions the harness knows'));
    const uris = (Object.values(EXTENSIONS) as unknown[]).filter((v): v is string => typeof v === 'string' && v.startsWith('urn:'));
    expect(uris.length).toBeGreaterThan(1);
    expect([...table.keys()].sort()).toEqual(uris.sort());
    const skill = section(PROTOCOL, '### Naming a skill');
    const example = JSON.parse(/^```json\n([\s\S]*?)^```/m.exec(skill)![1]!) as { message: { metadata: { skillId?: unknown } } };
    expect(validateV1('Message', example.message)).toEqual([]);
    expect(typeof example.message.metadata.skillId).toBe('string');
  });
});
