/**
 * What the renderers are given is made writable first. A results document may come from a file
 * anyone could have edited (`a2a-conformance report`), and a run's results hold what clients sent:
 * either can nest deeper than any recursive consumer survives (JSON.parse takes 200,000 levels,
 * JSON.stringify and structuredClone die at a few thousand), hold a number JSON cannot write back
 * (1e400 reads as Infinity and is written as null), or, in a run, a value that does not serialise at
 * all. Every walk here is a loop over an explicit stack, whatever the depth of its input.
 */
import type { RunResults, ScenarioResult } from '../harness/core/results.js';

/** Levels of nesting kept in a results document; deeper values are replaced by `elidedMarker`. A real run's deepest value is about 15 levels down. */
export const MAX_RESULTS_DEPTH = 128;

/** What stands where a value nested too deep was. */
export const elidedMarker = (depth: number) => `[a2a-conformance: nested deeper than ${depth} levels; not kept]`;

const pointerPart = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

export interface Bounds {
  /** JSON pointers of the values replaced by the marker (the first few). */
  elided: string[];
  elidedCount: number;
  /** The pointer of the first number that is not finite (Infinity, NaN), if any. */
  nonFinite?: string;
}

interface Frame {
  node: Record<string, unknown> | unknown[];
  depth: number;
  parent: Frame | undefined;
  key: string;
}

const pointerOf = (f: Frame | undefined, key: string): string => {
  const parts = [pointerPart(key)];
  for (let x = f; x?.parent; x = x.parent) parts.push(pointerPart(x.key));
  return '/' + parts.reverse().join('/');
};

/**
 * Replaces, in place, every object or array nested deeper than `max` levels below the root (which
 * sits at `startDepth`) by a marker string, and finds the first number that is not finite. Each
 * object is walked once (a value reached twice is not walked again). A getter that throws is not
 * caught here: the caller decides what the value it sits in becomes.
 */
export function boundDepth(root: unknown, max = MAX_RESULTS_DEPTH, startDepth = 0, prefix = ''): Bounds {
  const out: Bounds = { elided: [], elidedCount: 0 };
  if (!root || typeof root !== 'object') {
    if (typeof root === 'number' && !Number.isFinite(root)) out.nonFinite = prefix || '/';
    return out;
  }
  const seen = new WeakSet<object>();
  const stack: Frame[] = [{ node: root as Frame['node'], depth: startDepth, parent: undefined, key: '' }];
  while (stack.length) {
    const f = stack.pop()!;
    if (seen.has(f.node)) continue;
    seen.add(f.node);
    const keys = Array.isArray(f.node) ? Array.from(f.node.keys(), String) : Object.keys(f.node);
    for (const k of keys) {
      const v = (f.node as Record<string, unknown>)[k];
      if (typeof v === 'number') {
        if (!Number.isFinite(v) && out.nonFinite === undefined) out.nonFinite = prefix + pointerOf(f, k);
      } else if (v && typeof v === 'object') {
        if (f.depth + 1 > max) {
          (f.node as Record<string, unknown>)[k] = elidedMarker(max);
          if (out.elided.length < 3) out.elided.push(prefix + pointerOf(f, k));
          out.elidedCount++;
        } else stack.push({ node: v as Frame['node'], depth: f.depth + 1, parent: f, key: k });
      }
    }
  }
  return out;
}

const message = (err: unknown) => {
  try {
    return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  } catch {
    return 'an error that cannot be shown';
  }
};

/** Values a salvaging copy takes at most: a structure built to be huge (shared references copied over and over) stops there. */
const SALVAGE_VALUES = 1_000_000;

/**
 * A copy of a value made of what can be written: a property whose getter throws, a reference to an
 * enclosing value (a cycle), a value past `max` levels or past SALVAGE_VALUES becomes a marker string
 * saying so; a bigint its digits; functions and symbols are dropped as JSON drops them. The shape
 * stays: an object stays an object, an array an array. A loop over an explicit stack.
 */
function salvageCopy(root: unknown, max: number, startDepth: number): unknown {
  const box: Record<string, unknown> = {};
  let budget = SALVAGE_VALUES;
  /** The enclosing values, innermost first: a value met again among them is a cycle. */
  type Up = { v: object; up: Up | undefined } | undefined;
  type Job = { from: unknown; into: Record<string, unknown> | unknown[]; key: string | number; depth: number; path: Up };
  const jobs: Job[] = [{ from: root, into: box, key: 'v', depth: startDepth, path: undefined }];
  const encloses = (path: Up, v: object) => {
    for (let p = path; p; p = p.up) if (p.v === v) return true;
    return false;
  };
  const put = (j: Job, v: unknown) => {
    if (Array.isArray(j.into)) j.into[j.key as number] = v;
    else j.into[j.key as string] = v;
  };
  while (jobs.length) {
    const j = jobs.pop()!;
    let v = j.from;
    if (--budget < 0) {
      put(j, '[a2a-conformance: too many values; not kept]');
      continue;
    }
    if (typeof v === 'bigint') v = v.toString();
    if (v === null || typeof v !== 'object') {
      put(j, typeof v === 'function' || typeof v === 'symbol' ? undefined : v);
      continue;
    }
    if (encloses(j.path, v)) {
      put(j, '[a2a-conformance: a reference to an enclosing value; not kept]');
      continue;
    }
    if (j.depth > max) {
      put(j, elidedMarker(max));
      continue;
    }
    try {
      const toJSON = (v as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        put(j, JSON.parse(JSON.stringify(v)));
        continue;
      }
      const path: Up = { v, up: j.path };
      if (Array.isArray(v)) {
        const arr: unknown[] = new Array<unknown>(v.length);
        put(j, arr);
        for (let i = v.length - 1; i >= 0; i--) {
          try {
            jobs.push({ from: v[i], into: arr, key: i, depth: j.depth + 1, path });
          } catch (err) {
            arr[i] = `[a2a-conformance: could not be read (${message(err).slice(0, 200)})]`;
          }
        }
      } else {
        const obj: Record<string, unknown> = {};
        put(j, obj);
        for (const k of Object.keys(v)) {
          // Its place first: the copy keeps the keys in their order (the jobs fill them later).
          obj[k] = null;
          try {
            jobs.push({ from: (v as Record<string, unknown>)[k], into: obj, key: k, depth: j.depth + 1, path });
          } catch (err) {
            obj[k] = `[a2a-conformance: could not be read (${message(err).slice(0, 200)})]`;
          }
        }
      }
    } catch (err) {
      put(j, `[a2a-conformance: could not be read (${message(err).slice(0, 200)})]`);
    }
  }
  return box.v;
}

/**
 * A scenario's result as far as it can be written: a copy of everything that can be read, with a
 * marker in place of each value that cannot, and `unrendered` saying why (a value left out of the
 * report never silently looks like one the client sent).
 */
function salvage(s: ScenarioResult, err: unknown): ScenarioResult {
  let out = salvageCopy(s, MAX_RESULTS_DEPTH, 2) as Record<string, unknown>;
  try {
    JSON.stringify(out);
  } catch {
    out = {};
  }
  if (!out || typeof out !== 'object' || Array.isArray(out)) out = {};
  for (const k of ['id', 'rule', 'title', 'verdict', 'expect'] as const)
    if (typeof out[k] !== 'string') out[k] = k === 'verdict' || k === 'expect' ? 'ERROR' : `(${k} could not be written)`;
  out.unrendered = `some of this scenario's data could not be written (${message(err).slice(0, 300)}); each value that could not is marked "[a2a-conformance: …]"`;
  return out as unknown as ScenarioResult;
}

export interface Writable {
  results: RunResults;
  /** What was changed to make it writable, in lines (for the caller to say). */
  notes: string[];
}

/**
 * The results as they can be written: values nested deeper than MAX_RESULTS_DEPTH elided (in
 * place), and any scenario whose data does not serialise salvaged (its fields that do are kept). The
 * document is shallow-copied; the rest of the run's results are untouched.
 */
export function writableResults(r: RunResults): Writable {
  const notes: string[] = [];
  let elided = 0;
  let first: string | undefined;
  const results = r.results.map((s, i) => {
    try {
      const b = boundDepth(s, MAX_RESULTS_DEPTH, 2, `/results/${i}`);
      elided += b.elidedCount;
      first ??= b.elided[0];
      JSON.stringify(s);
      return s;
    } catch (err) {
      const salvaged = salvage(s, err);
      notes.push(`scenario ${JSON.stringify(String(salvaged.id)).slice(0, 200)}: ${salvaged.unrendered}`);
      return salvaged;
    }
  });
  const doc = { ...r, results };
  // The rest of the document (not-run lists, property cases, the control exchange): the harness's own
  // structure around what clients sent.
  const rest = boundDepth({ ...doc, results: [] });
  elided += rest.elidedCount;
  first ??= rest.elided[0];
  if (elided) notes.unshift(`${elided} value(s) nested deeper than ${MAX_RESULTS_DEPTH} levels were replaced by a marker (the first at ${first})`);
  return { results: doc, notes };
}
