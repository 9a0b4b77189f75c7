/**
 * The mutation check of the property families (issue 13): each family alone, with no hand-written
 * scenario, catches every naive mistake of the rules it covers (and of the cross-cutting rules it
 * provokes). Each mistake's counterexample is recorded by `npm run golden` from the family's sweep
 * and replayed here: the sweep's first failing case still fails, and the shrunk one gives the recorded
 * verdict (helpers/counterexamples.ts; this file holds the negotiation family's, property-mutants-*.test.ts
 * the others'). Then one counterexample is found live through the CLI: swept, shrunk, exported, and
 * run as a plain scenario, it fails the same way. */
import { describe, expect, it } from 'vitest';
import { FAMILIES } from '../harness/properties/families/index.js';
import { COVERED } from './helpers/counterexamples.js';
import { exportCheck, mutationCheck } from './helpers/property-mutants.js';

describe('the mutation check covers every family', () => {
  it('covers the mistakes of every rule the families name, and every family has some', () => {
    expect(COVERED.length).toBeGreaterThanOrEqual(24);
    expect(new Set(COVERED.map(([, , f]) => f.id))).toEqual(new Set(FAMILIES.map((f) => f.id)));
  });
});

// The negotiation family's mistakes here; handshake and transport, and trust, in files of their own.
mutationCheck(['negotiation']);

// One counterexample through the CLI: exported, and run as a plain scenario, it fails the same way.
exportCheck('naive:repeats-challenged-call', 'handshake', 3);
