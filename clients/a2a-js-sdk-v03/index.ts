/**
 * `--client a2a-js-sdk@0.3`: the real @a2a-js/sdk 0.3.14 client (installed beside 1.3.0 under the
 * npm alias `a2a-js-sdk-v03`), the line most JavaScript A2A clients shipping today wrap. It speaks
 * A2A v0.3 only, and says so in hello: scenarios that need a v1.0 client are listed as not run.
 *
 * The glue policy is the 1.3.0 glue's (clients/a2a-js-sdk/index.ts, README "@a2a-js/sdk under
 * test"), in v0.3's shapes: ClientFactory → createFromUrl → sendMessage / getTask / cancelTask /
 * sendMessageStream; follow the intent literally (one payload, push when the intent prefers it and the
 * profile has a receiver, stream when it prefers streaming, poll otherwise); add no gate of ours; an
 * SDK error before any task is `rejected` (handshake), after a task `proceeded` (a failed stream
 * followed up with tasks/get first); cancel a task not
 * finished by the deadline; where the run provisions OAuth 2.0 client credentials, authenticate
 * through the SDK's own `createAuthenticatingFetchWithRetry` hook. TLS: the application hands the SDK
 * a fetch that trusts the harness CA and presents the client certificate (an undici Agent).
 */
import { randomUUID } from 'node:crypto';
import {
  ClientFactory,
  ClientFactoryOptions,
  createAuthenticatingFetchWithRetry,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type AuthenticationHandler,
} from 'a2a-js-sdk-v03/client';
import type { ClientAdapter } from '../../harness/core/protocol/adapter.js';
import type { ClientReport, GlueChoice, RunRequest } from '../../harness/core/protocol/types.js';
import { errorText, sdkFetch } from '../common/sdk-glue.js';
import { PushReceiver } from '../common/push-receiver.js';

export const SDK_V03_VERSION = '0.3.14';

/** The verdicts that follow from a choice of this glue, not of the SDK (as the 1.3.0 glue's, where they apply to v0.3). */
const SDK03_GLUE: GlueChoice[] = [
  {
    scenarios: ['neg-push-mtls/https-receiver-wants-push*'],
    note: 'glue: push is registered whenever the intent prefers it and the profile has a receiver; the SDK registers what the application asks, and reads no mTLS signal for it',
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
    scenarios: ['hs-aspirational/push-not-supported*', 'hs-split-origin/stale-*'],
    note: "glue: an SDK error ends the run (rejected before a task; after one, the task canceled and proceeded reported); falling back to polling, or probing first, is the application's to write",
  },
];
const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
const MARGIN_MS = 800;

const describe = errorText;

type Task03 = { kind?: string; id?: string; taskId?: string; status?: { state?: string }; final?: boolean };

async function runWithSdk03(req: RunRequest, signal: AbortSignal): Promise<ClientReport> {
  const started = Date.now();
  const left = () => req.deadlineMs - MARGIN_MS - (Date.now() - started);
  const { agent, fetchImpl, rpcFetch } = await sdkFetch(req, signal, (f, h) => createAuthenticatingFetchWithRetry(f, h as AuthenticationHandler));
  const taskIds: string[] = [];
  let receiver: PushReceiver | undefined;
  const done = (decision: ClientReport['decision'], notes: string, errorClass?: ClientReport['errorClass']): ClientReport => ({
    decision,
    ...(errorClass ? { errorClass } : {}),
    degradations: [],
    taskIds,
    notes: `@a2a-js/sdk ${SDK_V03_VERSION}: ${notes}`,
  });
  try {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: rpcFetch })],
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
    const mt = intent.input.mediaType;
    const bytes = intent.input.frames ? intent.input.frames * (intent.input.frameBytes ?? 0) : undefined;
    // As an application would: text as a TextPart, a JSON record as a DataPart, bytes as a FilePart.
    const json =
      mt === 'application/json' && bytes === undefined
        ? (() => {
            try {
              return JSON.parse(intent.input.text ?? '') as unknown;
            } catch {
              return undefined;
            }
          })()
        : undefined;
    const part =
      bytes !== undefined
        ? { kind: 'file' as const, file: { bytes: Buffer.alloc(bytes, 7).toString('base64'), mimeType: mt } }
        : json !== undefined && json !== null && typeof json === 'object'
          ? { kind: 'data' as const, data: json as Record<string, unknown> }
          : { kind: 'text' as const, text: intent.input.text ?? 'hello' };
    const message = { kind: 'message' as const, messageId: randomUUID(), role: 'user' as const, parts: [part] };
    const wantsPush = intent.completion === 'push' && profile.callback !== 'none' && req.tls.receiver;
    if (wantsPush) receiver = await PushReceiver.start(req.tls.receiver!);
    const configuration = {
      acceptedOutputModes: intent.acceptedOutputModes,
      blocking: false,
      ...(receiver
        ? { pushNotificationConfig: { url: receiver.url, token: receiver.token, authentication: { schemes: ['Bearer'], credentials: receiver.credentials } } }
        : {}),
    };

    let taskId: string | undefined;
    let state: string | undefined;
    const note = (t: Task03 | undefined) => {
      const id = t?.kind === 'task' ? t.id : t?.taskId;
      if (id && !taskIds.includes(id)) taskIds.push(id);
      if (id) taskId = id;
      if (t?.status?.state) state = t.status.state;
    };
    const budget = new AbortController();
    const budgetTimer = setTimeout(() => budget.abort(new Error('deadline budget')), Math.max(0, left()));
    // A stream that failed after its task existed: the task is followed up with tasks/get, and the report says so.
    let streamFailed = '';
    try {
      if (intent.completion === 'stream') {
        for await (const ev of client.sendMessageStream({ message, configuration } as never, { signal: AbortSignal.any([signal, budget.signal]) } as never)) {
          note(ev as Task03);
          if (left() <= 0) break;
        }
      } else {
        const r = (await client.sendMessage({ message, configuration } as never)) as Task03;
        if (r.kind === 'message') return done('proceeded', 'the agent answered with a message, no task');
        note(r);
      }
    } catch (err) {
      if (!taskId) return done('rejected', `the first message failed: ${describe(err)}`, 'handshake');
      if (!budget.signal.aborted) streamFailed = `streaming failed after task ${taskId} (${describe(err)}), followed with tasks/get; `;
    } finally {
      clearTimeout(budgetTimer);
    }
    if (!taskId) return done('proceeded', 'the agent answered with a message, no task');
    if (intent.taskClass === 'fire-and-forget') return done('proceeded', 'sent, not followed');

    while (!signal.aborted && !(state && TERMINAL.has(state))) {
      if (left() <= 0) {
        try {
          note((await client.cancelTask({ id: taskId } as never)) as Task03);
        } catch (err) {
          return done('proceeded', `no terminal state in time; cancel failed: ${describe(err)}`);
        }
        return done('proceeded', `no terminal state in time (last ${state}); canceled`);
      }
      await new Promise((r) => setTimeout(r, 50));
      try {
        note((await client.getTask({ id: taskId } as never)) as Task03);
      } catch (err) {
        return done('proceeded', `tasks/get failed: ${describe(err)}`);
      }
    }
    return done('proceeded', `${streamFailed}task ${state}`);
  } finally {
    await receiver?.close();
    await agent.close();
  }
}

export function createA2aJsSdkV03Client(): ClientAdapter {
  return {
    // The 0.3 line speaks A2A v0.3: scenarios that need a v1.0 client are listed as not run.
    hello: () => ({
      name: '@a2a-js/sdk',
      version: SDK_V03_VERSION,
      profile: null,
      taskClasses: ['text', 'live-input', 'async-completion', 'artifact', 'fire-and-forget'],
      dialects: ['a2a-v0.3'],
      glue: SDK03_GLUE,
    }),
    run: runWithSdk03,
  };
}
