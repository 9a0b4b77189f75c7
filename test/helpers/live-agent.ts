/**
 * A small but real A2A v1.0 agent, built from @a2a-js/sdk's server side, for tests that put a recording proxy in
 * front of a "live" agent. It echoes the user's text back as an artifact after a short pause, over JSON-RPC
 * (/jsonrpc) and HTTP+JSON (/rest), both backed by one request handler and task store, so a task made on one
 * binding can be read or canceled on the other. Plain HTTP on 127.0.0.1 with a port picked by the system.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentCard, TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, DefaultRequestHandler, type ExecutionEventBus, InMemoryTaskStore, type RequestContext } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import express from 'express';

export interface LiveAgent {
  cardUrl: string;
  origin: string;
  close(): Promise<void>;
}

/** One running execution: what cancelTask needs to stop it. */
interface Run {
  canceled: boolean;
  wake?: () => void;
}

const status = (taskId: string, contextId: string, state: TaskState) =>
  AgentEvent.statusUpdate({ taskId, contextId, status: { state, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined });

/** Echoes the user's text after `workMs`, publishing task → WORKING → artifact → COMPLETED (or CANCELED). */
class EchoExecutor implements AgentExecutor {
  private readonly runs = new Map<string, Run>();
  private readonly contexts = new Map<string, string>();
  constructor(
    private readonly workMs: number,
    /** Each task ends FAILED instead of COMPLETED: the agent's own fault. */
    private readonly fails = false,
  ) {}

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = ctx;
    const run: Run = { canceled: false };
    this.runs.set(taskId, run);
    this.contexts.set(taskId, contextId);
    try {
      const submitted = { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() };
      bus.publish(AgentEvent.task({ id: taskId, contextId, status: submitted, artifacts: [], history: [userMessage], metadata: undefined }));
      bus.publish(status(taskId, contextId, TaskState.TASK_STATE_WORKING));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.workMs);
        run.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (run.canceled) {
        bus.publish(status(taskId, contextId, TaskState.TASK_STATE_CANCELED));
        return;
      }
      const text = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
      const part = { content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
      const artifact = { artifactId: randomUUID(), name: 'echo', description: '', parts: [part], metadata: undefined, extensions: [] };
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
      bus.publish(status(taskId, contextId, this.fails ? TaskState.TASK_STATE_FAILED : TaskState.TASK_STATE_COMPLETED));
    } finally {
      this.runs.delete(taskId);
      bus.finished();
    }
  };

  /** Cancels every execution still running (used when the agent shuts down). */
  stopAll(): void {
    for (const run of this.runs.values()) {
      run.canceled = true;
      run.wake?.();
    }
  }

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const run = this.runs.get(taskId);
    if (run) {
      // The execute loop publishes CANCELED itself once woken.
      run.canceled = true;
      run.wake?.();
      return;
    }
    bus.publish(status(taskId, this.contexts.get(taskId) ?? '', TaskState.TASK_STATE_CANCELED));
    bus.finished();
  };
}

/** Starts the agent on 127.0.0.1:0; `order` picks which interface the card lists first (default HTTP+JSON); `fails`: every task ends FAILED. */
export async function startLiveAgent(o: { workMs?: number; order?: 'rest-first' | 'jsonrpc-first'; fails?: boolean } = {}): Promise<LiveAgent> {
  const app = express();
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const rest = { url: `${origin}/rest`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' };
  const jsonrpc = { url: `${origin}/jsonrpc`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' };
  const card = AgentCard.fromJSON({
    name: 'Fabrikam Live Echo',
    description: 'A live A2A v1.0 test agent that echoes the text it is sent, after a short pause.',
    supportedInterfaces: (o.order ?? 'rest-first') === 'rest-first' ? [rest, jsonrpc] : [jsonrpc, rest],
    provider: { organization: 'Fabrikam', url: 'https://fabrikam.example' },
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Replies with the text it was sent.', tags: ['echo'] }],
  });

  const executor = new EchoExecutor(o.workMs ?? 300, o.fails === true);
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const userBuilder = UserBuilder.noAuthentication;
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder }));
  app.use('/rest', restHandler({ requestHandler: handler, userBuilder }));

  return {
    origin,
    cardUrl: `${origin}/.well-known/agent-card.json`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
        executor.stopAll();
      }),
  };
}
