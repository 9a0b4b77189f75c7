/**
 * What the oracle reads: the scenario's ground truth, the profile and intent, the wire, the ledger,
 * and (kept apart) the client's claims. Helpers here only query the wire; they decide nothing.
 */
import type { Scenario } from '../scenario.js';
import type { HttpEvent, PushAttemptEvent, PushRegisterEvent, TaskRecord, TlsEvent, WireEvent } from '../transcript.js';
import { isTerminal } from '../transcript.js';
import type { ClientProfile, ClientReport, TaskIntent } from '../vocabulary/types.js';

/** How the client's run ended, as the runner saw it. */
export type RunOutcome =
  | { kind: 'reported' }
  | { kind: 'timeout'; deadlineMs: number }
  | { kind: 'crashed'; reason: string };

export interface GradeInput {
  scenario: Scenario;
  /** The card as served in this run (placeholders filled). */
  card: Record<string, unknown>;
  profile: ClientProfile;
  intent: TaskIntent;
  events: WireEvent[];
  tasks: TaskRecord[];
  claims: ClientReport | null;
  outcome: RunOutcome;
}

export const https = (x: GradeInput) => x.events.filter((e): e is HttpEvent => e.kind === 'http');
export const rpcCalls = (x: GradeInput, method?: string) =>
  https(x).filter((e) => e.rpc && (method === undefined || e.rpc.method === method));
export const pushRegistrations = (x: GradeInput) =>
  x.events.filter((e): e is PushRegisterEvent => e.kind === 'push-register');
export const pushAttempts = (x: GradeInput) =>
  x.events.filter((e): e is PushAttemptEvent => e.kind === 'push-attempt');
export const tlsEvents = (x: GradeInput) => x.events.filter((e): e is TlsEvent => e.kind === 'tls');

/** A request failed if the HTTP status is not 2xx or the JSON-RPC answer was an error. */
export const failed = (e: HttpEvent) => (e.status !== undefined && (e.status < 200 || e.status > 299)) || !!e.rpcError;

/** The sequence number at which the client first saw a terminal state of this task, if it did. */
export function terminalSeenAt(x: GradeInput, taskId: string): number | undefined {
  for (const e of x.events) {
    if (e.kind === 'http' && e.taskId === taskId && !failed(e) && isTerminal(e.taskState)) return e.seq;
    if (e.kind === 'sse' && e.taskId === taskId && isTerminal(e.state)) return e.seq;
    if (e.kind === 'push-attempt' && e.taskId === taskId && e.outcome === 'delivered' && isTerminal(e.state))
      return e.seq;
  }
  return undefined;
}

/** Successful calls to the peer's out-of-band negotiation endpoint (NEG-ESCALATE). */
export function escalationCalls(x: GradeInput): HttpEvent[] {
  const neg = x.scenario.peer.runtime.negotiation;
  if (!neg) return [];
  return https(x).filter(
    (e) => e.method === 'POST' && e.listener === x.scenario.peer.runtime.rpcListener && e.path.endsWith(neg.path) && !failed(e),
  );
}

export const needsCompletion = (intent: TaskIntent) => intent.taskClass !== 'fire-and-forget';

export function describeTask(t: TaskRecord): string {
  return `task ${t.id} minted at #${t.mintedSeq}, ${t.state} at the end`;
}
