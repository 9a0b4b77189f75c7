/**
 * The evidence bundle (`report --bundle`, `verify-bundle`; docs/ci.md, "Evidence bundles"): one zip a
 * vendor can publish or hand to a registry, holding the runs' results.json as written (transcripts
 * included), the report, the scenario definitions the runs were graded by, the requirement set, the
 * harness's version and ruleset, the client's hello as the runs recorded it, and the environment; a
 * manifest names every file with its SHA-256. Verifying checks every digest, that the manifest is
 * exactly what the harness writes for those files, and grades each run's transcripts again.
 */
import { createHash } from 'node:crypto';
import { strToU8, unzipSync, zipSync, type Zippable } from 'fflate';
import type { RunResults } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { regradeRun, type Regraded } from './regrade.js';
import { resultsProblem } from '../load/results-schema.js';

export const BUNDLE_SCHEMA = 'a2a-conformance/bundle@1';
/** Where the manifest is in the zip. */
export const MANIFEST = 'manifest.json';
/** What verify-bundle reads at most: the zip, each file in it, all of them, and how many. */
export const BUNDLE_LIMITS = { zipBytes: 256 * 1024 * 1024, fileBytes: 256 * 1024 * 1024, totalBytes: 1024 * 1024 * 1024, files: 10_000 };

export type BundleRole = 'results' | 'report' | 'scenarios' | 'requirements' | 'environment';

/** Where each kind of file lives in a bundle: a file's role is its place, so the manifest says nothing the files do not. */
export const BUNDLE_PATHS = {
  results: 'results/',
  report: 'report/',
  scenarios: 'scenarios.json',
  requirements: 'requirements/',
  environment: 'environment.json',
} as const;

export function roleOf(path: string): BundleRole | undefined {
  if (path === BUNDLE_PATHS.scenarios) return 'scenarios';
  if (path === BUNDLE_PATHS.environment) return 'environment';
  if (path.startsWith(BUNDLE_PATHS.results) && path.endsWith('.json')) return 'results';
  if (path.startsWith(BUNDLE_PATHS.report)) return 'report';
  if (path.startsWith(BUNDLE_PATHS.requirements) && path.endsWith('.json')) return 'requirements';
  return undefined;
}

export interface BundleFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * The manifest: every value in it follows from the files (a verifier rebuilds it and compares bytes),
 * so a changed byte anywhere, the manifest included, fails verification.
 */
export interface BundleManifest {
  schema: typeof BUNDLE_SCHEMA;
  /** The harness that wrote the runs (the first run's). */
  harness: { name: string; version: string };
  /** Each run's results file, with what it says of itself (checked against the file when verified). */
  runs: Array<{
    path: string;
    client: { name: string; version: string; notImplemented?: RunResults['client']['notImplemented'] };
    ruleset: string;
    kind: 'scenarios' | 'properties';
    summary: RunResults['summary'];
    exitCode: number;
  }>;
  /** The frozen requirement set in the bundle (docs/requirements/<ruleset>.json), if any. */
  requirements?: string;
  files: Array<{ path: string; role: BundleRole; bytes: number; sha256: string }>;
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** What a run says of itself in the manifest. */
function runEntry(path: string, r: RunResults): BundleManifest['runs'][number] {
  return {
    path,
    client: { name: r.client.name, version: r.client.version, ...(r.client.notImplemented?.length ? { notImplemented: r.client.notImplemented } : {}) },
    ruleset: r.ruleset,
    kind: r.properties ? 'properties' : 'scenarios',
    summary: r.summary,
    exitCode: r.exitCode,
  };
}

/** The manifest's bytes, exactly as the harness writes them: verification holds a manifest to them. */
export const manifestBytes = (m: BundleManifest): Uint8Array => strToU8(`${JSON.stringify(m, null, 2)}\n`);

const text = (b: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(b);

/** The manifest of these files (in this order), as the harness writes it; throws where a file is not what its place says. */
export function manifestFor(files: readonly BundleFile[]): BundleManifest {
  const runs: BundleManifest['runs'] = [];
  let harness: BundleManifest['harness'] | undefined;
  let requirements: string | undefined;
  const listed: BundleManifest['files'] = [];
  for (const f of files) {
    const role = roleOf(f.path);
    if (!role || !safePath(f.path) || f.path === MANIFEST) throw new Error(`${JSON.stringify(f.path).slice(0, 200)} is not a file a bundle holds`);
    if (role === 'results') {
      const r = JSON.parse(text(f.bytes)) as RunResults;
      runs.push(runEntry(f.path, r));
      harness ??= { name: String(r.harness?.name), version: String(r.harness?.version) };
    }
    if (role === 'requirements') requirements = f.path.slice(BUNDLE_PATHS.requirements.length, -'.json'.length);
    listed.push({ path: f.path, role, bytes: f.bytes.length, sha256: sha256(f.bytes) });
  }
  if (!harness) throw new Error('a bundle holds at least one results file');
  return { schema: BUNDLE_SCHEMA, harness, runs, ...(requirements ? { requirements } : {}), files: listed };
}

/** Makes the bundle: the zip, its manifest, and the manifest's SHA-256 (the bundle's digest, to publish beside it). */
export function makeBundle(files: readonly BundleFile[], mtime: Date): { zip: Uint8Array; manifest: BundleManifest; digest: string } {
  const manifest = manifestFor(files);
  const bytes = manifestBytes(manifest);
  // One time for every entry: the same files make the same zip.
  const entries: Zippable = { [MANIFEST]: [bytes, { level: 6, mtime }] };
  for (const f of files) entries[f.path] = [f.bytes, { level: 6, mtime }];
  return { zip: zipSync(entries, { mtime }), manifest, digest: sha256(bytes) };
}

export interface Verified {
  /** The manifest's SHA-256, the bundle's digest. */
  digest?: string;
  manifest?: BundleManifest;
  /** What does not hold: a digest, a file missing or extra, a manifest not as written, a run that says otherwise. */
  problems: string[];
  /** Each run graded again (or why it was not). */
  regraded: Array<{ path: string; client: string; result?: Regraded; skipped?: string }>;
}

function safePath(p: string): boolean {
  return p !== '' && !p.startsWith('/') && !p.split('/').some((s) => s === '..' || s === '') && !/[\\\u0000-\u001f]/.test(p);
}

/**
 * Verifies a bundle: every file's digest, no file missing or added, the manifest exactly as the harness
 * writes it for these files, each run as the manifest says, and each scenario run graded again from
 * its transcript to the verdicts it records (where `ruleset` is the runs' own; otherwise said, not failed).
 */
export function verifyBundle(zip: Uint8Array, ruleset: string): Verified {
  const out: Verified = { problems: [], regraded: [] };
  if (zip.length > BUNDLE_LIMITS.zipBytes) return { ...out, problems: [`the bundle is over ${BUNDLE_LIMITS.zipBytes / 1024 / 1024} MiB`] };
  let total = 0;
  let count = 0;
  const names = new Set<string>();
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (f) => {
        count++;
        // What a stored entry copies is its compressed size; what an inflated one makes, its original size: the larger counts.
        const size = Math.max(f.size, f.originalSize);
        total += size;
        if (count > BUNDLE_LIMITS.files || size > BUNDLE_LIMITS.fileBytes || total > BUNDLE_LIMITS.totalBytes)
          throw new Error(`the bundle holds more than verify-bundle reads (${count} files, ${total} bytes unpacked at least)`);
        // A name twice keeps only its last copy; a name that is a property of every object is not a file's.
        if (names.has(f.name) || (f.name !== MANIFEST && !safePath(f.name)) || f.name in Object.prototype)
          throw new Error(`an entry it may not hold: ${JSON.stringify(f.name).slice(0, 200)}`);
        names.add(f.name);
        return true;
      },
    });
  } catch (err) {
    return { ...out, problems: [`not a bundle this harness can read: ${(err as Error).message}`] };
  }
  const has = (path: string) => Object.hasOwn(entries, path);
  const raw = has(MANIFEST) ? entries[MANIFEST] : undefined;
  if (!raw) return { ...out, problems: [`no ${MANIFEST} in the bundle`] };
  out.digest = sha256(raw);
  let m: BundleManifest;
  try {
    m = JSON.parse(text(raw)) as BundleManifest;
  } catch (err) {
    return { ...out, problems: [`${MANIFEST} is not JSON: ${(err as Error).message}`] };
  }
  if (!m || typeof m !== 'object' || m.schema !== BUNDLE_SCHEMA || !Array.isArray(m.files) || !Array.isArray(m.runs))
    return { ...out, problems: [`${MANIFEST} is not an ${BUNDLE_SCHEMA} manifest`] };
  out.manifest = m;
  const listed = new Set<string>();
  for (const f of m.files) {
    if (!f || typeof f.path !== 'string' || !safePath(f.path) || f.path === MANIFEST || listed.has(f.path) || f.path in Object.prototype) {
      out.problems.push(`${MANIFEST} lists a file it may not: ${JSON.stringify(f?.path).slice(0, 200)}`);
      continue;
    }
    listed.add(f.path);
    const bytes = has(f.path) ? entries[f.path] : undefined;
    if (!bytes) out.problems.push(`${f.path}: listed in the manifest, not in the bundle`);
    else if (bytes.length !== f.bytes || sha256(bytes) !== f.sha256) out.problems.push(`${f.path}: its SHA-256 is not the manifest's (the file was changed)`);
  }
  for (const path of Object.keys(entries)) if (path !== MANIFEST && !listed.has(path)) out.problems.push(`${path}: in the bundle, not in the manifest`);
  if (out.problems.length) return out;
  // Every value of a manifest follows from its files: any other byte (a name, a summary, spacing) is a change.
  let expected: Uint8Array;
  try {
    expected = manifestBytes(manifestFor(m.files.map((f) => ({ path: f.path, bytes: entries[f.path]! }))));
  } catch (err) {
    return { ...out, problems: [`a file is not what its place in the bundle says: ${(err as Error).message}`] };
  }
  if (Buffer.compare(Buffer.from(expected), Buffer.from(raw)) !== 0)
    return { ...out, problems: [`${MANIFEST} is not as the harness writes it for these files (it was changed)`] };
  const scenarios = new Map<string, Scenario>();
  const defs = m.files.find((f) => f.role === 'scenarios');
  try {
    const list = defs ? (JSON.parse(text(entries[defs.path]!)) as unknown) : [];
    if (!Array.isArray(list) || list.some((x) => !x || typeof x !== 'object' || typeof (x as Scenario).id !== 'string'))
      throw new Error('not a list of scenarios');
    for (const x of list as Scenario[]) scenarios.set(x.id, x);
  } catch (err) {
    return { ...out, problems: [`${defs?.path ?? BUNDLE_PATHS.scenarios}: ${(err as Error).message}`] };
  }
  const set = m.files.find((f) => f.role === 'requirements');
  for (const run of m.runs) {
    let r: RunResults;
    try {
      r = JSON.parse(text(entries[run.path]!)) as RunResults;
      const bad = resultsProblem(r);
      if (bad) throw new Error(`not a results file (docs/results.schema.json): ${bad}`);
    } catch (err) {
      out.problems.push(`${run.path}: ${(err as Error).message}`);
      continue;
    }
    const label = `${r.client.name} ${r.client.version}`;
    if (r.properties) {
      // A property run's results are its counterexamples, each replayable; anything else in it is not what the harness writes.
      const stray = r.results.filter((x) => !x.property).map((x) => x.id);
      if (stray.length) out.problems.push(`${run.path}: a property run holding results that are no property case (${stray.slice(0, 3).join(', ')})`);
      out.regraded.push({ path: run.path, client: label, skipped: 'a property run: its counterexamples replay with `a2a-conformance replay`' });
      continue;
    }
    if (r.ruleset !== ruleset) {
      out.problems.push(
        `${run.path}: graded by ruleset ${r.ruleset}; this harness grades by ${ruleset}: verify it with the a2a-conformance that wrote it (${m.harness.version})`,
      );
      continue;
    }
    const result = regradeRun(r, scenarios);
    out.regraded.push({ path: run.path, client: label, result });
    for (const d of result.differences.slice(0, 20))
      out.problems.push(`${run.path}: ${d.id}: ${d.rule} is ${d.recorded} in the results, ${d.regraded} graded again from its transcript`);
    if (result.differences.length > 20) out.problems.push(`${run.path}: ${result.differences.length - 20} more differences`);
    // Every scenario the requirement set scores is in the run, graded or said not run: none dropped from it.
    if (set && m.requirements === r.ruleset) {
      try {
        const wanted = (JSON.parse(text(entries[set.path]!)) as { scenarios: string[] }).scenarios;
        const seen = new Set([...r.results.map((x) => x.id), ...r.notRun.map((n) => n.id)]);
        const gone = wanted.filter((id) => !seen.has(id));
        // A run of the vendor's scenarios alone (--no-builtin) holds none of them: nothing to miss.
        if (gone.length && gone.length < wanted.length)
          out.problems.push(
            `${run.path}: ${gone.length} scenario(s) of the requirement set are neither graded nor said not run (${gone.slice(0, 3).join(', ')})`,
          );
      } catch (err) {
        out.problems.push(`${set.path}: ${(err as Error).message}`);
      }
    }
  }
  return out;
}
