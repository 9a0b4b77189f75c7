/**
 * The glob matcher of expectations entries and hello.glue (harness/core/glob.ts): it means what
 * picomatch meant for the globs scenario ids need, and its work stays small whatever the glob.
 */
import fc from 'fast-check';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { compileGlob, globProblem, MAX_GLOB_LENGTH, MAX_GLOB_WILDCARDS } from '../harness/core/glob.js';

describe('globs over scenario ids', () => {
  it('match as picomatch matches them (dot: true), on ids of a few segments', () => {
    // Segments of a, b and c (never empty, never `.` or `..`: no scenario id has those), globs of the same
    // letters with * and ?. (A whole-segment `**` is ours below: picomatch's has quirks, `*/**` does
    // not match `c` while `?/**` matches `a`.)
    const segment = fc.stringMatching(/^[abc]{1,4}$/);
    const id = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
    const globSegment = fc.stringMatching(/^[abc*?]{1,5}$/).filter((s) => !/^\*\*+$/.test(s));
    const glob = fc
      .array(globSegment, { minLength: 1, maxLength: 4 })
      .map((s) => s.join('/'))
      .filter((g) => !globProblem(g));
    fc.assert(
      fc.property(glob, fc.array(id, { minLength: 1, maxLength: 8 }), (g, ids) => {
        const ours = compileGlob(g);
        const theirs = picomatch(g, { dot: true });
        for (const i of ids) expect(ours(i), `${g} against ${i}`).toBe(theirs(i));
      }),
      { numRuns: 1000 },
    );
  });

  it('the ids and globs of the built-in glue and the docs', () => {
    const cases: Array<[string, string, boolean]> = [
      ['neg-live-input/*', 'neg-live-input/live-audio-to-batch-peer', true],
      ['neg-live-input/*', 'neg-live-input/a/b', false],
      ['hs-split-origin/stale-*', 'hs-split-origin/stale-card.v03', true],
      ['neg-push-mtls/https-receiver-wants-push*', 'neg-push-mtls/https-receiver-wants-push.v03', true],
      // `**` as a whole segment: any number of whole segments, none included.
      ['**', 'a/b/c', true],
      ['a/**', 'a', true],
      ['*/**', 'c', true],
      ['**/c', 'a/b/c', true],
      ['**/c', 'c', true],
      ['a/**/c', 'a/c', true],
      ['a/**/c', 'a/b/b/c', true],
      ['a/**/c', 'a/bc', false],
      ['a/**/b/**/c', 'a/x/b/y/z/c', true],
      ['a/**/b/**/c', 'a/x/y/z/c', false],
      ['a**b', 'axxb', true],
      ['a**b', 'ax/xb', false],
      ['trust-kid/expired', 'trust-kid/expired', true],
      ['trust-kid/expired', 'trust-kid/expired2', false],
      ['*/*', 'a/b', true],
      ['*', 'a/b', false],
    ];
    for (const [g, id, want] of cases) expect(compileGlob(g)(id), `${g} against ${id}`).toBe(want);
  });

  it('refuses what is past the limits or outside the syntax, saying which', () => {
    expect(globProblem('x'.repeat(MAX_GLOB_LENGTH + 1))).toMatch(/characters, at most/);
    expect(globProblem('a*'.repeat(MAX_GLOB_WILDCARDS + 1))).toMatch(/wildcards, at most/);
    for (const g of ['{a,b}', '[ab]', '!a', '+(a)', 'A', 'a b', 'a\\*']) expect(globProblem(g), g).toMatch(/is not allowed/);
    expect(globProblem('neg-live-input/*')).toBeUndefined();
  });

  it('the glob that backtracks for seconds in a regular expression, and the worst at the limits, match in well under a millisecond', () => {
    const ids = Array.from({ length: 200 }, (_, i) => `spec-tls-verify/${'a'.repeat(40 + (i % 60))}`);
    // The glob is past the wildcard limit; the same shape at the limit is not, and is matched.
    expect(globProblem('*/*?*?*?*?*?*?*?*?*?*?*?X')).toMatch(/wildcards, at most 16|not allowed/);
    const worst = [
      '*/*?*?*?*?*?*?*?*x',
      '*/*?*?*?*?*?*?*?*a',
      `**/${'*a'.repeat(7)}?/**/${'a'.repeat(200)}`.slice(0, MAX_GLOB_LENGTH),
      `*/${'a?'.repeat(7)}*${'a'.repeat(200)}b`.slice(0, MAX_GLOB_LENGTH),
    ];
    for (const g of worst) {
      expect(globProblem(g), g).toBeUndefined();
      const m = compileGlob(g);
      const t = performance.now();
      for (const id of ids) m(id);
      // 200 ids: a backtracking matcher takes seconds for one.
      expect((performance.now() - t) / ids.length, g).toBeLessThan(1);
    }
  });
});
