/**
 * The reference client's gRPC binding (A2A v1.0 §10) through @grpc/grpc-js: one channel per
 * interface origin, over TLS with the run's trust store and client certificate; the service
 * parameters as metadata (§10.2: `a2a-version`, `a2a-extensions`, `authorization`); unary calls and
 * server streams (§10.7) carrying ProtoJSON both ways (the service's codec, harness/core/protocol/).
 * An error comes back as its gRPC status with the google.rpc.Status of `grpc-status-details-bin`
 * read (§10.6), and the metadata a caller needs (`www-authenticate`, `retry-after`).
 */
import { type Client, type ClientReadableStream, credentials, Metadata, makeGenericClientConstructor, type ServiceError, status } from '@grpc/grpc-js';
import { a2aGrpcService, GRPC_STATUS_DETAILS } from '../../harness/core/protocol/grpc-service.js';
import { decodeGrpcStatus } from '../../harness/core/protocol/proto-wire.js';
import { codeOfReason } from './binding-errors.js';
import { type RpcOutcome, retryAfterMs } from './outcome.js';

type Json = Record<string, unknown>;

export type GrpcOutcome =
  | { ok: true; result: Json }
  | {
      ok: false;
      /** The gRPC status code (§10.6), the message, the A2A error reason where the status details carry one. */
      code: number;
      message: string;
      reason?: string;
      /** The response metadata a caller may need, lower-cased keys, text values only. */
      metadata: Record<string, string>;
    };

const SERVICE = a2aGrpcService();
const A2AClient = makeGenericClientConstructor(SERVICE, 'A2AService');

/** A ServiceError as an outcome: its status, the A2A reason of its details, its text metadata. */
function failure(err: ServiceError | Error): Extract<GrpcOutcome, { ok: false }> {
  const e = err as Partial<ServiceError>;
  const metadata: Record<string, string> = {};
  let reason: string | undefined;
  for (const [k, v] of Object.entries(e.metadata?.getMap() ?? {})) {
    if (k === GRPC_STATUS_DETAILS && Buffer.isBuffer(v)) {
      try {
        const info = decodeGrpcStatus(v).errorInfo;
        if (info?.domain === 'a2a-protocol.org') reason = info.reason;
      } catch {
        // details that are no google.rpc.Status: the code is the answer
      }
    } else if (typeof v === 'string') metadata[k] = v;
  }
  return { ok: false, code: e.code ?? status.UNKNOWN, message: e.details ?? e.message ?? String(err), ...(reason ? { reason } : {}), metadata };
}

export class GrpcChannel {
  private readonly client: Client;

  constructor(url: string, tls: { ca: string; cert: string; key: string }, insecure: boolean) {
    const u = new URL(url);
    const creds = credentials.createSsl(
      Buffer.from(tls.ca),
      Buffer.from(tls.key),
      Buffer.from(tls.cert),
      insecure ? { rejectUnauthorized: false, checkServerIdentity: () => undefined } : {},
    );
    this.client = new A2AClient(`${u.hostname}:${u.port || 443}`, creds) as unknown as Client;
  }

  private metadataOf(headers: Record<string, string>): Metadata {
    const md = new Metadata();
    for (const [k, v] of Object.entries(headers)) md.set(k.toLowerCase(), v);
    return md;
  }

  private definition(op: string) {
    const def = (SERVICE as Record<string, (typeof SERVICE)[string] | undefined>)[op];
    if (!def) throw new Error(`no gRPC method ${op}`);
    return def;
  }

  /** One unary call; aborted with the run's signal. */
  unary(op: string, params: Json, headers: Record<string, string>, signal: AbortSignal): Promise<GrpcOutcome> {
    const def = this.definition(op);
    return new Promise((resolve) => {
      const call = this.client.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        params,
        this.metadataOf(headers),
        {},
        (err: ServiceError | null, value?: unknown) => {
          signal.removeEventListener('abort', cancel);
          resolve(err ? failure(err) : { ok: true, result: (value ?? {}) as Json });
        },
      );
      const cancel = () => call.cancel();
      signal.addEventListener('abort', cancel, { once: true });
    });
  }

  /** A server stream: yields each StreamResponse; returns the failure that ended it, or undefined when it closed with OK. */
  async *stream(op: string, params: Json, headers: Record<string, string>, signal: AbortSignal): AsyncGenerator<Json, GrpcOutcome | undefined> {
    const def = this.definition(op);
    const call: ClientReadableStream<unknown> = this.client.makeServerStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      params,
      this.metadataOf(headers),
      {},
    );
    const cancel = () => call.cancel();
    signal.addEventListener('abort', cancel, { once: true });
    let ended = false;
    try {
      for await (const event of call) yield event as Json;
      ended = true;
      return undefined;
    } catch (err) {
      ended = true;
      if (signal.aborted) throw err;
      return failure(err as ServiceError);
    } finally {
      signal.removeEventListener('abort', cancel);
      // The caller left early (an event ended its call): the stream is canceled, not left open.
      if (!ended) call.cancel();
    }
  }

  close(): void {
    this.client.close();
  }
}

/** gRPC statuses of no A2A error that name a JSON-RPC standard error (the engine reads those codes). */
const GRPC_STANDARD: Readonly<Record<number, number>> = { 3: -32602, 12: -32601, 13: -32603 };

/**
 * A gRPC outcome as the engine reads outcomes: an A2A error by the reason of its details (§10.6) and
 * §5.4's JSON-RPC code; UNAUTHENTICATED (16) and PERMISSION_DENIED (7) as the 401 and 403 they stand
 * for, with the challenge; UNAVAILABLE (14) with a Retry-After as the 503 it stands for, without as the
 * network failure it is; a stream reset mid-answer as a cut answer.
 */
export function fromGrpc(o: GrpcOutcome): RpcOutcome {
  if (o.ok) return o;
  const code = o.reason ? codeOfReason(o.reason) : undefined;
  if (code !== undefined) return { ok: false, kind: 'rpc', code, message: o.message };
  const challenge = o.metadata['www-authenticate'];
  if (o.code === 16) return { ok: false, kind: 'http', status: 401, text: o.message, ...(challenge ? { challenge } : {}) };
  if (o.code === 7) return { ok: false, kind: 'http', status: 403, text: o.message };
  const wait = retryAfterMs(o.metadata['retry-after']);
  if (o.code === 14 && wait !== undefined) return { ok: false, kind: 'http', status: 503, text: o.message, retryAfterMs: wait };
  if ((o.code === 13 || o.code === 14) && /RST_STREAM|Connection dropped|closed|premature/i.test(o.message))
    return { ok: false, kind: 'cut', status: 200, code: `GRPC_${o.code}`, message: o.message };
  const standard = GRPC_STANDARD[o.code];
  if (standard !== undefined) return { ok: false, kind: 'rpc', code: standard, message: o.message };
  return { ok: false, kind: 'network', code: `GRPC_${o.code}`, message: o.message };
}
