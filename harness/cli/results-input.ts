/**
 * The results.json files `a2a-conformance report` reads, taken as hostile input: anyone may have
 * edited one. A file is read only when it is a regular file of bounded size (a 200 MB results.json
 * would be parsed, re-rendered and written again several times over: the process ran out of memory),
 * its values nested deeper than the renderers' bound are elided and said, a number JSON cannot write
 * back (1e400, which reads as Infinity) is refused, and then it is checked against its schema. Each
 * problem is one line naming the file.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import type { RunResults } from '../core/results.js';
import { resultsProblem } from '../runner/load/results-schema.js';
import { boundDepth, MAX_RESULTS_DEPTH } from '../../reports/bound.js';
import { ResultsInputError } from '../faults.js';

const MiB = 1024 * 1024;
/**
 * The most `report` reads, all its files together: a run of the whole built-in catalogue writes about
 * 3 MB. The objects parsed, the report rendered from them and the files written again take about 35
 * times the input in memory (measured: 31 MiB of results, 1.1 GB peak; 63 MiB, 1.7 GB and 52 s), and
 * Node's heap on a 7 GB CI machine stops near 2 GB.
 */
const MAX_RESULTS_BYTES = 32 * MiB;

const kindOf = (st: import('node:fs').Stats) =>
  st.isDirectory()
    ? 'a folder'
    : st.isFIFO()
      ? 'a fifo (named pipe)'
      : st.isSocket()
        ? 'a socket'
        : st.isCharacterDevice()
          ? 'a character device'
          : st.isBlockDevice()
            ? 'a block device'
            : 'not a regular file';

const why = (err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  return e.code === 'ENOENT' ? 'no such file' : e.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : e.message;
};

/**
 * Reads a results file: at most `budget` bytes (refused beyond, before anything is read); returns its
 * text. Opened before it is looked at, so what is checked is what is read.
 */
function readBounded(file: string, budget: number): string {
  let fd: number;
  try {
    // Non-blocking: opening a fifo with no writer would wait for one forever.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new ResultsInputError(`cannot read ${file}: ${why(err)}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ResultsInputError(`${file} is ${kindOf(st)}, not a results.json file`);
    const limit = budget;
    if (st.size > limit)
      throw new ResultsInputError(
        `${file} is ${(st.size / MiB).toFixed(1)} MiB${limit < MAX_RESULTS_BYTES ? ` and the files before it ${((MAX_RESULTS_BYTES - limit) / MiB).toFixed(1)} MiB` : ''}: report reads at most ${MAX_RESULTS_BYTES / MiB} MiB of results in all (docs/ci.md)`,
      );
    // Read to at most one byte past the limit: a file that grows meanwhile is refused, never followed.
    const buf = Buffer.allocUnsafe(Math.min(st.size, limit) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > limit)
        throw new ResultsInputError(
          `${file} grew past ${(limit / MiB).toFixed(1)} MiB while it was read: report reads at most ${MAX_RESULTS_BYTES / MiB} MiB of results in all (docs/ci.md)`,
        );
      if (n === buf.length) break;
    }
    return buf.subarray(0, n).toString('utf8');
  } catch (err) {
    if (err instanceof ResultsInputError) throw err;
    throw new ResultsInputError(`cannot read ${file}: ${why(err)}`);
  } finally {
    closeSync(fd);
  }
}

/** A JSON pointer in a line: its keys are the file's, of any length. */
const short = (ptr: string) => (ptr.length > 160 ? `${ptr.slice(0, 80)}…${ptr.slice(-60)}` : ptr);

/**
 * Results written before ruleset a2a-1.0.1@15 name the level `field` by its old name, `seed`: renamed
 * in place (a check's level, a source's or a cited sentence's), so old runs still report and compare.
 * Returns how many were renamed. The depth is already bounded (boundDepth).
 */
function renameOldLevels(doc: unknown): number {
  let n = 0;
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.level === 'seed') {
        o.level = 'field';
        n++;
      }
      for (const x of Object.values(o)) if (x && typeof x === 'object') walk(x);
    }
  };
  walk(doc);
  return n;
}

/** Reads every results file of a `report`, or throws ResultsInputError (one line naming the file). */
export function readResultsFiles(files: string[], note: (line: string) => void): RunResults[] {
  let left = MAX_RESULTS_BYTES;
  const runs: RunResults[] = [];
  for (const f of files) {
    const text = readBounded(f, left);
    left -= Buffer.byteLength(text);
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch (err) {
      throw new ResultsInputError(`${f} is not JSON: ${(err as Error).message}`);
    }
    // Before anything walks it recursively (the schema check, the merge, the renderers).
    const b = boundDepth(doc);
    if (b.nonFinite !== undefined)
      throw new ResultsInputError(`${f}: ${short(b.nonFinite)} is a number JSON cannot hold (it reads as Infinity): not a results file a2a-conformance wrote`);
    const renamed = renameOldLevels(doc);
    if (renamed) note(`${f}: written before ruleset a2a-1.0.1@15; its ${renamed} level(s) named "seed" are read as "field", the same level renamed`);
    const problem = resultsProblem(doc);
    if (problem) throw new ResultsInputError(`${f} is not an a2a-conformance results file (docs/results.schema.json): ${problem}`);
    // One run grades a scenario once: a file holding an id twice would have one of them silently dropped by every reader.
    const seen = new Set<string>();
    for (const r of (doc as RunResults).results) {
      if (seen.has(r.id)) throw new ResultsInputError(`${f} holds scenario ${short(r.id)} twice: not one run the harness wrote (merge shards with \`report\`)`);
      seen.add(r.id);
    }
    if (b.elidedCount)
      note(
        `${f}: ${b.elidedCount} value(s) nested deeper than ${MAX_RESULTS_DEPTH} levels are shown as a marker in the report (the first at ${short(b.elided[0]!)})`,
      );
    runs.push(doc as RunResults);
  }
  return runs;
}
