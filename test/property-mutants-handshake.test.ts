/** The mutation check of the handshake, transport and delivery property families (see property-mutants.test.ts); a delivery counterexample through the CLI. */
import { exportCheck, mutationCheck } from './helpers/property-mutants.js';

mutationCheck(['handshake', 'transport', 'delivery']);
// A forged push that moved the client, exported: the forgeries travel in the scenario file.
exportCheck('naive:trusts-any-push', 'delivery', 1);
