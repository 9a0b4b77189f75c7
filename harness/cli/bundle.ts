/**
 * `report --bundle <file>` and `verify-bundle <file>` (docs/ci.md, "Evidence bundles"): the files a
 * bundle holds gathered from the report just written and the results it was made from; a bundle read
 * back, bounded, and checked (harness/runner/judge/bundle.ts).
 */
import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { arch, availableParallelism, platform, release } from 'node:os';
import { basename, join, relative } from 'node:path';
import { strToU8 } from 'fflate';
import type { RunResults } from '../core/results.js';
import { tellOver } from '../core/card-binding.js';
import { BINDINGS } from '../core/protocol/types.js';
import { printableInline } from '../core/text.js';
import { BUNDLE_LIMITS, BUNDLE_PATHS, makeBundle, verifyBundle, type BundleFile } from '../runner/judge/bundle.js';
import { RULESET_VERSION } from '../core/oracle/rules.js';
import { ResultsInputError } from '../faults.js';
import { load, scenarioFiles } from './context.js';
import { writeFileAtomic } from './output.js';

/** The most files of a report folder a bundle takes (a matrix of many clients writes a few per client). */
const MAX_REPORT_FILES = 5000;

function reportFiles(dir: string): BundleFile[] {
  const out: BundleFile[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        if (out.length >= MAX_REPORT_FILES)
          throw new ResultsInputError(`the report folder ${dir} holds more than ${MAX_REPORT_FILES} files: not one report writes`);
        out.push({ path: `${BUNDLE_PATHS.report}${relative(dir, p).split('\\').join('/')}`, bytes: readFileSync(p) });
      }
    }
  };
  walk(dir);
  return out;
}

/** A file name the bundle can hold: the input's own name, kept to letters, digits and . _ - */
const entryName = (i: number, file: string) =>
  `${BUNDLE_PATHS.results}${i + 1}-${
    basename(file)
      .replace(/\.json$/i, '')
      .replace(/[^\w.-]/g, '_')
      .slice(0, 80) || 'results'
  }.json`;

/**
 * Writes the bundle of a report just written: the results files as given, the report folder, the
 * definitions of the scenarios the runs graded (built-in, and those of `scenarioGlobs`), the
 * requirement set, and the environment. Returns the bundle's digest and what it holds.
 */
export async function writeBundle(o: {
  file: string;
  inputs: string[];
  runs: RunResults[];
  out: string;
  requirements?: string;
  scenarioGlobs?: string[];
}): Promise<{ digest: string; files: number; scenarios: number; missing: string[] }> {
  const files: BundleFile[] = o.inputs.map((f, i) => ({ path: entryName(i, f), bytes: readFileSync(f) }));
  // The definitions the runs were graded by, told over every binding as a run may have told them.
  const { loadCatalogue } = await load.catalogue();
  const catalogue = tellOver(await loadCatalogue(await scenarioFiles(o.scenarioGlobs, true)), BINDINGS);
  const byId = new Map(catalogue.map((e) => [e.scenario.id, e.scenario]));
  const ids = [...new Set(o.runs.flatMap((r) => (r.properties ? [] : r.results.map((x) => x.id))))];
  const missing = ids.filter((id) => !byId.has(id));
  const scenarios = ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  files.push({ path: BUNDLE_PATHS.scenarios, bytes: strToU8(`${JSON.stringify(scenarios, null, 1)}\n`) });
  const { requirementsFile } = await load.requirements();
  const set = o.requirements ?? o.runs[0]!.ruleset;
  if (existsSync(requirementsFile(set))) files.push({ path: `${BUNDLE_PATHS.requirements}${set}.json`, bytes: readFileSync(requirementsFile(set)) });
  const environment = {
    bundledAt: new Date().toISOString(),
    bundledBy: { node: process.version, platform: platform(), release: release(), arch: arch(), cpus: availableParallelism() },
    runs: o.runs.map((r, i) => ({ results: entryName(i, o.inputs[i]!), startedAt: r.startedAt, ...(r.environment ? { environment: r.environment } : {}) })),
  };
  files.push({ path: BUNDLE_PATHS.environment, bytes: strToU8(`${JSON.stringify(environment, null, 2)}\n`) });
  files.push(...reportFiles(o.out));
  const { zip, digest } = makeBundle(files, new Date(environment.bundledAt));
  await writeFileAtomic(o.file, zip);
  return { digest, files: files.length + 1, scenarios: scenarios.length, missing };
}

/** Reads a bundle file whole, if it is a regular file within the limit. */
function readBundle(file: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ResultsInputError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ResultsInputError(`${file} is not a regular file`);
    if (st.size > BUNDLE_LIMITS.zipBytes)
      throw new ResultsInputError(`${file} is over ${BUNDLE_LIMITS.zipBytes / 1024 / 1024} MiB: not a bundle verify-bundle reads`);
    const buf = Buffer.alloc(st.size);
    let n = 0;
    while (n < st.size) {
      const got = readSync(fd, buf, n, st.size - n, null);
      if (got === 0) break;
      n += got;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** `verify-bundle`: the lines to print, and the exit code (0 verified, 1 a problem). */
export function verifyBundleFile(file: string): { lines: string[]; code: number } {
  const v = verifyBundle(readBundle(file), RULESET_VERSION);
  const lines = [`bundle ${printableInline(file)}${v.digest ? ` · manifest sha256 ${v.digest}` : ''}`];
  const m = v.manifest;
  if (m && !v.problems.some((p) => p.includes('SHA-256') || p.includes('manifest') || p.includes('bundle')))
    lines.push(`  ${m.files.length + 1} files, each as the manifest's SHA-256 says; written by ${printableInline(`${m.harness.name} ${m.harness.version}`)}`);
  for (const r of v.regraded) {
    const who = printableInline(`${r.client} (${r.path})`);
    if (r.skipped) lines.push(`  ${who}: not graded again: ${r.skipped}`);
    else if (r.result) {
      const g = r.result;
      lines.push(
        `  ${who}: ${g.regraded} scenario(s) graded again from their transcripts, ${g.same} with the verdicts recorded${g.skipped.length ? `; ${g.skipped.length} not graded again (${[...new Set(g.skipped.map((s) => s.why))].join('; ')})` : ''}`,
      );
    }
  }
  for (const p of v.problems) lines.push(`  ✗ ${printableInline(p)}`);
  lines.push(v.problems.length ? `not verified: ${v.problems.length} problem(s)` : 'verified');
  return { lines, code: v.problems.length ? 1 : 0 };
}
