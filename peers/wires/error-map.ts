/**
 * Spec §5.4 ("Error Code Mappings") as one table every wire reads: each A2A error the peers answer
 * with, by its JSON-RPC code (§9.5), its gRPC status (§10.6) and its HTTP status with the
 * `google.rpc.Code` name that status stands for (§11.6). The three request errors every binding has
 * (§3.3.2's "standard protocol errors": an unknown method, invalid parameters, an internal error) are
 * rows too, by JSON-RPC's standard codes and the gRPC and HTTP statuses §10.6 and §11.6 give them.
 *
 * The JSON-RPC column is also the neutral id every wire records (`ev.rpcError.code`), whatever its
 * binding answered, so the rules compare one id on every binding. A new binding adds its column here
 * only where it is one of the spec's; a binding of its own (a test's toy) reads the column it maps
 * from. The reference client keeps its own reading of these codes (clients/common/binding-errors.ts):
 * the peers and the client under test never share a table that would hide the same mistake twice.
 */
import type { GRPC_STATUS } from '../../harness/core/protocol/grpc-frame.js';
import type { A2AErrorName } from '../runtime/errors.js';

export interface ErrorMapping {
  /** §5.4's JSON-RPC column (and §9.5's standard codes): the neutral id. */
  jsonRpc: number;
  /** §5.4's gRPC column: a status by name. */
  grpc: keyof typeof GRPC_STATUS;
  /** §5.4's HTTP column, and the google.rpc.Code the status stands for (§11.6). */
  http: readonly [status: number, code: string];
}

export const ERROR_MAP: Readonly<Record<A2AErrorName, ErrorMapping>> = {
  methodNotFound: { jsonRpc: -32601, grpc: 'UNIMPLEMENTED', http: [404, 'NOT_FOUND'] },
  invalidParams: { jsonRpc: -32602, grpc: 'INVALID_ARGUMENT', http: [400, 'INVALID_ARGUMENT'] },
  internal: { jsonRpc: -32603, grpc: 'INTERNAL', http: [500, 'INTERNAL'] },
  taskNotFound: { jsonRpc: -32001, grpc: 'NOT_FOUND', http: [404, 'NOT_FOUND'] },
  taskNotCancelable: { jsonRpc: -32002, grpc: 'FAILED_PRECONDITION', http: [400, 'FAILED_PRECONDITION'] },
  pushNotSupported: { jsonRpc: -32003, grpc: 'FAILED_PRECONDITION', http: [400, 'FAILED_PRECONDITION'] },
  unsupportedOperation: { jsonRpc: -32004, grpc: 'FAILED_PRECONDITION', http: [400, 'FAILED_PRECONDITION'] },
  contentTypeNotSupported: { jsonRpc: -32005, grpc: 'INVALID_ARGUMENT', http: [400, 'INVALID_ARGUMENT'] },
  extendedCardNotConfigured: { jsonRpc: -32007, grpc: 'FAILED_PRECONDITION', http: [400, 'FAILED_PRECONDITION'] },
  versionNotSupported: { jsonRpc: -32009, grpc: 'FAILED_PRECONDITION', http: [400, 'FAILED_PRECONDITION'] },
};

/** Each error's neutral id (the JSON-RPC column). */
export const JSONRPC_CODES: Readonly<Record<A2AErrorName, number>> = Object.fromEntries(
  Object.entries(ERROR_MAP).map(([name, m]) => [name, m.jsonRpc]),
) as Record<A2AErrorName, number>;
