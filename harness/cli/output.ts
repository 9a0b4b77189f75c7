/**
 * Every path the CLI writes, prepared and checked before the run starts, so a bad path costs a
 * one-line error (exit 2) and never the run.
 *
 * The report folder (`--out`) is claimed at the start: stale report files are removed and an
 * `INCOMPLETE` marker and a placeholder `index.html` say that a run is writing it; a run that dies
 * leaves exactly that, never the previous run's green report. At the end each file is written to a
 * staging folder inside it and renamed into place (results.json last), then the marker is removed.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, lstatSync, mkdirSync, openSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { rename, rm, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunResults } from '../core/results.js';
import { writeReports, type WrittenReport } from '../../reports/index.js';

export class OutputError extends Error {
  override readonly name = 'OutputError';
}

/** What a report folder may hold: the report's own files, the marker, a staging folder. */
export const REPORT_FILES = ['index.html', 'results.json', 'junit.xml', 'summary.md'];
const MARKER = 'INCOMPLETE';
const STAGING = '.writing-';

const why = (err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : e.message;
};

/**
 * Makes a folder and its missing parents one level at a time (fs.mkdir's recursive mode spins
 * forever on some special file systems, /proc for one). Throws OutputError naming the option.
 */
export function makeFolder(path: string, option: string): void {
  const missing: string[] = [];
  let p = path;
  for (;;) {
    let st;
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

export interface ClaimedOutput {
  dir: string;
  /** Writes the reports and puts them in place; removes the marker. */
  commit(r: RunResults): Promise<WrittenReport>;
  /** Says in the placeholder why the run did not finish (synchronous: it runs in a signal handler). */
  abandon(reason: string): void;
}

const placeholder = (text: string) =>
  `<!doctype html><meta charset="utf-8"><title>a2a-conformance: incomplete</title><h1>No report here</h1><p>${text.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>\n`;

/** Claims `--out`: checks it, creates it, clears a previous report and marks the folder incomplete. */
export async function claimOutput(option: string, given: string): Promise<ClaimedOutput> {
  if (!given.trim()) throw new OutputError(`${option} needs a folder name (it was empty)`);
  const dir = resolve(given);
  let exists = false;
  try {
    const st = lstatSync(dir);
    if (st.isSymbolicLink() ? !statSync(dir).isDirectory() : !st.isDirectory()) throw new OutputError(`${option} ${given} is a file, not a folder: name a folder for the report`);
    exists = true;
  } catch (err) {
    if (err instanceof OutputError) throw err;
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputError(`${option} ${given}: ${why(err)}`);
  }
  if (exists) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch (err) {
      throw new OutputError(`${option} ${given}: cannot read the folder: ${why(err)}`);
    }
    const foreign = entries.filter((n) => !REPORT_FILES.includes(n) && n !== MARKER && !n.startsWith(STAGING));
    if (foreign.length)
      throw new OutputError(
        `${option} ${given} holds files that are not a report (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', …' : ''}): name a new folder, or one a previous run wrote`,
      );
    try {
      accessSync(dir, constants.W_OK);
      for (const n of entries) rmSync(join(dir, n), { recursive: true, force: true });
    } catch (err) {
      throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
    }
  } else makeFolder(dir, option);
  const started = new Date().toISOString();
  const note = (reason: string) => {
    writeFileSync(join(dir, MARKER), `${reason}\n`);
    writeFileSync(join(dir, 'index.html'), placeholder(reason));
  };
  try {
    note(`a2a-conformance (pid ${process.pid}) started writing this report at ${started}. If that run is no longer running, it did not finish (it was interrupted or crashed): this folder holds no results.`);
  } catch (err) {
    throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
  }
  // What a commit has under way, for abandon() in a signal handler: the staging folder to remove, or done.
  let staging: string | undefined;
  let committed = false;
  return {
    dir,
    async commit(r) {
      const here = (staging = join(dir, `${STAGING}${randomBytes(4).toString('hex')}`));
      try {
        const written = await writeReports(r, here, dir);
        // results.json last: whoever reads it finds the other files in place.
        for (const f of [written.junit, written.markdown, written.html, written.results]) await rename(f, join(dir, basename(f)));
        await unlink(join(dir, MARKER));
        committed = true;
        return { dir, html: join(dir, 'index.html'), results: join(dir, 'results.json'), junit: join(dir, 'junit.xml'), markdown: join(dir, 'summary.md') };
      } finally {
        await rm(here, { recursive: true, force: true });
      }
    },
    abandon(reason) {
      // A finished report stays as it is; a half-written one loses its staging folder and says why.
      if (committed) return;
      try {
        // Files this commit already put in place go too (the claim cleared the folder): no junit.xml beside the marker.
        if (staging) for (const f of [staging, ...REPORT_FILES.map((n) => join(dir, n))]) rmSync(f, { recursive: true, force: true });
        note(`a2a-conformance (pid ${process.pid}, started ${started}) did not finish: ${reason}. This folder holds no results.`);
      } catch {
        // the folder went away meanwhile: nothing there claims to be a report
      }
    },
  };
}

/** Checks that a file can be written (`--update-expectations`) before the run, by writing beside it. */
export function checkWritableFile(option: string, given: string): string {
  if (!given.trim()) throw new OutputError(`${option} needs a file name (it was empty)`);
  const file = resolve(given);
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

/** Writes a file whole or not at all: a temp file beside it, renamed over it. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, { flag: 'wx' });
    await rename(tmp, file);
  } finally {
    await rm(tmp, { force: true });
  }
}
