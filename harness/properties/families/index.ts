/** The built-in property families, in the order they run. */
import type { Family } from '../family.js';
import { deliveryFamily } from './delivery.js';
import { handshakeFamily } from './handshake.js';
import { negotiationFamily } from './negotiation.js';
import { transportFamily } from './transport.js';
import { trustFamily } from './trust.js';
import { wireFamily } from './wire.js';

export const FAMILIES: Family[] = [negotiationFamily, handshakeFamily, trustFamily, transportFamily, deliveryFamily, wireFamily];
