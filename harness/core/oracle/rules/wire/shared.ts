/**
 * The cross-cutting checks (docs/rules.md): graded on every scenario. Most of them grade harm on
 * the wire, which is FAIL whatever level its source has.
 *
 * What the family's rules share (sources, helpers); each rule is a file of its own beside this one.
 */
import type { Situation } from '../../evidence.js';
import { binds } from '../../rule.js';

export const always = () => binds('graded on every scenario', ['proceed', 'downgrade', 'reject', 'escalate']);

export const SEED000_ORPHAN = {
  doc: 'docs/duties.md',
  section: '1 Live input',
  quote: 'Declining after a task exists is worse than declining before: the task is left on the agent, its id spent, and with some vendors it is billed.',
  level: 'field' as const,
  role: 'harm' as const,
};

/** Send Message may be idempotent, and need not: a message sent again may start a second task (the harm of a re-send). */
export const SEND_NOT_IDEMPOTENT = {
  doc: 'A2A v1.0.1',
  section: '3.3.1',
  quote: 'Send Message operations MAY be idempotent. Agents may utilize the messageId to detect duplicate messages.',
  level: 'convention' as const,
  role: 'harm' as const,
};

/** GetTask after a stream ended (§3.1.3): what a client may do to learn a task's final state. */
export const GET_TASK_AFTER_STREAM = {
  doc: 'A2A v1.0.1',
  section: '3.1.3',
  quote:
    'This is typically used for polling the status of a task initiated with Send Message, or for fetching the final state of a task after being notified via a push notification or after a stream has ended.',
};

/** The streaming operations, and the ones that send a message. */
export const STREAMS = new Set(['SendStreamingMessage', 'SubscribeToTask']);
export const SENDS = new Set(['SendMessage', 'SendStreamingMessage']);

/** Whether the card offers gRPC only: its streams are length-prefixed messages, no SSE. */
export const grpcOnly = (s: Situation): boolean => s.card.interfaces.length > 0 && s.card.interfaces.every((i) => i.protocolBinding === 'GRPC');
