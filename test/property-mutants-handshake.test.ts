/** The mutation check of the handshake and transport property families (see property-mutants.test.ts). */
import { mutationCheck } from './helpers/property-mutants.js';

mutationCheck(['handshake', 'transport']);
