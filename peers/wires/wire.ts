/**
 * The one interface every wire implements: a protocol binding (spec §5) in one dialect, between an
 * interface's requests and the neutral runtime (peers/runtime/). A wire decodes a request into an
 * operation and its params (neutral names and shapes: v1.0's, §3.1 and §4), and encodes what the
 * runtime answers: a result, an A2A error (with its binding's own mapping of §5.4), a stream event,
 * a push notification's body. It knows no task, no card, no scenario; the runtime knows no wire.
 * Wires are registered in one place (./index.ts); a wire imports no other wire (a module both
 * JSON-RPC wires share, ./jsonrpc/, is no wire).
 *
 * The endpoint in front of the runtime (peers/endpoint.ts) is the same for every wire: the event of
 * the request, the scripted incidents (busy, slow, cut), the size ceiling, the A2A-Version check
 * (where the wire reads a version), the operation, the answer the wire encodes.
 *
 * The bindings:
 *
 * - JSON-RPC (§9; v0.3.0 §6 for v0.3): `routes: 'exact'` (POST at the interface URL), the envelope of
 *   ./jsonrpc/ around the operation's params and result, errors by §5.4's JSON-RPC column.
 * - HTTP+JSON v1.0 (§11, ./httpjson-v1/, at `{{restUrl}}` = the run's RPC base + `/rest`): `routes:
 *   'below'` (the endpoint answers every HTTP method at paths under the interface URL, and tells the
 *   wire that URL: `WireRequest.interfaceUrl`); `decode` maps verb and path to the operation by the
 *   proto's `google.api.http` routes, each also under a `/{tenant}` prefix (`POST /message:send` →
 *   SendMessage, `GET /tasks/{id}` → GetTask with `historyLength` from the query, typed as §11.5 says;
 *   `GET` or `POST /tasks/{id}:subscribe`; `DELETE /tasks/{taskId}/pushNotificationConfigs/{id}`…), the
 *   body being the ProtoJSON request as is, the path's fields over it (a body naming another value of
 *   one is refused); a path it has no operation for is a 404 refusal, a known path with another verb
 *   a 405 with `Allow`, a body that is not JSON a 400, each a `google.rpc.Status`. `result` answers 200 with the ProtoJSON response as the body
 *   (`application/a2a+json`); `error` maps the A2AError by §5.4's HTTP column (TaskNotFound 404, the
 *   FAILED_PRECONDITION ones 400…) into a `google.rpc.Status` body with the ErrorInfo in `details`
 *   (§11.6), the transcript keeping §5.4's JSON-RPC code as the neutral id; `frame` is `data:
 *   <StreamResponse>` (SSE, §11.7); `pushBody` is the identity. `version` from the `A2A-Version`
 *   header (§11.2). The route's template is the call's `wireMethod` (`GET /{tenant}/tasks/{id}`).
 * - gRPC v1.0 (§10), served (./grpc-v1/): `routes: 'below'` (`POST /lf.a2a.v1.A2AService/<Method>`
 *   under the card's `{{grpcUrl}}`, the origin of the peer host's HTTP/2 listener of the RPC
 *   listener's TLS kind, ./grpc-v1/host.ts); `decode` takes the method from the path and the
 *   params from the one length-prefixed protobuf message of `bytes` (ProtoJSON again through
 *   harness/core/protocol/proto-wire.ts), the service parameters from the metadata (`a2a-version`,
 *   `a2a-extensions`, §10.2); `result` and `frame` are length-prefixed messages (server streaming,
 *   §10.7); `error` maps by §5.4's gRPC column. A gRPC Response carries the call's trailers among its
 *   headers: `grpc-status`, `grpc-message` (percent-encoded) and `grpc-status-details-bin` (a
 *   google.rpc.Status with the ErrorInfo, §10.6, base64); the listener sends them as HTTP/2 trailers
 *   after the messages, or as a trailers-only answer where there is none, and turns any Response that
 *   is not gRPC (a gate's 401, a scripted 503) into the gRPC status HTTP's maps to.
 *
 * A binding is then one folder under peers/wires/ and one entry in ./index.ts (its dialect, and the card
 * placeholder of its interface URL).
 */
import type { Dialect } from '../../harness/core/protocol/types.js';
import type { A2AError } from '../runtime/errors.js';
import type { CallRecord } from '../runtime/record.js';

export type Params = Record<string, unknown>;

/** A request as an interface received it. */
export interface WireRequest {
  method: string;
  url: URL;
  headers: Headers;
  /** The body as received, as text (UTF-8). */
  body: string;
  /** The body's bytes as received (a binary binding's body: gRPC's length-prefixed protobuf). */
  bytes: Uint8Array;
  /** The URL of the interface the request came to (the card's), where the endpoint or gate says it: a wire with routes 'below' reads the path below it. */
  interfaceUrl?: string;
}

/** A call a wire decoded: the operation, its neutral params, and what the wire read around them. */
export interface WireCall {
  /** The neutral operation (§3.1 names); a name the runtime has no operation for is its MethodNotFound. */
  op: string;
  params: Params;
  /** The binding's request id (JSON-RPC's `id`), which the wire's answers echo; null where it has none. */
  id: string | number | null;
  /** The method as the wire spelled it, where the dialect spells it otherwise than `op` (kept beside it). */
  wireMethod?: string;
  /** `A2A-Version` as sent (§3.6; null: not sent), or undefined where the dialect has no version to check (v0.3). */
  version?: string | null;
  /** The extensions the request opts into by service parameter (§3.2.6). */
  extensions: readonly string[];
}

/** A request the wire answers itself (it cannot be decoded, or names nothing the dialect has): its answer and what the transcript keeps. */
export interface WireRefusal {
  response: Response;
  /** The error as the transcript keeps it (JSON-RPC's code and message). */
  recorded?: { code: number; message: string };
  note?: string;
  /** The call as far as it was read, where it is kept. */
  call?: CallRecord;
}

/** An encoded error: the answer and the error as the transcript keeps it. */
export interface WireError {
  response: Response;
  recorded: { code: number; message: string };
}

export interface Wire {
  /** The dialect (harness/core/protocol/: the peer description's `dialect`, the client's hello). */
  readonly dialect: Dialect;
  /** The card's `protocolBinding` (§5.8): a standard binding's, or a custom binding's name (§12). */
  readonly binding: 'JSONRPC' | 'HTTP+JSON' | 'GRPC' | (string & {});
  /** The Major.Minor of the interfaces it serves (§3.6). */
  readonly protocolVersion: string;
  /** Where the endpoint listens: POST at the interface URL ('exact'), or any method at paths under it ('below'). */
  readonly routes: 'exact' | 'below';
  /** The dialect takes a push config request without the config's id (v0.3: the task's first). */
  readonly pushConfigIdOptional?: boolean;
  decode(req: WireRequest): { call: WireCall } | { refusal: WireRefusal };
  /** What a request names, read leniently, for a gate that answers in the endpoint's place (its call is evidence). */
  describe(req: WireRequest): CallRecord | undefined;
  /** A unary result; `activated`: the extensions the answer says it activated (§3.2.6). */
  result(call: WireCall, op: string, result: unknown, activated: readonly string[]): Response;
  error(call: Pick<WireCall, 'id'>, err: A2AError): WireError;
  /** One stream event (a StreamResponse, neutral) as its bytes in the stream: text (SSE) or bytes (gRPC). */
  frame(call: WireCall, event: Params): string | Uint8Array;
  /** The answer around a stream of frames. */
  stream(call: WireCall, body: ReadableStream<Uint8Array>): Response;
  /** A push notification's body, from the StreamResponse the runtime delivers (§4.3.3). */
  pushBody(event: Params): unknown;
}
