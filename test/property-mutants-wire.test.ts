/** The mutation check of the wire family (issue 40): see property-mutants.test.ts. */
import { exportCheck, mutationCheck } from './helpers/property-mutants.js';

mutationCheck(['wire']);

// One counterexample through the CLI: a token on the card's fetch from a CDN, exported and run as a plain scenario.
exportCheck('naive:sends-token-everywhere', 'wire', 1);
