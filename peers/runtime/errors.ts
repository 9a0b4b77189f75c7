/**
 * The A2A error model (spec §3.3.2), knowing no binding: each error by name, its standard message
 * and the `google.rpc.ErrorInfo` reason (§5.4 names the same errors in every binding). How a binding
 * spells one (a JSON-RPC code, an HTTP status, a gRPC status) is §5.4's table, peers/wires/error-map.ts.
 *
 * `invalidParams`, `methodNotFound` and `internal` are the request errors every binding has (§3.3.2:
 * "standard protocol errors"); errors of a binding's own envelope (JSON-RPC's -32700, -32600) are the
 * wire's alone.
 */
export const A2A_ERRORS = {
  methodNotFound: { message: 'Method not found', reason: undefined },
  invalidParams: { message: 'Invalid parameters', reason: undefined },
  internal: { message: 'Internal error', reason: undefined },
  taskNotFound: { message: 'Task not found', reason: 'TASK_NOT_FOUND' },
  taskNotCancelable: { message: 'Task cannot be canceled', reason: 'TASK_NOT_CANCELABLE' },
  pushNotSupported: { message: 'Push Notification is not supported', reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' },
  unsupportedOperation: { message: 'This operation is not supported', reason: 'UNSUPPORTED_OPERATION' },
  contentTypeNotSupported: { message: 'Incompatible content types', reason: 'CONTENT_TYPE_NOT_SUPPORTED' },
  versionNotSupported: { message: 'Version not supported', reason: 'VERSION_NOT_SUPPORTED' },
  extendedCardNotConfigured: { message: 'Extended agent card not configured', reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED' },
} as const;

export type A2AErrorName = keyof typeof A2A_ERRORS;

/** An A2A error an operation answers with; its wire encodes it (with the binding's own mapping of §5.4). */
export class A2AError extends Error {
  override readonly name = 'A2AError';
  constructor(
    readonly kind: A2AErrorName,
    readonly detail?: string,
    readonly metadata: Record<string, string> = {},
  ) {
    // A detail may quote the client (an unknown method name): kept short, whatever it sent.
    super(detail === undefined ? A2A_ERRORS[kind].message : detail.length > 200 ? `${detail.slice(0, 200)}… (${detail.length} characters)` : detail);
  }

  /** The human-readable message: the standard one, with the detail after it. */
  get text(): string {
    const standard = A2A_ERRORS[this.kind].message;
    return this.detail ? `${standard}: ${this.message}` : standard;
  }

  /** The `google.rpc.ErrorInfo` detail of an A2A-specific error (§9.5, §10.6, §11.6), or undefined for a standard one. */
  get errorInfo(): Record<string, unknown> | undefined {
    const reason = A2A_ERRORS[this.kind].reason;
    return reason ? { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason, domain: 'a2a-protocol.org', metadata: this.metadata } : undefined;
  }
}

/** A refusal outside the protocol, in plain HTTP (a 415 for a frame the batch-only input path cannot take, a 413 over a ceiling). */
export class HttpRefusal extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {
    super(text);
  }
}
