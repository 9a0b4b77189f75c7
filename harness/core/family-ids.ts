/**
 * The ids of the built-in property families, in the order they run: what the CLI checks `--family`
 * against before it loads fast-check and the families themselves (families/index.ts holds the same
 * ids, which a test compares). In core so that the tiers (harness/runner/judge/tiers.ts) can name them.
 */
export const FAMILY_IDS: readonly string[] = ['negotiation', 'handshake', 'trust', 'transport', 'delivery', 'wire'];

/** Families run only when `--family` names them (families/index.ts BY_NAME_ONLY): not in a plain run, nor in the tiers. */
export const BY_NAME_FAMILY_IDS: readonly string[] = ['nemesis'];
