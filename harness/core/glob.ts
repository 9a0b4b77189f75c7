/**
 * Globs over scenario ids: an expectations file's entries, a client's `hello.glue`. They come from
 * a file or a client, so a glob must never cost more than a bounded, small amount of work. A regular
 * expression compiled from a glob (picomatch) backtracks: 25 characters of `*?*?…X` took seconds
 * for one id, long enough to turn a run's correct verdicts into TIMEOUT.
 *
 * Here a glob is matched by the classic greedy wildcard algorithm, never by backtracking: within a
 * path segment, `*` runs between literal chunks and each chunk is placed at its leftmost fit (with
 * one kind of star, the leftmost fit never loses a match, so nothing is tried twice); across
 * segments, `**` does the same over whole segments. Its cost is bounded by the id's length times
 * the glob's, and a glob is refused at load beyond the limits below.
 *
 * The syntax is what scenario ids need and no more: `*` (any run of characters but `/`), `**` as a
 * whole segment (any run of segments, none included), `?` (one character but `/`); everything else
 * is literal, and only the characters of scenario ids (a-z 0-9 . _ / -) may appear. Braces, classes,
 * negation and extglobs are refused rather than read as literals, so no entry silently means
 * something other than its writer meant.
 */

/** The most characters of one glob (or id) in an expectations entry or a glue list. */
export const MAX_GLOB_LENGTH = 256;
/** The most wildcards (`*`, `**` and `?`, each counting one) in one glob. */
export const MAX_GLOB_WILDCARDS = 16;

const ALLOWED = /^[a-z0-9._/*?-]+$/;

export class GlobError extends Error {
  override readonly name = 'GlobError';
}

export type IdMatcher = (id: string) => boolean;

/** Whether the text holds a wildcard (else it is an exact id). */
export const isGlob = (pattern: string): boolean => /[*?]/.test(pattern);

/** Checks a glob against the limits and the syntax; the error says which, in a few words. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'it is empty';
  if (pattern.length > MAX_GLOB_LENGTH) return `${pattern.length} characters, at most ${MAX_GLOB_LENGTH}`;
  if (!ALLOWED.test(pattern)) {
    const bad = [...pattern].find((c) => !/[a-z0-9._/*?-]/.test(c))!;
    return `${JSON.stringify(bad)} is not allowed: a scenario id (a-z 0-9 . _ / -), or a glob of it with *, ** and ?`;
  }
  const wildcards = pattern.match(/\*\*|\*|\?/g)?.length ?? 0;
  if (wildcards > MAX_GLOB_WILDCARDS) return `${wildcards} wildcards, at most ${MAX_GLOB_WILDCARDS}`;
  return undefined;
}

/** One path segment of a glob: its literal chunks between `*`s (a chunk may hold `?`). */
interface SegmentGlob {
  chunks: string[];
  starred: boolean;
}

/** Whether `chunk` (literal characters and `?`) fits `text` at `at`. */
function fitsAt(text: string, at: number, chunk: string): boolean {
  if (at < 0 || at + chunk.length > text.length) return false;
  for (let i = 0; i < chunk.length; i++) if (chunk[i] !== '?' && chunk[i] !== text[at + i]) return false;
  return true;
}

/** The leftmost place at or after `from` where `chunk` fits wholly before `end`; -1 if none. */
function leftmost(text: string, from: number, end: number, chunk: string): number {
  if (!chunk.includes('?')) {
    const at = text.indexOf(chunk, from);
    return at >= 0 && at + chunk.length <= end ? at : -1;
  }
  for (let at = from; at + chunk.length <= end; at++) if (fitsAt(text, at, chunk)) return at;
  return -1;
}

/** One segment of an id (no `/` in it) against one segment of a glob. */
function segmentMatches(text: string, g: SegmentGlob): boolean {
  const { chunks } = g;
  if (!g.starred) return text.length === chunks[0]!.length && fitsAt(text, 0, chunks[0]!);
  const first = chunks[0]!;
  const last = chunks[chunks.length - 1]!;
  // picomatch's `*` does not match an empty segment (`a/*` is not `a/`): kept, so entries mean what they meant.
  if (text.length === 0) return false;
  if (text.length < first.length + last.length || !fitsAt(text, 0, first) || !fitsAt(text, text.length - last.length, last)) return false;
  let from = first.length;
  const end = text.length - last.length;
  for (let i = 1; i < chunks.length - 1; i++) {
    const at = leftmost(text, from, end, chunks[i]!);
    if (at < 0) return false;
    from = at + chunks[i]!.length;
  }
  return true;
}

/** The same greedy walk one level up: runs of glob segments between `**`s, over the id's segments. */
function runFits(ids: string[], at: number, run: SegmentGlob[]): boolean {
  if (at < 0 || at + run.length > ids.length) return false;
  for (let i = 0; i < run.length; i++) if (!segmentMatches(ids[at + i]!, run[i]!)) return false;
  return true;
}

function pathMatches(ids: string[], runs: SegmentGlob[][]): boolean {
  if (runs.length === 1) return ids.length === runs[0]!.length && runFits(ids, 0, runs[0]!);
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  if (ids.length < first.length + last.length || !runFits(ids, 0, first) || !runFits(ids, ids.length - last.length, last)) return false;
  let from = first.length;
  const end = ids.length - last.length;
  for (let i = 1; i < runs.length - 1; i++) {
    const run = runs[i]!;
    let at = from;
    while (at + run.length <= end && !runFits(ids, at, run)) at++;
    if (at + run.length > end) return false;
    from = at + run.length;
  }
  return true;
}

/**
 * Compiles a glob (or an exact id) into a matcher; throws GlobError past the limits or outside the
 * syntax. A matcher's work is at most about the id's length times the glob's.
 */
export function compileGlob(pattern: string): IdMatcher {
  const problem = globProblem(pattern);
  if (problem) throw new GlobError(problem);
  if (!isGlob(pattern)) return (id) => id === pattern;
  // `**` is a globstar only as a whole segment (elsewhere it is a `*`, as picomatch reads it); runs of them are one.
  const runs: SegmentGlob[][] = [[]];
  for (const seg of pattern.split('/')) {
    if (seg === '**') {
      if (runs[runs.length - 1]!.length > 0 || runs.length === 1) runs.push([]);
      continue;
    }
    const chunks = seg.replace(/\*+/g, '*').split('*');
    runs[runs.length - 1]!.push({ chunks, starred: chunks.length > 1 });
  }
  // The literal text before the first wildcard and after the last: most ids fail these at once.
  const prefix = /^[^*?]*/.exec(pattern)![0].replace(/\/$/, '');
  const suffix = /[^*?]*$/.exec(pattern)![0].replace(/^\//, '');
  return (id) => id.startsWith(prefix) && id.endsWith(suffix) && pathMatches(id.split('/'), runs);
}
