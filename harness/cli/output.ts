/**
 * Every path the CLI writes, prepared and checked before the run starts, so a bad path costs a
 * one-line error (exit 2) and never the run.
 *
 * `--out` is never destructive. The harness knows its own report folders by a marker file it writes
 * there (`.a2a-conformance-report.json`: the harness's name and version, and the name of every entry
 * it wrote), never by file names: a folder holding anything the marker does not vouch for (a user's
 * own index.html or results.json, say) is refused and left untouched; an empty folder or a missing
 * one is fine. A report folder written before the marker existed is refused too, with a line that
 * says to delete it. While a command writes the folder it holds a lock file there
 * (`.a2a-conformance.lock`, created exclusively, holding its pid and start time): a second command
 * on the same folder is refused; a lock whose owner is dead is taken over.
 *
 * A run claims the folder at its start: the previous report is removed and an `INCOMPLETE` file and a
 * placeholder `index.html` say that a run is writing it; a run that dies leaves exactly that, never
 * the previous run's green report. At the end each file is written to a staging folder inside it
 * (named in the marker first) and renamed into place (results.json last), then INCOMPLETE is removed.
 * `report` renders everything first and only then touches the folder: its previous report is
 * replaced file by file, never deleted before the new one is on disk.
 */
import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { RunResults } from '../core/results.js';
import { RESULTS_SCHEMA } from '../core/results.js';
import { renderReports, type RenderedReport, type WrittenReport } from '../../reports/index.js';
import { OutputError } from '../faults.js';
import { HARNESS, lockHolder, OUT_LOCK, ownVersion, releaseLock, smallFile, takeLock, why } from './output-lock.js';

/** The files of a report. */
const REPORT_FILES = ['index.html', 'results.json', 'junit.xml', 'summary.md'];
/** The marker by which the harness knows a folder it wrote, and what it wrote there. */
const REPORT_MARKER = '.a2a-conformance-report.json';
const INCOMPLETE = 'INCOMPLETE';
const STAGING = '.writing-';

/**
 * Makes a folder and its missing parents one level at a time (fs.mkdir's recursive mode spins
 * forever on some special file systems, /proc for one). Throws OutputError naming the option.
 */
export function makeFolder(path: string, option: string): void {
  const missing: string[] = [];
  let p = path;
  for (;;) {
    let st: ReturnType<typeof statSync> | undefined;
    try {
      st = statSync(p);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputError(`${option} ${path}: cannot read ${p}: ${why(err)}`);
      missing.unshift(p);
      const up = dirname(p);
      if (up === p) throw new OutputError(`${option} ${path}: no such folder`);
      p = up;
      continue;
    }
    if (!st.isDirectory()) throw new OutputError(`${option} ${path}: ${p} is not a folder`);
    break;
  }
  for (const m of missing) {
    try {
      mkdirSync(m);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
        // Made meanwhile (fine), a file, or a link to nowhere (statSync was ENOENT for it above).
        let kind = 'a link to nothing';
        try {
          if (statSync(m).isDirectory()) continue;
          kind = 'not a folder';
        } catch {
          // a dangling link
        }
        throw new OutputError(`${option} ${path}: ${m} is ${kind}`);
      }
      throw new OutputError(`${option} ${path}: cannot create ${m}: ${why(err)}`);
    }
  }
}

/** The entries a folder's marker vouches for, or undefined where there is no marker of ours. */
function readMarker(dir: string): Set<string> | undefined {
  // A matrix's marker names every file in its folders: larger than a report's, never huge.
  const text = smallFile(join(dir, REPORT_MARKER), 1024 * 1024);
  if (text === undefined) return undefined;
  try {
    const m = JSON.parse(text) as { harness?: unknown; files?: unknown };
    if (m.harness !== HARNESS || !Array.isArray(m.files) || !m.files.every((f) => typeof f === 'string')) return undefined;
    return new Set(m.files as string[]);
  } catch {
    return undefined;
  }
}

/**
 * Says what the harness is about to have in the folder: written before an entry is made and after
 * one is removed, so whatever moment a run dies at, everything in the folder is vouched for.
 */
function writeMarker(dir: string, files: Iterable<string>): void {
  const marker = {
    harness: HARNESS,
    version: ownVersion(),
    about: `${HARNESS} wrote this folder: it replaces the entries listed in "files" when a command writes a report here again, and refuses a folder holding anything else.`,
    files: [...new Set(files)].sort(),
  };
  writeFileSync(join(dir, REPORT_MARKER), JSON.stringify(marker, null, 2) + '\n');
}

/** Whether an entry the marker names is still what the harness made there: its files are plain files, its staging folders folders. */
function sameKind(dir: string, name: string): boolean {
  try {
    const st = lstatSync(join(dir, name));
    return name.startsWith(STAGING) ? st.isDirectory() : st.isFile();
  } catch {
    return true; // gone meanwhile: nothing to refuse
  }
}

/** An entry of the folder as the file system names it (a folder entry is named in the marker with its slash). */
const entryPath = (dir: string, n: string) => join(dir, n.endsWith('/') ? n.slice(0, -1) : n);

/**
 * A folder the marker names with its slash (a matrix's `clients/`, `badges/`): a real folder, never a
 * link, holding only plain files the marker names (`clients/x/index.html`) and the folders on their
 * way. A user's own file in it, or a link, and the folder is not the harness's to replace.
 */
function vouchedFolder(dir: string, name: string, marker: Set<string>): boolean {
  let seen = 0;
  const walk = (rel: string): boolean => {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(join(dir, rel));
    } catch {
      return false;
    }
    if (++seen > 100_000) return false;
    if (st.isFile()) return marker.has(rel);
    if (!st.isDirectory()) return false;
    if (rel !== name && ![...marker].some((m) => m.startsWith(`${rel}/`))) return false;
    return readdirSync(join(dir, rel)).every((e) => walk(`${rel}/${e}`));
  };
  return walk(name);
}

/** Whether a folder without a marker looks like a report of an earlier version: only report files, and a results.json of ours. */
function earlierReport(dir: string, entries: string[]): boolean {
  if (!entries.includes('results.json') || !entries.every((n) => REPORT_FILES.includes(n) || n === INCOMPLETE || n.startsWith(STAGING))) return false;
  // Its opening bytes name the schema (JSON.stringify writes it first): never the whole file, which may be huge.
  let fd: number | undefined;
  try {
    if (!lstatSync(join(dir, 'results.json')).isFile()) return false;
    fd = openSync(join(dir, 'results.json'), 'r');
    const head = Buffer.alloc(4096);
    const n = readSync(fd, head, 0, head.length, 0);
    return new RegExp(`"schema"\\s*:\\s*"${RESULTS_SCHEMA.split('@')[0]!.replace('/', '\\/')}@`).test(head.subarray(0, n).toString('utf8'));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Inspected {
  dir: string;
  exists: boolean;
  /** The entries the harness wrote there (the marker's), to replace or remove. */
  ours: string[];
}

/** Checks `--out` without touching it: a folder, empty or holding only what the harness's marker vouches for, or missing. */
function inspect(option: string, given: string): Inspected {
  if (!given.trim()) throw new OutputError(`${option} needs a folder name (it was empty)`);
  const dir = resolve(given);
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink() ? !statSync(dir).isDirectory() : !st.isDirectory())
      throw new OutputError(`${option} ${given} is a file, not a folder: name a folder for the report`);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputError(`${option} ${given}: ${why(err)}`);
    return { dir, exists: false, ours: [] };
  }
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (err) {
    throw new OutputError(`${option} ${given}: cannot read the folder: ${why(err)}`);
  }
  const marker = readMarker(dir);
  const ours: string[] = [];
  const foreign: string[] = [];
  for (const n of entries) {
    if (n === OUT_LOCK) {
      if (lockHolder(join(dir, OUT_LOCK)).kind === 'foreign') foreign.push(n);
    } else if (n === REPORT_MARKER) {
      if (!marker) foreign.push(n);
    } else if (marker?.has(n) && sameKind(dir, n)) ours.push(n);
    else if (marker?.has(`${n}/`) && vouchedFolder(dir, n, marker)) ours.push(`${n}/`, ...[...marker].filter((m) => m.startsWith(`${n}/`) && m !== `${n}/`));
    else foreign.push(n);
  }
  if (foreign.length) {
    if (!marker && earlierReport(dir, entries))
      throw new OutputError(
        `${option} ${given} holds a report of an earlier a2a-conformance, which did not mark its folders (${REPORT_MARKER}): delete that folder, or name a new one`,
      );
    throw new OutputError(
      `${option} ${given} holds files that are not a report a2a-conformance wrote (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}): name a new folder, or one a previous run wrote`,
    );
  }
  return { dir, exists: true, ours };
}

/** Checks `--out` as `claimOutput` and `writeOutput` will, without touching it: a bad folder fails before any work. */
export function checkOutput(option: string, given: string): string {
  return inspect(option, given).dir;
}

// ---------------------------------------------------------------------------------------------
// Claiming and writing.

export interface ClaimedOutput {
  dir: string;
  /** Writes the reports and puts them in place; removes the marker. Releases the lock. */
  commit(r: RunResults): Promise<WrittenReport>;
  /** Says in the placeholder why the run did not finish, and releases the lock (synchronous: it runs in a signal handler). */
  abandon(reason: string): void;
}

const placeholder = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>a2a-conformance: incomplete</title><h1>No report here</h1><p>${text.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>\n`;

const written = (dir: string): WrittenReport => ({
  dir,
  html: join(dir, 'index.html'),
  results: join(dir, 'results.json'),
  junit: join(dir, 'junit.xml'),
  markdown: join(dir, 'summary.md'),
});

/** Checks the folder, makes it if missing, takes its lock and checks it again under the lock. */
function lockOutput(option: string, given: string): Inspected & { lock: string } {
  const first = inspect(option, given);
  if (!first.exists) makeFolder(first.dir, option);
  const lock = takeLock(option, given, first.dir);
  try {
    // What was checked before the lock may have changed before it was taken.
    return { ...inspect(option, given), lock };
  } catch (err) {
    releaseLock(lock);
    throw err;
  }
}

/**
 * Puts rendered files in place: named in the marker, written to a staging folder, renamed over the
 * old ones (results.json last); then the entries in `remove` go, and the marker names what is left.
 */
async function install(dir: string, listed: Set<string>, rendered: RenderedReport, remove: string[]): Promise<WrittenReport> {
  const staging = `${STAGING}${randomBytes(4).toString('hex')}`;
  // The folder's own entries: a report's four files, or a matrix's files and folders (`clients/`, named with their slash).
  const names = [...new Set(rendered.files.map((f) => (f.name.includes('/') ? `${f.name.split('/')[0]!}/` : f.name)))];
  // Every file inside those folders is named too: a folder holding anything else is not the harness's to replace.
  const nested = rendered.files.map((f) => f.name).filter((n) => n.includes('/'));
  writeMarker(dir, [...listed, staging, ...names, ...nested]);
  try {
    await mkdir(join(dir, staging));
    for (const sub of new Set(rendered.files.map((f) => dirname(f.name)).filter((d) => d !== '.'))) await mkdir(join(dir, staging, sub), { recursive: true });
    await Promise.all(rendered.files.map((f) => writeFile(join(dir, staging, f.name), f.text, { flag: 'wx' })));
    for (const n of names) {
      // A folder cannot be renamed over another: the harness's previous one (the marker vouched for it, file by file) goes first.
      if (n.endsWith('/') && listed.has(n)) await rm(entryPath(dir, n), { recursive: true, force: true });
      await rename(entryPath(join(dir, staging), n), entryPath(dir, n));
    }
    // Every entry here was vouched for by the marker: a previous matrix's folders go whole (their files are named in it).
    for (const n of remove) if (!names.includes(n) && !n.slice(0, -1).includes('/')) await rm(entryPath(dir, n), { recursive: true, force: true });
  } finally {
    await rm(join(dir, staging), { recursive: true, force: true });
  }
  writeMarker(dir, [...names, ...nested]);
  return written(dir);
}

/** Claims `--out` for a run: checks it, locks it, clears the harness's previous report and marks the folder incomplete. */
export async function claimOutput(option: string, given: string): Promise<ClaimedOutput> {
  const { dir, ours, lock } = lockOutput(option, given);
  const started = new Date().toISOString();
  const note = (reason: string) => {
    writeFileSync(join(dir, INCOMPLETE), `${reason}\n`);
    writeFileSync(join(dir, 'index.html'), placeholder(reason));
  };
  try {
    accessSync(dir, constants.W_OK);
    writeMarker(dir, [...ours, INCOMPLETE, 'index.html']);
    // Only what the marker vouched for; a staging folder (a run that died while writing) whole.
    for (const n of ours) if (!n.slice(0, -1).includes('/')) rmSync(entryPath(dir, n), { recursive: true, force: true });
    note(
      `a2a-conformance (pid ${process.pid}) started writing this report at ${started}. If that run is no longer running, it did not finish (it was interrupted or crashed): this folder holds no results.`,
    );
    writeMarker(dir, [INCOMPLETE, 'index.html']);
  } catch (err) {
    releaseLock(lock);
    throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
  }
  // What a commit has under way, for abandon() in a signal handler: files being put in place, or done.
  let writing = false;
  let committed = false;
  return {
    dir,
    async commit(r) {
      writing = true;
      let w: WrittenReport;
      try {
        w = await install(dir, new Set([INCOMPLETE, 'index.html']), renderReports(r), [INCOMPLETE]);
      } catch (err) {
        // The lock stays until abandon() has cleared what was half written (the caller abandons on failure).
        throw new OutputError(`${option} ${given}: writing the report failed: ${why(err)}`);
      }
      committed = true;
      releaseLock(lock);
      return w;
    },
    abandon(reason) {
      // A finished report stays as it is; a half-written one loses its staging folder and says why.
      if (committed) return;
      try {
        // Files this commit already put in place go too (the claim cleared the folder): no junit.xml beside the marker.
        if (writing)
          for (const f of [...readdirSync(dir).filter((n) => n.startsWith(STAGING)), ...REPORT_FILES]) rmSync(join(dir, f), { recursive: true, force: true });
        note(`a2a-conformance (pid ${process.pid}, started ${started}) did not finish: ${reason}. This folder holds no results.`);
      } catch {
        // the folder went away meanwhile: nothing there claims to be a report
      }
      releaseLock(lock);
    },
  };
}

/**
 * Writes an already rendered report to `--out` (`report`): checks and locks the folder, then replaces
 * the harness's previous report there file by file. The previous report is never removed before the
 * new one is on disk; while the files are renamed, INCOMPLETE says that they are being replaced.
 */
export async function writeOutput(option: string, given: string, rendered: RenderedReport): Promise<WrittenReport> {
  const { dir, ours, lock } = lockOutput(option, given);
  try {
    const listed = new Set([...ours, INCOMPLETE]);
    try {
      writeMarker(dir, listed);
      writeFileSync(
        join(dir, INCOMPLETE),
        `a2a-conformance (pid ${process.pid}) is replacing this report since ${new Date().toISOString()}. If it is no longer running, the files here may be a mix of the old report and the new one.\n`,
      );
    } catch (err) {
      throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
    }
    return await install(dir, listed, rendered, [...ours, INCOMPLETE]);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    throw new OutputError(`${option} ${given}: writing the report failed: ${why(err)}`);
  } finally {
    releaseLock(lock);
  }
}

/** Checks that a file can be written (`--update-expectations`) before the run, by writing beside it. */
export function checkWritableFile(option: string, given: string, out?: string): string {
  if (!given.trim()) throw new OutputError(`${option} needs a file name (it was empty)`);
  const file = resolve(given);
  // The report replaces its folder whole, after every other file is written: one of them inside it would be lost, or
  // would overwrite results.json after the report was written.
  if (out !== undefined && within(file, out))
    throw new OutputError(`${option} ${given} is inside --out ${out}, which the report replaces whole: name a file outside that folder`);
  try {
    const st = statSync(file);
    if (!st.isFile()) throw new OutputError(`${option} ${given} is not a file`);
  } catch (err) {
    if (err instanceof OutputError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputError(`${option} ${given}: ${why(err)}`);
  }
  // The file is written whole through a temp file beside it: try exactly that.
  const probe = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
  } catch (err) {
    throw new OutputError(`${option} ${given}: cannot write in ${dirname(file)}: ${why(err)}`);
  }
  return file;
}

/** Whether `file` is `dir` or lies inside it, links of the parts that exist followed. */
export function within(file: string, dir: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return p;
    }
  };
  const rel = relative(real(resolve(dir)), join(real(dirname(file)), basename(file)));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Writes a file whole or not at all: a temp file beside it, renamed over it. */
export async function writeFileAtomic(file: string, text: string | Uint8Array): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
}
