/** The built-in property families, in the order they run. */
import type { Family } from '../family.js';
import { deliveryFamily } from './delivery.js';
import { handshakeFamily } from './handshake.js';
import { negotiationFamily } from './negotiation.js';
import { nemesisFamily } from './nemesis.js';
import { transportFamily } from './transport.js';
import { trustFamily } from './trust.js';
import { wireFamily } from './wire.js';

export const FAMILIES: Family[] = [negotiationFamily, handshakeFamily, trustFamily, transportFamily, deliveryFamily, wireFamily];

/** Families a plain `properties` leaves out, asked for by name (`--family nemesis`): a stress over the others' stories. */
export const BY_NAME_ONLY: Family[] = [nemesisFamily];

/** Every family `--family` and `replay` can name. */
export const ALL_FAMILIES: Family[] = [...FAMILIES, ...BY_NAME_ONLY];
