/**
 * The A2A service of the gRPC binding (spec §10.3: `lf.a2a.v1.A2AService`) as @grpc/grpc-js takes
 * a service: each method's path, whether it answers with a stream, and how its messages go to bytes
 * and back. Messages are ProtoJSON on both sides (proto-wire.ts), so a gRPC server or client here
 * handles the same objects as the JSON bindings.
 */
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';
import { V1_METHODS } from './proto-v1.js';
import { decodeV1, encodeV1, V1_SERVICE } from './proto-wire.js';

/** The metadata key of a gRPC error's google.rpc.Status (§10.6), as gRPC implementations name it. */
export const GRPC_STATUS_DETAILS = 'grpc-status-details-bin';

/** The A2A service: every method of V1_METHODS, by name. */
export function a2aGrpcService(): ServiceDefinition {
  const service: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const m of V1_METHODS)
    service[m.name] = {
      path: `/${V1_SERVICE}/${m.name}`,
      originalName: m.name,
      requestStream: false,
      responseStream: m.stream,
      requestSerialize: (json: unknown) => Buffer.from(encodeV1(m.request, json)),
      requestDeserialize: (bytes: Buffer) => decodeV1(m.request, bytes),
      responseSerialize: (json: unknown) => Buffer.from(encodeV1(m.response, json)),
      responseDeserialize: (bytes: Buffer) => decodeV1(m.response, bytes),
    };
  return service as ServiceDefinition;
}
