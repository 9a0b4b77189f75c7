/**
 * What the operations work on and with: one peer's runtime state (shared by every interface of the
 * peer), and what a call brings besides its params (its event, and what its wire read or asks for).
 */
import type { PeerRuntime } from '../../harness/core/scenario/runtime.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import type { PeerRunContext } from './context.js';
import type { StreamPlan } from './stream.js';
import type { PushBody, TaskRuntime, TaskState } from './tasks.js';

/** What a call brings besides its params. */
export interface CallContext {
  ev: HttpEvent;
  /** The extensions the request opts into by service parameter (A2A-Extensions, §3.2.6), as its wire read them. */
  extensions: readonly string[];
  /** How a push config set by this call spells its deliveries (the wire's push body). */
  pushBody: PushBody;
  /** The wire's dialect takes a push config request without the config's id (v0.3: the task's first config). */
  pushConfigIdOptional?: boolean;
}

export interface RuntimeState {
  rt: PeerRuntime;
  ctx: PeerRunContext;
  tasks: TaskRuntime;
  /** The card's default input modes. */
  inputModes: string[];
  /** The card's capabilities. */
  caps: Record<string, unknown>;
  /** The extension URI that opens a live session (runtime.input.sessionExtension). */
  session?: string;
  /** Tasks by the `messageId` that minted them, where the runtime deduplicates (§3.3.1). */
  byMessageId: Map<string, TaskState>;
  /** The runtime's own card (placeholders filled), served by GetExtendedAgentCard where the card declares it. */
  extendedCard?: Record<string, unknown>;
}

/** An operation's context: the call's, and the runtime's state. */
export interface OpContext extends CallContext {
  s: RuntimeState;
}

/** An operation's answer: a result (with the extensions it activated, §3.2.6), or a stream of events. */
export type Outcome = { result: unknown; activated: string[] } | { stream: StreamPlan };

export type Operation = (params: Record<string, unknown>, cx: OpContext) => Promise<Outcome>;
