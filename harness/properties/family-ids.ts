/** The ids of the built-in property families: kept in core (harness/core/family-ids.ts), named here for the property modules. */
export { FAMILY_IDS } from '../core/family-ids.js';
