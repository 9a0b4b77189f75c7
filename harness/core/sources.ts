/**
 * Where a verdict's authority comes from (docs/rules.md, the level table). Every rule cites its sources,
 * each a quoted sentence with its document, section and level; the level decides how a miss is
 * graded, and harm on the wire is FAIL at every level.
 */

/**
 * - `MUST`: an A2A MUST / MUST NOT / REQUIRED (or the test protocol's own MUST, said so in `doc`).
 * - `SHOULD`: an A2A SHOULD / RECOMMENDED.
 * - `security`: a SHOULD about verification that the harness holds as MUST, said openly in the rule.
 * - `field`: a duty learned from incidents in the field that A2A's own text does not state, stated with
 *   its incidents in docs/duties.md (called `seed` before ruleset a2a-1.0.1@15).
 * - `convention`: only an extension URI of ours says it (docs/extensions.md).
 * - `vendor`: a scenario author's own assertion, in the author's words (docs/scenarios.md); no rule
 *   of the harness rests on it.
 */
export const LEVELS = ['MUST', 'security', 'SHOULD', 'field', 'convention', 'vendor'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * Each level in a vendor's words, as the report's legend and docs/rules.md's table give it: what it
 * is, and where its sentences can be read.
 */
export const LEVEL_MEANING: Record<Level, string> = {
  MUST: 'an A2A MUST, MUST NOT or REQUIRED (or the test protocol’s own MUST, docs/protocol.md)',
  security: 'a SHOULD about verification (TLS, signed cards) that the harness holds as MUST, said so in the rule',
  SHOULD: 'an A2A SHOULD or RECOMMENDED',
  field:
    'a duty learned from incidents in deployed agent systems that no A2A sentence states; each is written out, with its incidents and why, in docs/duties.md',
  convention: 'only an extension URI of this harness says it (docs/extensions.md)',
  vendor: 'a scenario author’s own assertion, in the author’s words (docs/scenarios.md); no built-in rule rests on it',
};

/** Strength of a level: a chain of reasoning is as strong as its weakest link. */
const RANK: Record<Level, number> = { MUST: 5, security: 5, SHOULD: 3, field: 2, convention: 1, vendor: 1 };

export function levelRank(l: Level): number {
  return RANK[l];
}

/** The weakest of some levels (the first of equals); `undefined` for none. */
export function weakest(levels: readonly Level[]): Level | undefined {
  let w: Level | undefined;
  for (const l of levels) if (w === undefined || RANK[l] < RANK[w]) w = l;
  return w;
}

/** The strongest of some levels (the first of equals); `undefined` for none. */
export function strongest(levels: readonly Level[]): Level | undefined {
  let s: Level | undefined;
  for (const l of levels) if (s === undefined || RANK[l] > RANK[s]) s = l;
  return s;
}

/** Not acting up front on a signal of this level is FAIL (MUST, security) or NON_STRICT (the rest). */
export function upFrontMissFails(l: Level): boolean {
  return RANK[l] >= RANK.MUST;
}

/** A quoted sentence a rule rests on. */
export interface Source {
  /** The document: `A2A v1.0.1`, `RFC 9110`, `docs/duties.md`, `docs/extensions.md`, `a2a-conformance/1`… */
  doc: string;
  /** Its section, as the document numbers or names it. */
  section: string;
  /** The sentence, quoted (markdown emphasis and links dropped). */
  quote: string;
  level: Level;
  /**
   * What the source backs: the duty to act up front (default), or the harm the wire shows. The
   * up-front level of a rule is the strongest of its `duty` sources.
   */
  role?: 'duty' | 'harm';
}

/** A sentence that bounds a rule's reading without being its source (e.g. what the spec does NOT say). */
export interface Limit {
  doc: string;
  section: string;
  quote: string;
}

/** Short label of a source for reports: `A2A v1.0.1 §3.6.1 MUST`, `docs/duties.md §1 Live input · field`. */
export function sourceLabel(s: Pick<Source, 'doc' | 'section' | 'level'>): string {
  const sec = /^\d/.test(s.section) ? `§${s.section}` : s.section;
  return `${s.doc} ${sec} · ${s.level}`;
}
