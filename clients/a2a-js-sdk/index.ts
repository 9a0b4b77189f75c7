/**
 * `--client a2a-js-sdk`: the real @a2a-js/sdk 1.3.0 client, used the way an application uses it
 * (ClientFactory → createFromUrl → sendMessage / getTask / cancelTask), so the harness measures the
 * library, not us.
 *
 * The glue policy is fixed and published (README, "@a2a-js/sdk under test"):
 * - follow the intent literally: send what it says (live frames one message each, a bufferable
 *   input as one payload), ask for push when it prefers push and the profile has a receiver (with
 *   Bearer credentials the receiver checks, spec §4.3.3), stream when it prefers streaming, poll
 *   otherwise;
 * - add no gate of ours: no card check before sending beyond what the SDK does itself;
 * - where the profile requires signed cards, verify the card with the SDK's own verifier
 *   (`client.getAgentCard(undefined, verifyAgentCardSignature(...))`), handing it the key whose
 *   `kid` the trusted JWKS documents list, as an application with a trust store would; a `jku` is
 *   not followed, and the key's `x5c` window is not checked (the SDK does neither; nor do we for it);
 * - an SDK error thrown before any task exists is reported as `rejected` (errorClass `handshake`);
 *   after a task exists, as `proceeded` with the error in the notes; a stream that fails after its
 *   task exists is followed up with GetTask, as an application holding the task id would;
 * - like any application with a deadline, cancel a task that has not finished in time;
 * - where the run provisions OAuth 2.0 client credentials (the auth peers of docs/duties.md §9), authenticate through the
 *   SDK's own hook, as an application with a configured client would: `createAuthenticatingFetchWithRetry`
 *   around the transport's fetch, with an `AuthenticationHandler` that presents a Bearer token from
 *   the provisioned token endpoint (client credentials grant, by `oauth4webapi`) on every request and,
 *   on a 401 whose challenge names Bearer, gets a new token for the SDK's one retry. The card is
 *   fetched without it.
 * - the SDK's own transports for every binding it has: JSON-RPC and HTTP+JSON (RestTransportFactory)
 *   through the fetch below, gRPC (GrpcTransportFactory, @a2a-js/sdk/client/grpc) with gRPC channel
 *   credentials of the same trust store and client certificate; the SDK's ClientFactory picks the
 *   interface (no preferred transports configured, so the card's order) and applies its tenant.
 * TLS: the application hands the SDK a fetch that trusts the harness CA and presents the client
 * certificate (an undici Agent as dispatcher), the only way to do either with this SDK over HTTP.
 */
import { randomUUID } from 'node:crypto';
import {
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type AuthenticationHandler,
} from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { credentials } from '@grpc/grpc-js';
import { Role, TaskState, verifyAgentCardSignature } from '@a2a-js/sdk';
import type { GlueChoice } from '../../harness/core/protocol/types.js';
import type { ClientAdapter } from '../../harness/core/protocol/adapter.js';
import type { ClientReport, RunRequest } from '../../harness/core/protocol/types.js';
import { errorText, sdkFetch } from '../common/sdk-glue.js';
import { PushReceiver } from '../common/push-receiver.js';

/**
 * The verdicts that follow from a choice of this glue, not of the SDK: the report names the glue
 * beside them (README, "@a2a-js/sdk under test", says which party each verdict blames).
 */
export const SDK_GLUE: GlueChoice[] = [
  {
    scenarios: ['trust-kid/expired', 'trust-kid/not-yet-valid'],
    note: "glue: the key callback hands the SDK's verifier the key the trusted JWKS lists for the kid and checks no x5c validity window; the SDK's verifier takes a key, not a window, so the window is the application's to check, and this glue does not",
  },
  {
    scenarios: ['trust-signature/key-store-busy'],
    note: "glue: the key callback fetches each trusted JWKS once and takes a 503 for no key; the SDK's verifier takes a key from the callback, so waiting out the key store's Retry-After is the application's to write, and this glue does not",
  },
  {
    scenarios: ['neg-live-input/*', 'neg-escalate/*'],
    note: 'glue: live input goes as one message per frame, as the intent says (the SDK has no notion of live input or of buffering it), and a frame the agent refuses ends the run without a cancel of the task it left waiting',
  },
  {
    scenarios: ['neg-push-mtls/https-receiver-wants-push'],
    note: 'glue: push is registered whenever the intent prefers it and the profile has a receiver; the SDK registers what the application asks, and reads no mTLS signal for it',
  },
  {
    scenarios: ['hs-aspirational/push-not-supported', 'hs-split-origin/stale-*'],
    note: "glue: an SDK error ends the run (rejected before a task; after one, the task canceled and proceeded reported); falling back to polling, or probing first, is the application's to write",
  },
  {
    scenarios: ['push-auth/*', 'push-task/*', 'push-receipt/*'],
    note: "glue: the webhook receiver is this glue's (the SDK has none): it takes a delivery only with the token and Bearer credentials the glue registered and answers 200, and the glue follows the task with getTask, reading no delivery; the SDK's part is the push config it sends",
  },
  {
    scenarios: ['wire/rate-limited-poll*'],
    note: "glue: an SDK error while the task is followed ends the run and leaves the task as it is; the SDK throws on a 429 without its Retry-After, and waiting it out is the application's to write",
  },
  {
    scenarios: ['stream-recovery/cut-before-first-event'],
    note: "glue: an SDK error before any task is reported as rejected; a stream cut before its first event leaves the SDK no task id, and finding the task the message minted (listTasks, by the message) is the application's to write",
  },
];

export const SDK_VERSION = '1.3.0';
const TERMINAL = new Set<number>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);
const MARGIN_MS = 800;

const describe = errorText;

async function runWithSdk(req: RunRequest, signal: AbortSignal): Promise<ClientReport> {
  const started = Date.now();
  const left = () => req.deadlineMs - MARGIN_MS - (Date.now() - started);
  // TLS as the run hands it over; the application's auth through the SDK's hook (glue policy above).
  const { agent, fetchImpl, rpcFetch, pem } = await sdkFetch(req, signal, (f, h) => createAuthenticatingFetchWithRetry(f, h as AuthenticationHandler));
  const taskIds: string[] = [];
  let receiver: PushReceiver | undefined;
  const done = (decision: ClientReport['decision'], notes: string, errorClass?: ClientReport['errorClass']): ClientReport => ({
    decision,
    ...(errorClass ? { errorClass } : {}),
    degradations: [],
    taskIds,
    notes: `@a2a-js/sdk ${SDK_VERSION}: ${notes}`,
  });
  try {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [
          new JsonRpcTransportFactory({ fetchImpl: rpcFetch }),
          new RestTransportFactory({ fetchImpl: rpcFetch }),
          new GrpcTransportFactory({ grpcChannelCredentials: credentials.createSsl(Buffer.from(pem.ca), Buffer.from(pem.key), Buffer.from(pem.cert)) }),
        ],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    let client: Awaited<ReturnType<typeof factory.createFromUrl>>;
    try {
      client = await factory.createFromUrl(req.cardUrl, '');
    } catch (err) {
      return done('rejected', `createFromUrl failed: ${describe(err)}`, 'handshake');
    }

    const { intent, profile } = req;
    if (profile.requireSignedCards) {
      // The application's trust store: the JWKS documents the profile trusts, fetched over the same TLS.
      const verifier = verifyAgentCardSignature(async (kid) => {
        for (const url of profile.trustedJwks) {
          const res = await fetchImpl(url);
          const jwks = (await res.json()) as { keys?: Array<Record<string, unknown>> };
          const jwk = jwks.keys?.find((k) => k.kid === kid);
          if (jwk) return jwk;
        }
        throw new Error(`kid ${kid} is in no trusted JWKS`);
      });
      // The SDK logs every failed signature with console.debug; that log is not the harness's output.
      const debug = console.debug;
      console.debug = () => {};
      try {
        await client.getAgentCard(undefined, verifier);
      } catch (err) {
        return done('rejected', `signature verification failed: ${describe(err)}`, 'untrusted-card');
      } finally {
        console.debug = debug;
      }
    }
    const mt = intent.input.mediaType;
    const live = intent.taskClass === 'live-input' && profile.liveOnlyInputModes.includes(mt) && !profile.bufferableInputModes.includes(mt);
    const frames = intent.input.frames ?? 1;
    const frameBytes = intent.input.frameBytes ?? 0;
    const part = (bytes?: number) =>
      bytes === undefined
        ? { content: { $case: 'text' as const, value: intent.input.text ?? 'hello' }, mediaType: mt, filename: '', metadata: undefined }
        : { content: { $case: 'raw' as const, value: Buffer.alloc(bytes, 7) }, mediaType: mt, filename: '', metadata: undefined };
    const message = (parts: unknown[], taskId = '') => ({
      messageId: randomUUID(),
      role: Role.ROLE_USER,
      taskId,
      contextId: '',
      extensions: [],
      metadata: {},
      referenceTaskIds: [],
      parts,
    });
    const firstPart = intent.input.frames ? part(live ? frameBytes : frames * frameBytes) : part();

    const wantsPush = intent.completion === 'push' && profile.callback !== 'none' && req.tls.receiver;
    if (wantsPush) receiver = await PushReceiver.start(req.tls.receiver!);
    const configuration = {
      acceptedOutputModes: intent.acceptedOutputModes,
      returnImmediately: true,
      // As the spec asks of an application (§4.3.3, §13.2): credentials the agent presents to the webhook, checked there.
      taskPushNotificationConfig: receiver
        ? { tenant: '', id: '', taskId: '', url: receiver.url, token: receiver.token, authentication: { scheme: 'Bearer', credentials: receiver.credentials } }
        : undefined,
    };
    const request = (msg: unknown) => ({ tenant: '', metadata: {}, configuration, message: msg });

    let taskId: string | undefined;
    let state: number | undefined;
    // A stream that failed after its task existed: the task is followed up with GetTask, and the report says so.
    let streamFailed = '';
    const note = (t: { id?: string; status?: { state?: number } } | undefined) => {
      if (!t?.id) return;
      if (!taskIds.includes(t.id)) taskIds.push(t.id);
      taskId = t.id;
      if (t.status?.state !== undefined) state = t.status.state;
    };

    // Like any application with a deadline, the stream is given up (through the SDK's own abort signal) when the budget runs out.
    const budget = new AbortController();
    const budgetTimer = setTimeout(() => budget.abort(new Error('deadline budget')), Math.max(0, left()));
    try {
      if (intent.completion === 'stream') {
        for await (const ev of client.sendMessageStream(request(message([firstPart])) as never, { signal: AbortSignal.any([signal, budget.signal]) })) {
          const p = (ev as { payload?: { $case?: string; value?: { id?: string; taskId?: string; status?: { state?: number } } } }).payload;
          if (p?.$case === 'task') note(p.value);
          else if (p?.$case === 'statusUpdate' && p.value?.status?.state !== undefined) state = p.value.status.state;
          if (left() <= 0) break;
        }
      } else {
        note((await client.sendMessage(request(message([firstPart])) as never)) as never);
      }
    } catch (err) {
      if (!taskId) return done('rejected', `the first message failed: ${describe(err)}`, 'handshake');
      // The budget ran out on an open stream: the loop below cancels the task.
      if (!budget.signal.aborted) streamFailed = `streaming failed after task ${taskId} (${describe(err)}), followed with GetTask; `;
    } finally {
      clearTimeout(budgetTimer);
    }
    if (!taskId) return done('proceeded', 'the agent answered with a message, no task');

    if (live) {
      for (let i = 2; i <= frames; i++) {
        try {
          note((await client.sendMessage(request(message([part(frameBytes)], taskId)) as never)) as never);
        } catch (err) {
          return done('proceeded', `frame ${i} failed: ${describe(err)}`);
        }
      }
    }
    if (intent.taskClass === 'fire-and-forget') return done('proceeded', 'sent, not followed');

    while (!signal.aborted && !(state !== undefined && TERMINAL.has(state))) {
      if (left() <= 0) {
        try {
          note((await client.cancelTask({ tenant: '', id: taskId, metadata: undefined } as never)) as never);
        } catch (err) {
          return done('proceeded', `no terminal state in time; cancel failed: ${describe(err)}`);
        }
        return done('proceeded', `no terminal state in time (last ${TaskState[state ?? 0]}); canceled`);
      }
      await new Promise((r) => setTimeout(r, 50));
      try {
        note((await client.getTask({ tenant: '', id: taskId } as never)) as never);
      } catch (err) {
        return done('proceeded', `GetTask failed: ${describe(err)}`);
      }
    }
    let final = `task ${TaskState[state ?? 0]}`;
    if (intent.requiredOutputMode && state === TaskState.TASK_STATE_COMPLETED) {
      let task: { artifacts?: Array<{ parts?: Array<{ mediaType?: string }> }> };
      try {
        task = (await client.getTask({ tenant: '', id: taskId } as never)) as unknown as typeof task;
      } catch (err) {
        return done('proceeded', `${final}; GetTask for its artifacts failed: ${describe(err)}`);
      }
      const got = (task.artifacts ?? []).flatMap((a) => (a.parts ?? []).map((p) => p.mediaType));
      if (!got.includes(intent.requiredOutputMode)) {
        // What an application does when the output it needs is not on the task: subscribe for it, once.
        try {
          for await (const _ of client.resubscribeTask({ tenant: '', id: taskId } as never)) break;
          final += `; ${intent.requiredOutputMode} not on the task, subscribed once`;
        } catch (err) {
          final += `; ${intent.requiredOutputMode} not on the task; resubscribe failed: ${describe(err)}`;
        }
      }
    }
    return done('proceeded', `${streamFailed}${final}`);
  } finally {
    await receiver?.close();
    await agent.close();
  }
}

export function createA2aJsSdkClient(): ClientAdapter {
  return {
    // The 1.x client speaks A2A v1.0: scenarios that need a v0.3 client are listed as not run.
    hello: () => ({
      name: '@a2a-js/sdk',
      version: SDK_VERSION,
      profile: null,
      taskClasses: ['text', 'live-input', 'async-completion', 'artifact', 'fire-and-forget'],
      dialects: ['a2a-v1'],
      bindings: ['JSONRPC', 'HTTP+JSON', 'GRPC'],
      glue: SDK_GLUE,
    }),
    run: runWithSdk,
  };
}
