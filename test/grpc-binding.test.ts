/**
 * The gRPC binding's service (harness/core/protocol/grpc-service.ts) over a real TLS listener on
 * 127.0.0.1 (HTTP/2, the run's test CA): a unary call and a server stream carry ProtoJSON objects
 * both ways, the client's metadata (A2A-Version) reaches the server, and an A2A error arrives as its
 * gRPC status with the google.rpc.ErrorInfo of §10.6.
 */
import {
  credentials,
  Metadata,
  makeGenericClientConstructor,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceError,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePki, type Pki } from '../harness/pki/index.js';
import { a2aGrpcService, GRPC_STATUS_DETAILS } from '../harness/core/protocol/grpc-service.js';
import { decodeGrpcStatus, encodeGrpcStatus } from '../harness/core/protocol/proto-wire.js';

type Json = Record<string, unknown>;
type Unary = (req: Json, md: Metadata, cb: (err: ServiceError | null, res?: Json) => void) => void;
type Streaming = (req: Json, md: Metadata) => NodeJS.ReadableStream;

const task = (id: string, state: string) => ({ id, contextId: 'ctx', status: { state } });

describe('the gRPC binding: lf.a2a.v1.A2AService over TLS on 127.0.0.1', () => {
  let pki: Pki;
  let server: Server;
  let client: Record<string, Unary | Streaming> & { close(): void };
  const seen: Array<{ method: string; version: string | undefined; request: Json }> = [];

  beforeAll(async () => {
    pki = await makePki();
    server = new Server();
    const meta = (call: { metadata: Metadata }) => call.metadata.get('a2a-version')[0]?.toString();
    server.addService(a2aGrpcService(), {
      SendMessage: (call: ServerUnaryCall<Json, Json>, cb: sendUnaryData<Json>) => {
        seen.push({ method: 'SendMessage', version: meta(call), request: call.request });
        cb(null, { task: task('task-1', 'TASK_STATE_SUBMITTED') });
      },
      SendStreamingMessage: (call: ServerWritableStream<Json, Json>) => {
        seen.push({ method: 'SendStreamingMessage', version: meta(call), request: call.request });
        call.write({ task: task('task-2', 'TASK_STATE_WORKING') });
        call.write({ statusUpdate: { taskId: 'task-2', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' } } });
        call.end();
      },
      GetTask: (call: ServerUnaryCall<Json, Json>, cb: sendUnaryData<Json>) => {
        const trailer = new Metadata();
        trailer.set(
          GRPC_STATUS_DETAILS,
          Buffer.from(encodeGrpcStatus(status.NOT_FOUND, 'Task not found', 'TASK_NOT_FOUND', { taskId: String(call.request.id) })),
        );
        cb({ code: status.NOT_FOUND, details: 'Task not found', metadata: trailer });
      },
    });
    const port = await new Promise<number>((done, fail) =>
      server.bindAsync(
        '127.0.0.1:0',
        ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(pki.server.cert), private_key: Buffer.from(pki.server.key) }], false),
        (err, p) => (err ? fail(err) : done(p)),
      ),
    );
    const Client = makeGenericClientConstructor(a2aGrpcService(), 'A2AService');
    client = new Client(`127.0.0.1:${port}`, credentials.createSsl(Buffer.from(pki.testCa.cert))) as never;
  });

  afterAll(async () => {
    client?.close();
    await new Promise<void>((done) => (server ? server.tryShutdown(() => done()) : done()));
  });

  const withVersion = () => {
    const md = new Metadata();
    md.set('A2A-Version', '1.0');
    return md;
  };

  it('a unary call: the request and the answer are ProtoJSON, and A2A-Version travels as metadata', async () => {
    const request = {
      tenant: 'acme',
      message: { messageId: 'm-1', role: 'ROLE_USER', parts: [{ text: 'hi' }] },
      configuration: { acceptedOutputModes: ['text/plain'], returnImmediately: true },
    };
    const answer = await new Promise<Json | undefined>((done, fail) =>
      (client.SendMessage as Unary)(request, withVersion(), (err, res) => (err ? fail(err) : done(res))),
    );
    expect(answer).toEqual({ task: task('task-1', 'TASK_STATE_SUBMITTED') });
    expect(seen.find((s) => s.method === 'SendMessage')).toEqual({ method: 'SendMessage', version: '1.0', request });
  });

  it('a server stream: the task first, then its events, in order', async () => {
    const events: Json[] = [];
    const stream = (client.SendStreamingMessage as Streaming)({ message: { messageId: 'm-2', role: 'ROLE_USER', parts: [{ text: 'go' }] } }, withVersion());
    for await (const e of stream) events.push(e as unknown as Json);
    expect(events).toEqual([
      { task: task('task-2', 'TASK_STATE_WORKING') },
      { statusUpdate: { taskId: 'task-2', contextId: 'ctx', status: { state: 'TASK_STATE_COMPLETED' } } },
    ]);
  });

  it('an A2A error: the gRPC status of §5.4 and a google.rpc.ErrorInfo of domain a2a-protocol.org (§10.6)', async () => {
    const err = await new Promise<ServiceError>((done) => (client.GetTask as Unary)({ id: 'nope' }, withVersion(), (e) => done(e!)));
    expect(err.code).toBe(status.NOT_FOUND);
    const details = decodeGrpcStatus(err.metadata.get(GRPC_STATUS_DETAILS)[0] as Buffer);
    expect(details).toEqual({
      code: status.NOT_FOUND,
      message: 'Task not found',
      errorInfo: { reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org', metadata: { taskId: 'nope' } },
    });
  });
});
