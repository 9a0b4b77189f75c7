/**
 * The scenario catalogue: every scenario file found by glob, loaded as data, checked, ids unique.
 * A malformed file is a load error that names the file and the field.
 */
import { readdir, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import picomatch from 'picomatch';
import { glob } from 'tinyglobby';
import { fillCard } from '../../core/scenario/card.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { validateCard } from '../../core/card-validator-v03.js';
import { cardDialect } from '../../core/protocol/card-view.js';
import { peerProblem } from '../../../peers/index.js';
import { schemaValidator } from './json-schema.js';
import { importVendorModules, VendorImportError } from './vendor-import.js';
import { CODE_EXT, CODE_ROOT, PACKAGE_ROOT } from '../infrastructure/package-root.js';
import { ScenarioLoadError } from '../../faults.js';

export { CODE_ROOT, PACKAGE_ROOT };
/** The built-in scenarios, relative to CODE_ROOT (TypeScript in a clone, JavaScript once compiled). */
export const DEFAULT_SCENARIO_GLOB = `scenarios/**/*.scenario${CODE_EXT}`;

export interface CatalogueEntry {
  scenario: Scenario;
  /** Absolute path of the file that declares it. */
  file: string;
}

/** Checks one scenario against the published schema; returns the first problem as `field: what`. */
export function scenarioProblem(s: unknown): string | undefined {
  const validate = schemaValidator('scenario.schema.json', 'scenario');
  // Through JSON, as a .scenario.json would be: `undefined` members of a TypeScript literal vanish.
  if (validate(JSON.parse(JSON.stringify(s ?? null)))) return undefined;
  const e = validate.errors![0]!;
  const at = e.instancePath.replace(/^\//, '').replace(/\//g, '.') || 'scenario';
  const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
  const extra = (e.params as { additionalProperty?: string }).additionalProperty;
  return `${at}: ${e.message}${allowed ? ` (${allowed.join(', ')})` : ''}${extra ? ` "${extra}"` : ''}`;
}

/** Deepest nesting a scenario may have (a card, a runtime): far above any real one, far below the stack. */
const MAX_SCENARIO_DEPTH = 64;

/**
 * Walks a value without recursion (a file may nest deeper than the stack) and says where it is
 * nested too deep, or where it refers back to itself; undefined when it is plain, finite data.
 */
function shapeProblem(value: unknown, max = MAX_SCENARIO_DEPTH): string | undefined {
  const stack: Array<{ v: unknown; path: string[]; parents: Set<object> }> = [{ v: value, path: [], parents: new Set() }];
  const at = (p: string[]) => p.join('.') || 'scenario';
  while (stack.length) {
    const { v, path, parents } = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (parents.has(v)) return `${at(path)}: refers back to itself (a cycle)`;
    if (path.length >= max) return `${at(path.slice(0, 4))}${path.length > 4 ? '…' : ''}: nested deeper than ${max} levels`;
    const inner = new Set(parents).add(v);
    for (const [k, x] of Object.entries(v)) if (x && typeof x === 'object') stack.push({ v: x, path: [...path, k], parents: inner });
  }
  return undefined;
}

/**
 * A scenario's peer: a known factory whose checks pass, and a card its dialect's validator accepts
 * once its URLs are filled (v1.0 against the proto; v0.3 against its schema's shapes).
 */
function servableProblem(s: Scenario): string | undefined {
  const ids = (s.assertions ?? []).map((a) => a.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) return `assertions: the id "${twice}" is used twice (each assertion is the check VENDOR:<id>)`;
  const peer = peerProblem(s.peer);
  if (peer) return peer;
  // The peer fills its {{…}} placeholders with its listeners' URLs; any https URL stands in here.
  const card = fillCard(s.peer.card, {
    rpcUrl: 'https://127.0.0.1:1/a2a',
    rpcUrl03: 'https://127.0.0.1:1/a2a03',
    tokenUrl: 'https://127.0.0.1:1/oauth/token',
    negotiationUrl: 'https://127.0.0.1:1/negotiate',
  });
  const dialect = s.peer.dialect ?? 'a2a-v1';
  if (cardDialect(card) !== dialect) return `peer.card: the card is written in ${cardDialect(card)} form, but peer.dialect is ${dialect}`;
  const issues = validateCard(card);
  if (issues.length)
    return `peer.card${issues[0]!.pointer === '/' ? '' : issues[0]!.pointer.replace(/\//g, '.')}: ${issues[0]!.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`;
  return undefined;
}

/** The names a scenario file may have: TypeScript or JavaScript (each loaded as an ES module whatever the package type), or JSON. */
export const SCENARIO_SUFFIXES = ['.scenario.ts', '.scenario.mts', '.scenario.js', '.scenario.mjs', '.scenario.json'] as const;
const isScenarioFile = (f: string) => SCENARIO_SUFFIXES.some((x) => f.endsWith(x));
const SUFFIX_GLOB = '*.scenario.{ts,mts,js,mjs,json}';

/** Trees no scenario search walks: the kernel's views of processes, devices and itself, never a vendor's files (and /proc has no end). */
const SYSTEM_TREES = ['/proc', '/sys', '/dev'];
const isUnder = (p: string, root: string) => p === root || p.startsWith(root + '/');

/**
 * How far the search of one pattern may go: folders read, and time. Far above a real project
 * (node_modules is skipped); what passes them is a pattern that names far more than scenario files.
 */
export const WALK_LIMITS = { folders: 100_000, ms: 30_000 };

/**
 * The scenario files one pattern names, relative to `cwd`: a file (taken as given, wherever it is),
 * a folder (every scenario file under it), or a glob. A glob skips node_modules unless it names
 * node_modules itself. A search never walks the whole filesystem, nor /proc, /sys or /dev, and stops
 * at WALK_LIMITS: each is a ScenarioLoadError that names the pattern.
 */
export async function matchScenarioFiles(pattern: string, cwd: string): Promise<string[]> {
  const path = resolve(cwd, pattern);
  let st: Stats | undefined;
  try {
    st = await stat(path);
  } catch {
    st = undefined;
  }
  if (st?.isFile()) return isScenarioFile(path) ? [path] : [];
  const ignore = /(^|[\\/])node_modules([\\/]|$)/.test(pattern) ? [] : ['**/node_modules/**'];
  const root = st?.isDirectory() ? path : resolve(cwd, picomatch.scan(pattern).base || '.');
  const refuse = (what: string) =>
    new ScenarioLoadError(`scenarios ${JSON.stringify(pattern)}: a search for scenario files does not walk ${what}; name the folder that holds them`);
  if (root === '/') throw refuse('the whole filesystem (/)');
  const tree = SYSTEM_TREES.find((t) => isUnder(root, t));
  if (tree) throw refuse(tree);
  // The walk reads folders through this guard: it never enters the system trees (a link may lead
  // there), stops at the root of the filesystem (a brace or a link may lead there too), and counts.
  const stop = new AbortController();
  let stoppedBy: string | undefined;
  const halt = (why: string) => {
    stoppedBy ??= why;
    stop.abort();
  };
  let folders = 0;
  const guarded = {
    readdir: (dir: string, options: unknown, done: (err: NodeJS.ErrnoException | null, entries: unknown[]) => void) => {
      const at = resolve(dir);
      if (at === '/') halt('the whole filesystem (/)');
      else if (++folders > WALK_LIMITS.folders) halt(`more than ${WALK_LIMITS.folders.toLocaleString('en-US')} folders`);
      if (stop.signal.aborted || SYSTEM_TREES.some((t) => isUnder(at, t))) return done(null, []);
      readdir(dir, options as { withFileTypes: true }, done as never);
    },
  };
  const timer = setTimeout(() => halt(`for longer than ${WALK_LIMITS.ms / 1000} s`), WALK_LIMITS.ms);
  let found: string[];
  try {
    const options = { absolute: true, ignore, fs: guarded as never, signal: stop.signal };
    found = st?.isDirectory() ? await glob([`**/${SUFFIX_GLOB}`], { ...options, cwd: path }) : await glob([pattern], { ...options, cwd });
  } finally {
    clearTimeout(timer);
  }
  if (stoppedBy) throw refuse(stoppedBy);
  return found.filter(isScenarioFile).sort();
}

/** Finds scenario files: the union of what each pattern names (see matchScenarioFiles), sorted. */
export async function findScenarioFiles(patterns: string[], cwd: string): Promise<string[]> {
  const all = new Set<string>();
  for (const p of patterns) for (const f of await matchScenarioFiles(p, cwd)) all.add(f);
  return [...all].sort();
}

/** The scenarios of a JSON file: a non-empty list, or {"scenarios": [...]} with nothing else but "$schema". */
function jsonScenarios(file: string, doc: unknown): unknown[] {
  const shape = 'a scenario JSON file is a list of scenarios, or {"scenarios": [...]} (docs/scenario.schema.json)';
  if (Array.isArray(doc)) return doc;
  if (!doc || typeof doc !== 'object') throw new ScenarioLoadError(`${file}: ${shape}`);
  const extra = Object.keys(doc).filter((k) => k !== 'scenarios' && k !== '$schema');
  if (extra.length) throw new ScenarioLoadError(`${file}: unknown key "${extra[0]}": ${shape}`);
  const list = (doc as { scenarios?: unknown }).scenarios;
  if (!Array.isArray(list)) throw new ScenarioLoadError(`${file}: scenarios: ${shape}`);
  return list;
}

/** The largest scenario file the catalogue reads: far above any real one (the built-in files are tens of KiB). */
export const MAX_SCENARIO_FILE_BYTES = 4 * 1024 * 1024;

/** A scenario file must be a regular file (a fifo or a device would be read forever) of at most MAX_SCENARIO_FILE_BYTES. */
async function checkFileSize(file: string): Promise<void> {
  let st: Stats;
  try {
    st = await stat(file);
  } catch (err) {
    throw new ScenarioLoadError(`${file}: cannot read it: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!st.isFile()) {
    const kind = st.isFIFO()
      ? 'a fifo'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice() || st.isBlockDevice()
          ? 'a device'
          : st.isDirectory()
            ? 'a folder'
            : 'a special file';
    throw new ScenarioLoadError(`${file}: is ${kind}, not a regular file`);
  }
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 1)} MiB`;
  if (st.size > MAX_SCENARIO_FILE_BYTES)
    throw new ScenarioLoadError(`${file}: ${mib(st.size)} is over the ${mib(MAX_SCENARIO_FILE_BYTES)} limit for a scenario file`);
}

/**
 * Loads every scenario file and checks all of it before anything runs: its shape, each scenario
 * against the published schema (a vendor's; the built-in ones are checked by the tests), its peer
 * factory and the card that peer would serve. The first
 * problem is a ScenarioLoadError that names the file and the field (exit 2).
 */
export async function loadCatalogue(files: string[]): Promise<CatalogueEntry[]> {
  const at = { file: '' };
  try {
    return await readCatalogue(files, at);
  } catch (err) {
    if (err instanceof ScenarioLoadError) throw err;
    // A vendor's export is code: a getter or a Proxy can throw when read. That is the file's load error, in one line.
    throw new ScenarioLoadError(`${at.file || 'a scenario file'}: reading what it exports threw: ${firstLineOf(err)}`);
  }
}

/** The first line of whatever was thrown, even a value whose own `message` or `toString` throws. */
function firstLineOf(err: unknown): string {
  try {
    return String((err as Error)?.message ?? err)
      .split('\n')[0]!
      .slice(0, 300);
  } catch {
    return 'a value that cannot be printed';
  }
}

async function readCatalogue(files: string[], at: { file: string }): Promise<CatalogueEntry[]> {
  const out: CatalogueEntry[] = [];
  const byId = new Map<string, string>();
  // A vendor's modules load as ES modules through Vite (./vendor-import.ts); the package's own through Node.
  const own = (f: string) => !relative(join(CODE_ROOT, 'scenarios'), f).startsWith('..');
  // A vendor's file is read or imported only once it is known to be a file of a sane size.
  for (const file of files) if (!own(file)) await checkFileSize(file);
  const vendor = await importVendorModules(files.filter((f) => !f.endsWith('.json') && !own(f)));
  for (const file of files) {
    at.file = file;
    let list: unknown;
    if (file.endsWith('.json')) {
      let doc: unknown;
      try {
        doc = JSON.parse(await readFile(file, 'utf8')) as unknown;
      } catch (err) {
        throw new ScenarioLoadError(`${file}: not JSON: ${(err as Error).message}`);
      }
      list = jsonScenarios(file, doc);
    } else {
      let mod: { default?: unknown } | VendorImportError;
      try {
        mod = vendor.get(file) ?? ((await import(pathToFileURL(file).href)) as { default?: unknown });
      } catch (err) {
        mod = new VendorImportError(err);
      }
      if (mod instanceof VendorImportError) throw new ScenarioLoadError(`${file}: failed to load: ${mod.message}`);
      list = mod.default;
      if (!Array.isArray(list)) throw new ScenarioLoadError(`${file}: the default export must be the array returned by defineScenarios([...])`);
    }
    if ((list as unknown[]).length === 0) throw new ScenarioLoadError(`${file}: declares no scenarios (an empty list)`);
    (list as unknown[]).forEach((s: unknown, i: number) => {
      const label = typeof (s as { id?: unknown })?.id === 'string' ? `scenario "${(s as { id: string }).id.slice(0, 120)}"` : `scenario #${i}`;
      // The package's own scenarios are checked against the schema by its tests (test/runner.test.ts):
      // a run does not compile the schema for them (about 120 ms of every start).
      const problem = shapeProblem(s) ?? (own(file) ? undefined : scenarioProblem(s)) ?? servableProblem(s as Scenario);
      if (problem) throw new ScenarioLoadError(`${file}: ${label}: ${problem}`);
      const sc = s as Scenario;
      const prior = byId.get(sc.id);
      if (prior) throw new ScenarioLoadError(`duplicate scenario id "${sc.id}" in ${prior} and ${file}`);
      byId.set(sc.id, file);
      out.push({ scenario: sc, file });
    });
    // Older names of signal kinds still load; a vendor's file is told what to write instead, once.
    const old = new Set((list as Scenario[]).flatMap((sc) => (sc.peer?.signals ?? []).map((x) => x.kind)).filter((k) => k in DEPRECATED_KINDS));
    for (const k of old) {
      const { since, write } = DEPRECATED_KINDS[k as keyof typeof DEPRECATED_KINDS];
      deprecationWarning(`${file}: signal kind "${k}" is deprecated (${since}); write ${write}`);
    }
  }
  return out;
}

/** Older signal kinds, and what replaces each (docs/scenarios.md). */
const DEPRECATED_KINDS = {
  'spec-derivable': { since: 'ruleset 1', write: '"MUST" (the level that caps nothing: the rule\'s own sources decide)' },
  'harness-convention': { since: 'ruleset 1', write: '"convention"' },
  seed: { since: 'renamed in ruleset a2a-1.0.1@15', write: '"field"' },
} as const;

/** A deprecation warning: one line on stderr (the load goes on). */
const deprecationWarning = (line: string): void => void process.stderr.write(`a2a-conformance: warning: ${line}\n`);

/** A file's name in results: a built-in one relative to where the code runs (`scenarios/…`), any other relative to the package. */
export function relativeToRoot(file: string): string {
  const inCode = relative(CODE_ROOT, file);
  return inCode.startsWith('..') ? relative(PACKAGE_ROOT, file) : inCode;
}
