/**
 * A strict decoder, for the naive client's mistake `rejects-unknown-fields`: each v1.0 answer read as
 * its response message's ProtoJSON by a protobuf JSON parser left at its default, which refuses any
 * member the message does not define (protobuf-es `fromJson` without `ignoreUnknownFields`, as
 * Python's `json_format.Parse` without `ignore_unknown_fields`). A2A v1.0.1 §5.7 asks the opposite.
 */
import { encodeV1 } from '../../harness/core/protocol/proto-wire.js';
import type { RpcOutcome } from './outcome.js';

/** The response message of each operation (a2a.proto's service). */
const RESPONSE_OF: Record<string, string> = {
  SendMessage: 'SendMessageResponse',
  SendStreamingMessage: 'StreamResponse',
  SubscribeToTask: 'StreamResponse',
  GetTask: 'Task',
  CancelTask: 'Task',
  ListTasks: 'ListTasksResponse',
  CreateTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  GetTaskPushNotificationConfig: 'TaskPushNotificationConfig',
  ListTaskPushNotificationConfigs: 'ListTaskPushNotificationConfigsResponse',
  GetExtendedAgentCard: 'AgentCard',
};

export class StrictDecodeError extends Error {}

/** Throws a StrictDecodeError where the answer holds a member its message does not define. */
export function strictDecode(method: string, result: unknown): void {
  const name = RESPONSE_OF[method];
  if (!name) return;
  try {
    encodeV1(name, result);
  } catch (err) {
    throw new StrictDecodeError(`${method}: the answer does not decode as ${name} (${(err as Error).message})`);
  }
}

/** A unary outcome read strictly: an answer that does not decode becomes a failed call, saying why. */
export function strictly(method: string, out: RpcOutcome): RpcOutcome {
  if (!out.ok) return out;
  try {
    strictDecode(method, out.result);
    return out;
  } catch (err) {
    return { ok: false, kind: 'http', status: 200, text: (err as Error).message };
  }
}
