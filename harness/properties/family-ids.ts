/**
 * The ids of the built-in property families, in the order they run: what the CLI checks `--family`
 * against before it loads fast-check and the families themselves (families/index.ts holds the same
 * ids, which a test compares).
 */
export const FAMILY_IDS: readonly string[] = ['negotiation', 'handshake', 'trust', 'transport', 'delivery'];
