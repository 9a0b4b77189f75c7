/** The mutation check of the handshake, transport and delivery property families (see property-mutants.test.ts). */
import { mutationCheck } from './helpers/property-mutants.js';

mutationCheck(['handshake', 'transport', 'delivery']);
