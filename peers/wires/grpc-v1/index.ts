/**
 * A2A v1.0 over gRPC (spec §10): `POST /lf.a2a.v1.A2AService/<Method>` with one length-prefixed
 * protobuf message as the body (the request of V1_METHODS' method, read to ProtoJSON: the neutral
 * params), service parameters from the metadata (`a2a-version`, `a2a-extensions`, §10.2). Answers
 * are `200 application/grpc` with length-prefixed messages (one for a unary call; the stream's
 * StreamResponses one by one, §10.7), and the call's trailers among the Response's headers:
 * `grpc-status`, `grpc-message` (percent-encoded), `grpc-status-details-bin` (a google.rpc.Status
 * with the A2A error's ErrorInfo, §10.6). The peer host's HTTP/2 listener (./host.ts, its transport)
 * sends those as real trailers (or as a trailers-only answer where no message came first).
 *
 * Errors by §5.4's gRPC column; the transcript keeps an error's neutral code (the JSON-RPC column,
 * peers/wires/error-map.ts) and the listener adds the gRPC status it sent. A path that
 * names no method of the service is UNIMPLEMENTED (recorded as -32601), a body that is not one whole
 * message of the method's request type INVALID_ARGUMENT (recorded as -32602), a compressed message by
 * gRPC's compression rules (UNIMPLEMENTED with `grpc-accept-encoding: identity`; INTERNAL where no
 * encoding is named).
 */
import { HttpResponse } from 'msw';
import { binHeader, encodeGrpcMessage, GRPC_STATUS, grpcFrame, readFrames } from '../../../harness/core/protocol/grpc-frame.js';
import { V1_METHODS } from '../../../harness/core/protocol/proto-v1.js';
import { decodeV1, encodeGrpcStatus, encodeV1, V1_SERVICE } from '../../../harness/core/protocol/proto-wire.js';
import { type A2AError, A2A_ERRORS } from '../../runtime/errors.js';
import { ERROR_MAP, JSONRPC_CODES } from '../error-map.js';
import type { CallRecord } from '../../runtime/record.js';
import type { Params, Wire, WireRefusal, WireRequest } from '../wire.js';

type Method = (typeof V1_METHODS)[number];

const PREFIX = `/${V1_SERVICE}/`;

/** The method a path names (`/lf.a2a.v1.A2AService/GetTask`), if the service has it. */
const methodAt = (path: string): Method | undefined => (path.startsWith(PREFIX) ? V1_METHODS.find((m) => m.name === path.slice(PREFIX.length)) : undefined);
const methodNamed = (op: string): Method | undefined => V1_METHODS.find((m) => m.name === op);

const GRPC_HEADERS = { 'content-type': 'application/grpc' };

/** A call's end without a message: a trailers-only answer (status, percent-encoded message, and the google.rpc.Status where there is one). */
function statusResponse(code: number, message: string, details?: Uint8Array, metadata: Record<string, string> = {}): Response {
  return new HttpResponse(null, {
    status: 200,
    headers: {
      ...GRPC_HEADERS,
      ...metadata,
      'grpc-status': String(code),
      'grpc-message': encodeGrpcMessage(message),
      ...(details ? { 'grpc-status-details-bin': binHeader(details) } : {}),
    },
  });
}

/** The request's one message read to ProtoJSON, or why it cannot be. */
function readParams(method: Method, bytes: Uint8Array): { params: Params } | { error: string; compressed?: true } {
  const frames = readFrames(bytes);
  if ('error' in frames) return frames;
  if (frames.messages.length !== 1) return { error: `${frames.messages.length} messages in a unary request` };
  try {
    return { params: decodeV1(method.request, frames.messages[0]!) as Params };
  } catch (err) {
    return { error: `not a ${method.request}: ${(err as Error).message}` };
  }
}

const refusal = (code: number, neutral: number, message: string, call: CallRecord, metadata?: Record<string, string>): WireRefusal => ({
  response: statusResponse(code, message, undefined, metadata),
  recorded: { code: neutral, message },
  call,
});

/** The message encodings this server reads (gRPC's compression document): none but identity. */
const ACCEPT_ENCODING = 'identity';

/**
 * A request whose message is compressed, answered as gRPC's compression document (grpc/grpc
 * doc/compression.md) says: with an encoding the server does not support, UNIMPLEMENTED and a
 * `grpc-accept-encoding` naming what it accepts; with the compressed flag set but no `grpc-encoding`
 * other than identity, INTERNAL (an ill-constructed message).
 */
function compressedRefusal(encoding: string | null, call: CallRecord): WireRefusal {
  const named = (encoding ?? '').trim().toLowerCase();
  if (named === '' || named === 'identity')
    return refusal(GRPC_STATUS.INTERNAL, JSONRPC_CODES.internal, 'the Compressed-Flag is set, but grpc-encoding names no compression', call);
  return refusal(
    GRPC_STATUS.UNIMPLEMENTED,
    JSONRPC_CODES.methodNotFound,
    `the message is compressed with ${named.slice(0, 64)}, which this server does not support: it accepts ${ACCEPT_ENCODING}`,
    call,
    { 'grpc-accept-encoding': ACCEPT_ENCODING },
  );
}

/** A comma-separated metadata value (several values of one key arrive joined). */
const listParam = (value: string | null): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

export const grpcV1: Wire = {
  dialect: 'a2a-v1',
  binding: 'GRPC',
  protocolVersion: '1.0',
  routes: 'below',
  decode(req) {
    const path = req.url.pathname;
    const method = methodAt(path);
    const wireMethod = `${path.length <= 200 ? path : `${path.slice(0, 200)}…`}`;
    if (!method || req.method !== 'POST') {
      const what = method ? `${req.method} ${path}` : path;
      return {
        refusal: refusal(GRPC_STATUS.UNIMPLEMENTED, JSONRPC_CODES.methodNotFound, `${A2A_ERRORS.methodNotFound.message}: ${what}`, {
          method: method?.name ?? wireMethod,
          id: null,
          params: {},
          wireMethod,
        }),
      };
    }
    const read = readParams(method, req.bytes);
    if ('error' in read && read.compressed)
      return { refusal: compressedRefusal(req.headers.get('grpc-encoding'), { method: method.name, id: null, params: {}, wireMethod }) };
    if ('error' in read)
      return {
        refusal: refusal(GRPC_STATUS.INVALID_ARGUMENT, JSONRPC_CODES.invalidParams, `${A2A_ERRORS.invalidParams.message}: ${read.error}`, {
          method: method.name,
          id: null,
          params: {},
          wireMethod,
        }),
      };
    return {
      call: {
        op: method.name,
        params: read.params,
        id: null,
        wireMethod,
        version: req.headers.get('a2a-version'),
        extensions: listParam(req.headers.get('a2a-extensions')),
      },
    };
  },
  describe(req: WireRequest) {
    const method = methodAt(req.url.pathname);
    if (!method) return undefined;
    const read = readParams(method, req.bytes);
    return { method: method.name, id: null, params: 'params' in read ? read.params : {}, wireMethod: req.url.pathname };
  },
  result(_call, op, result, activated) {
    const method = methodNamed(op);
    if (!method) throw new Error(`[harness] the gRPC wire has no method ${op}`);
    return new HttpResponse(grpcFrame(encodeV1(method.response, result ?? {})), {
      status: 200,
      headers: { ...GRPC_HEADERS, 'grpc-status': '0', ...(activated.length ? { 'a2a-extensions': activated.join(', ') } : {}) },
    });
  },
  error(_call, err: A2AError) {
    const code = GRPC_STATUS[ERROR_MAP[err.kind].grpc];
    const reason = A2A_ERRORS[err.kind].reason;
    const details = reason ? encodeGrpcStatus(code, err.text, reason, err.metadata) : undefined;
    return { response: statusResponse(code, err.text, details), recorded: { code: JSONRPC_CODES[err.kind], message: err.text } };
  },
  frame: (_call, event) => grpcFrame(encodeV1('StreamResponse', event)),
  stream: (_call, body) => new HttpResponse(body, { status: 200, headers: { ...GRPC_HEADERS, 'grpc-status': '0' } }),
  pushBody: (event) => event,
};
