/** The mutation check of the trust property family (see property-mutants.test.ts). */
import { mutationCheck } from './helpers/property-mutants.js';

mutationCheck(['trust']);
