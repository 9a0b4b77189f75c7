/**
 * A2A v1.0 JSON-RPC errors (spec §5.4, §9.5): code, name, and the `google.rpc.ErrorInfo` reason
 * carried in `error.data`.
 */
export const A2A_ERRORS = {
  parse: { code: -32700, message: 'Invalid JSON payload', reason: undefined },
  invalidRequest: { code: -32600, message: 'Request payload validation error', reason: undefined },
  methodNotFound: { code: -32601, message: 'Method not found', reason: undefined },
  invalidParams: { code: -32602, message: 'Invalid parameters', reason: undefined },
  internal: { code: -32603, message: 'Internal error', reason: undefined },
  taskNotFound: { code: -32001, message: 'Task not found', reason: 'TASK_NOT_FOUND' },
  taskNotCancelable: { code: -32002, message: 'Task cannot be canceled', reason: 'TASK_NOT_CANCELABLE' },
  pushNotSupported: { code: -32003, message: 'Push Notification is not supported', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  unsupportedOperation: { code: -32004, message: 'This operation is not supported', reason: 'UNSUPPORTED_OPERATION' },
  contentTypeNotSupported: { code: -32005, message: 'Incompatible content types', reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  versionNotSupported: { code: -32009, message: 'Version not supported', reason: 'VERSION_NOT_SUPPORTED' },
  extendedCardNotConfigured: { code: -32007, message: 'Extended agent card not configured', reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' },
} as const;

export type A2AErrorName = keyof typeof A2A_ERRORS;

export class RpcError extends Error {
  override readonly name = 'RpcError';
  constructor(
    readonly kind: A2AErrorName,
    readonly detail?: string,
    readonly metadata: Record<string, string> = {},
  ) {
    // A detail may quote the client (an unknown method name): kept short, whatever it sent.
    super(detail === undefined ? A2A_ERRORS[kind].message : detail.length > 200 ? `${detail.slice(0, 200)}… (${detail.length} characters)` : detail);
  }

  toJson(): { code: number; message: string; data?: unknown[] } {
    const spec = A2A_ERRORS[this.kind];
    return {
      code: spec.code,
      message: this.detail ? `${spec.message}: ${this.message}` : spec.message,
      ...(spec.reason
        ? { data: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: spec.reason, domain: 'a2a-protocol.org', metadata: this.metadata }] }
        : {}),
    };
  }
}
