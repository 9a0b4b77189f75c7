/**
 * The A2A errors as the reference client names them whatever the binding: by the code of §5.4's
 * JSON-RPC column, which its engine compares (-32004 UnsupportedOperation, …). HTTP+JSON (§11.6) and
 * gRPC (§10.6) carry the same error as a google.rpc.ErrorInfo whose `reason` is the error type in
 * UPPER_SNAKE_CASE without "Error"; this table reads a reason back into that code.
 */
export type A2AErrorCode = number;

const BY_REASON: Readonly<Record<string, A2AErrorCode>> = {
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
};

/** The code of an ErrorInfo reason, or undefined for a reason that is no A2A error. */
export const codeOfReason = (reason: string): A2AErrorCode | undefined => BY_REASON[reason];
