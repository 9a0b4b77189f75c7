/**
 * The case space of a family for a seed: fast-check's own order, so the i-th case is the value its
 * runner generates for path `i`, and `replay --seed --path` and shrinking find exactly the same card,
 * profile and intent. A sweep takes its cases a window at a time (CaseWindow), so a run of any size
 * holds only a window of generated cases at once, never the whole space.
 */
import fc from 'fast-check';
import type { Binding, Dialect } from '../../core/protocol/types.js';
import { ReplayPathError } from '../../faults.js';
import { familyArbitrary, type Family, type GeneratedCase } from '../../properties/family.js';

export const V1: readonly Dialect[] = ['a2a-v1'];
export const JSONRPC: readonly Binding[] = ['JSONRPC'];

/**
 * `count` cases of a family for a seed, from case `from` on (default the first), in fast-check's
 * order, for a client that speaks these dialects, told over these bindings (familyArbitrary; default
 * v1.0 only, JSON-RPC). fast-check starts a run at path `from` by skipping the generator's random
 * streams up to it, without generating the cases before it (about 0.4 µs per case skipped).
 */
export function generateCases(
  family: Family,
  seed: number,
  count: number,
  dialects: readonly Dialect[] = V1,
  bindings: readonly Binding[] = JSONRPC,
  from = 0,
): GeneratedCase[] {
  const out: GeneratedCase[] = [];
  if (count <= 0) return out;
  fc.check(
    fc.property(familyArbitrary(family, dialects, bindings), (c) => void out.push(c)),
    { seed, numRuns: count, ...(from > 0 ? { path: String(from) } : {}) },
  );
  return out;
}

/** The case at a fast-check path (`17`, or `17:3:0` after shrinking), for a seed. */
export function caseAt(family: Family, seed: number, path: string, dialects: readonly Dialect[] = V1, bindings: readonly Binding[] = JSONRPC): GeneratedCase {
  let found: GeneratedCase | undefined;
  try {
    fc.check(
      fc.property(familyArbitrary(family, dialects, bindings), (c) => {
        found = c;
        return false;
      }),
      { seed, path, endOnFailure: true },
    );
  } catch {
    // fast-check's "Unable to replay, got wrong path": a step past the end of a shrink
    found = undefined;
  }
  if (!found)
    throw new ReplayPathError(
      `no case at path ${path.length > 40 ? `${path.slice(0, 40)}…` : path} of family ${family.id} for seed ${seed}: check the path the property run printed`,
    );
  return found;
}

/** Cases generated at once by a CaseWindow: small beside a run's other memory, large enough that generating one costs nothing per case. */
export const WINDOW_CASES = 512;

/**
 * The first `runs` cases of a family, generated a window of WINDOW_CASES at a time as a sweep asks
 * for them. A sweep asks in increasing order, so only the window of the latest case is kept; asking
 * for an earlier one generates its window again (the same cases: the seed decides them).
 */
export class CaseWindow {
  private from = 0;
  private cases: GeneratedCase[] = [];

  constructor(
    private readonly family: Family,
    private readonly seed: number,
    private readonly runs: number,
    private readonly dialects: readonly Dialect[],
    private readonly bindings: readonly Binding[],
    private readonly size = WINDOW_CASES,
  ) {}

  at(i: number): GeneratedCase {
    if (!Number.isInteger(i) || i < 0 || i >= this.runs) throw new RangeError(`[harness] case ${i} is outside the ${this.runs} cases of ${this.family.id}`);
    if (i < this.from || i >= this.from + this.cases.length) {
      this.from = i - (i % this.size);
      this.cases = generateCases(this.family, this.seed, Math.min(this.size, this.runs - this.from), this.dialects, this.bindings, this.from);
    }
    return this.cases[i - this.from]!;
  }
}
