/**
 * The cross-cutting checks (DESIGN.md §3): graded on every scenario. Most of them grade harm on
 * the wire, which is FAIL whatever level its source has.
 *
 * What the family's rules share (sources, helpers); each rule is a file of its own beside this one.
 */
import { binds } from '../../rule.js';

export const always = () => binds('graded on every scenario', ['proceed', 'downgrade', 'reject', 'escalate']);

export const SEED000_ORPHAN = {
  doc: 'seed 000',
  section: 'Decision Boundary',
  quote: 'Rejecting after task creation is strictly worse: it orphans a task on the server, consumes a task ID, and in some vendors triggers billing.',
  level: 'seed' as const,
  role: 'harm' as const,
};
