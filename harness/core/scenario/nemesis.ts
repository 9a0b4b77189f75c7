/**
 * A nemesis (issue 45): faults laid over any scenario's peer, as data. Each fault is one of the
 * runtime's incidents (./runtime.ts): a call answered 503 or 429 with Retry-After, a slow answer, an
 * answer cut mid-body, a stream that ends (or is reset mid-event) before its task, a connection lost
 * before the answer, a task that stalls, a card origin briefly down, push deliveries withheld or late.
 * A schedule names the faults; `overlay` lays them on one scenario where its own story leaves room for
 * them, and says which it laid and which it left (a scenario whose story is itself that incident keeps
 * its own, and its own grading).
 *
 * The client's deadline grows by what the faults can cost it at most (`delayMs`): a nemesis asks a
 * client to stay honest when things go wrong, never to beat a clock the harness itself ran down.
 */
import type { Operation, PeerRuntime } from './runtime.js';
import { OPERATIONS } from './runtime.js';
import type { Scenario } from './scenario.js';

/** The faults a schedule can name, each one of the runtime's incidents. */
export type Fault =
  | { kind: 'unavailable'; status: 503 | 429; retryAfterSeconds: number; calls: number; method?: Operation }
  | { kind: 'slow'; ms: number; method?: Operation }
  | { kind: 'drop'; afterBytes: number; calls: number; method?: Operation }
  | { kind: 'reset'; calls: number; method?: Operation }
  | { kind: 'stall' }
  | { kind: 'card-down'; retryAfterSeconds: number; calls: number }
  | { kind: 'push-fails'; deliveries?: number; lateMs?: number }
  | { kind: 'stream-ends'; afterEvents: number; midEvent?: boolean };

export const FAULT_KINDS = ['unavailable', 'slow', 'drop', 'reset', 'stream-ends', 'stall', 'card-down', 'push-fails'] as const satisfies ReadonlyArray<
  Fault['kind']
>;

/** A schedule: the faults, in the order they are laid (at most one of each kind). */
export interface Nemesis {
  faults: Fault[];
}

/** What a schedule did to one scenario: the faults laid on its peer, and those left, with why. */
export interface NemesisApplied {
  laid: Fault[];
  left: Array<{ fault: Fault; why: string }>;
  /** What the client's deadline grew by (`delayMs` of the faults laid), in ms of the client's time whatever --deadline-multiplier. */
  deadlineAddedMs: number;
}

/** The calls a slow fault is counted for when it names no method: a task's send and a few polls. */
const SLOW_CALLS = 8;
/** What a client needs after a wait it was asked for: the call sent again, its answer, and following the task it starts. */
const RETRY_ROOM_MS = 2000;
/** What a client may spend getting over a cut answer or an early stream end (a look-up, a subscription, a poll). */
const RECOVERY_MS = 1500;

/** The most a fault can cost a client that handles it well: the waits it asks for, the slow answers, a recovery. */
export function delayMs(f: Fault): number {
  switch (f.kind) {
    case 'unavailable':
    case 'card-down':
      // Each refusal: the wait it asks for, and room to send again and follow what that call starts.
      return (f.retryAfterSeconds * 1000 + RETRY_ROOM_MS) * f.calls;
    case 'slow':
      return f.ms * (f.method ? 2 : SLOW_CALLS);
    case 'drop':
    case 'reset':
      return RECOVERY_MS * f.calls;
    case 'stream-ends':
      return RECOVERY_MS;
    case 'push-fails':
      // A delivery that never comes, or comes late: the client learns the task's end another way (a poll).
      return RECOVERY_MS;
    case 'stall':
      // Nothing to wait for: the client gives up on the task within the deadline it had.
      return 0;
  }
}

/** The runtime field each fault kind is laid on. */
const FIELD = {
  unavailable: 'unavailable',
  slow: 'slow',
  drop: 'drop',
  reset: 'reset',
  'stream-ends': 'streamEnds',
  stall: 'stalls',
  'card-down': 'cardUnavailable',
  'push-fails': 'pushFails',
} as const satisfies Record<Fault['kind'], keyof PeerRuntime>;

/** The runtime fields whose scenarios' rules read the course of a stream: a stream fault would take away what they grade. */
const STREAM_STORIES = ['hostileStream', 'sseFraming', 'streamsStayOpen', 'refuseStreams', 'refuseSubscribe'] as const satisfies ReadonlyArray<
  keyof PeerRuntime
>;

/** A fault that ends a stream early or takes an answer (a stream's included) away. */
const cutsAnswers = (f: Fault) => f.kind === 'stream-ends' || f.kind === 'drop' || f.kind === 'reset';

/** Why a fault is not laid on this scenario, or undefined where it is. `expectStands`: see overlay. */
function leftWhy(s: Scenario, f: Fault, expectStands: boolean): string | undefined {
  const rt = s.peer.runtime;
  if (rt[FIELD[f.kind]] !== undefined) return `the scenario scripts runtime.${FIELD[f.kind]} itself: its own story and grading stand`;
  // A task that never ends changes what every story grades (its completion): a scenario's expect cannot stand under it.
  if (f.kind === 'stall' && expectStands)
    return "a task that never ends changes what the scenario's story grades: its expect could not stand (the nemesis family lays it)";
  if (f.kind === 'stall' && (rt.staysWorking || rt.input)) return 'the task already waits on the client (it stays working, or takes input frame by frame)';
  if (f.kind === 'stream-ends' && !rt.streaming) return 'the peer serves no stream to end';
  if (f.kind === 'push-fails') {
    if (!rt.push.supported) return 'the peer delivers no push';
    if (rt.push.forge?.length)
      return "the scenario's story is its forged deliveries beside the genuine ones (runtime.push.forge): a genuine one withheld would take away what they are read against";
    if (rt.push.stallOnLostPush) return "the scenario scripts a lost delivery's course itself (runtime.push.stallOnLostPush)";
    if (expectStands && (s.rule.startsWith('PUSH-') || s.rule === 'NEG-PUSH-MTLS'))
      return `the scenario is ${s.rule}'s, whose story is the course of its push deliveries: a delivery withheld or late would change what it grades`;
  }
  const story = STREAM_STORIES.find((k) => rt[k] !== undefined && rt[k] !== false);
  if (cutsAnswers(f) && story)
    return `the scenario's story is the course of its streams (runtime.${story}): a stream ended or cut would take away what its rule grades`;
  // A stream rule's scenarios, the variants where it does not bind included: a stream ended or cut there would make it bind.
  // A push rule's story is the course of the deliveries: a lost answer to the registration leaves none to grade.
  if (expectStands && (f.kind === 'drop' || f.kind === 'reset') && s.rule.startsWith('PUSH-'))
    return `the scenario is ${s.rule}'s, whose story is the course of its push deliveries: a lost answer to the registration would leave none to grade`;
  if (expectStands && cutsAnswers(f) && s.rule.startsWith('STREAM-'))
    return `the scenario is ${s.rule}'s, whose story is the course of its streams: a stream ended or cut would change what it grades`;
  // What its rule grades is what the answers hold (a state or a field it must tolerate): a cut answer would hold none of it.
  if (cutsAnswers(f) && s.rule === 'TOLERANT-DECODING')
    return "the scenario is TOLERANT-DECODING's, whose story is what the peer's answers hold: an answer cut, or a stream ended before the event that holds it, would take away what it grades";
  // A v0.3 peer's JSON-RPC has no tasks/list: the task a cut message answer named is out of the client's reach.
  if ((f.kind === 'drop' || f.kind === 'reset') && mayTalkV03(s) && (!f.method || MINTING.includes(f.method)))
    return "A2A v0.3's JSON-RPC has no tasks/list: a cut answer to the message that mints the task would leave the client no way to name it, so none to follow or cancel it; a nemesis asks a client to get over a fault, not to do what its dialect cannot";
  return undefined;
}

/** Whether the client may reach this peer in A2A v0.3: its own dialect, what its main interface speaks, an interface its card lists at 0.x. */
function mayTalkV03(s: Scenario): boolean {
  if (s.peer.dialect === 'a2a-v0.3' || s.peer.runtime.speaks === 'a2a-v0.3') return true;
  const card = s.peer.card as { protocolVersion?: unknown; supportedInterfaces?: Array<{ protocolVersion?: unknown }> };
  const v0 = (v: unknown) => typeof v === 'string' && v.startsWith('0.');
  return v0(card.protocolVersion) || (Array.isArray(card.supportedInterfaces) && card.supportedInterfaces.some((i) => v0(i?.protocolVersion)));
}

/** The calls whose answer names the task they mint. */
const MINTING: readonly Operation[] = ['SendMessage', 'SendStreamingMessage'];

/** The runtime with the fault laid on it. */
function lay(rt: PeerRuntime, f: Fault): PeerRuntime {
  const method = 'method' in f && f.method ? { method: f.method } : {};
  switch (f.kind) {
    case 'unavailable':
      return { ...rt, unavailable: { status: f.status, retryAfterSeconds: f.retryAfterSeconds, calls: f.calls, ...method } };
    case 'slow':
      return { ...rt, slow: { ms: f.ms, ...method } };
    case 'drop':
      return { ...rt, drop: { afterBytes: f.afterBytes, calls: f.calls, ...method } };
    case 'reset':
      return { ...rt, reset: { calls: f.calls, ...method } };
    case 'stall':
      return { ...rt, stalls: true };
    case 'card-down':
      return { ...rt, cardUnavailable: { calls: f.calls, retryAfterSeconds: f.retryAfterSeconds } };
    case 'push-fails':
      return { ...rt, pushFails: { ...(f.deliveries ? { deliveries: f.deliveries } : {}), ...(f.lateMs ? { lateMs: f.lateMs } : {}) } };
    case 'stream-ends':
      return { ...rt, streamEnds: { afterEvents: f.afterEvents, ...(f.midEvent ? { midEvent: true } : {}) } };
  }
}

/**
 * The scenario with the schedule's faults laid on its peer where its story leaves room, its deadline grown by what they
 * cost. The cost is real time, which `--deadline-multiplier` (`multiplier`, applied to the scenario's deadline after
 * this) must not scale: it is added in the scenario's units so that the client gets all of it.
 *
 * `expectStands` (`run --nemesis`): the scenario's `expect` must still be what the client gets, so a stream fault is
 * also left where it would make the scenario's own STREAM rule bind on a variant written where it does not (its
 * expect INFORMATIONAL). The nemesis family asks only that no case fails, and lays it there (false).
 */
export function overlay(s: Scenario, n: Nemesis, multiplier = 1, expectStands = true): { scenario: Scenario; applied: NemesisApplied } {
  const laid: Fault[] = [];
  const left: NemesisApplied['left'] = [];
  let runtime = s.peer.runtime;
  for (const f of n.faults) {
    const why = leftWhy(s, f, expectStands);
    if (why) {
      left.push({ fault: f, why });
      continue;
    }
    runtime = lay(runtime, f);
    laid.push(f);
  }
  // A stalled task is given up on at the deadline: a cancel refused for now then leaves no client time to wait and send it again.
  if (laid.some((f) => f.kind === 'stall')) {
    const refused = laid.findIndex((f) => f.kind === 'unavailable' && (!f.method || f.method === 'CancelTask'));
    if (refused >= 0) {
      const [f] = laid.splice(refused, 1);
      left.push({
        fault: f!,
        why: 'the task stalls: its cancel comes at the deadline, and a refusal then would leave no client time to wait and send it again',
      });
      runtime = { ...runtime, unavailable: s.peer.runtime.unavailable };
      if (runtime.unavailable === undefined) delete runtime.unavailable;
    }
  }
  const added = laid.reduce((sum, f) => sum + delayMs(f), 0);
  const scenario = laid.length ? { ...s, peer: { ...s.peer, runtime }, deadlineMs: s.deadlineMs + Math.round(added / multiplier) } : s;
  return { scenario, applied: { laid, left, deadlineAddedMs: added } };
}

/** A fault in a line, as the report and the progress lines name it. */
export function faultText(f: Fault): string {
  const on = 'method' in f && f.method ? ` on ${f.method}` : '';
  switch (f.kind) {
    case 'unavailable':
      return `${f.status} with Retry-After: ${f.retryAfterSeconds} for the first ${f.calls} call(s)${on || ' of any method'}`;
    case 'slow':
      return `every answer${on} ${f.ms} ms late`;
    case 'drop':
      return `the first ${f.calls} answer(s)${on || ' of any method'} cut after ${f.afterBytes} bytes of the body`;
    case 'reset':
      return `the connection closed before the answer to the first ${f.calls} call(s)${on || ' of any method'}, each call taken`;
    case 'stall':
      return 'every task stalled: held WORKING, never ended by the peer';
    case 'card-down':
      return `the card's origin down for its first ${f.calls} fetch(es): 503 with Retry-After: ${f.retryAfterSeconds}`;
    case 'push-fails': {
      const which = f.deliveries ? `the first ${f.deliveries} push delivery(ies)` : 'every push delivery';
      return f.lateMs ? `${which} posted ${f.lateMs} ms late` : `${which} never posted`;
    }
    case 'stream-ends':
      return f.midEvent
        ? `every stream reset mid-way through the event after its first ${f.afterEvents}, before its task's end`
        : `every stream ended after ${f.afterEvents} event(s), before its task`;
  }
}

/**
 * A schedule from its JSON (`run --nemesis`): `{"faults": [...]}`, or the list alone. Every problem
 * is one line naming the fault and the field, and what it takes.
 */
export function parseNemesis(value: unknown): Nemesis {
  const list = Array.isArray(value) ? value : value && typeof value === 'object' ? (value as { faults?: unknown }).faults : undefined;
  if (!Array.isArray(list) || list.length === 0) throw new Error('a nemesis schedule is {"faults": [...]} with at least one fault');
  const seen = new Set<string>();
  const faults = list.map((raw, i): Fault => {
    const at = `fault ${i + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${at}: an object with a "kind" (${FAULT_KINDS.join(', ')})`);
    const o = raw as Record<string, unknown>;
    const kind = o.kind;
    if (typeof kind !== 'string' || !(FAULT_KINDS as readonly string[]).includes(kind))
      throw new Error(`${at}: "kind" must be one of ${FAULT_KINDS.join(', ')}`);
    if (seen.has(kind)) throw new Error(`${at}: a second "${kind}" fault (a schedule lays one of each kind)`);
    seen.add(kind);
    const allowed: Record<string, readonly string[]> = {
      unavailable: ['kind', 'status', 'retryAfterSeconds', 'calls', 'method'],
      slow: ['kind', 'ms', 'method'],
      drop: ['kind', 'afterBytes', 'calls', 'method'],
      reset: ['kind', 'calls', 'method'],
      stall: ['kind'],
      'card-down': ['kind', 'retryAfterSeconds', 'calls'],
      'push-fails': ['kind', 'deliveries', 'lateMs'],
      'stream-ends': ['kind', 'afterEvents', 'midEvent'],
    };
    const extra = Object.keys(o).find((k) => !allowed[kind]!.includes(k));
    if (extra) throw new Error(`${at} (${kind}): unknown field "${extra}" (it takes ${allowed[kind]!.slice(1).join(', ')})`);
    const int = (field: string, min: number, max: number, fallback?: number): number => {
      const v = o[field] ?? fallback;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
        throw new Error(`${at} (${kind}): "${field}" must be a whole number from ${min} to ${max}`);
      return v;
    };
    const method = (): { method?: Operation } => {
      if (o.method === undefined) return {};
      if (typeof o.method !== 'string' || !(OPERATIONS as readonly string[]).includes(o.method))
        throw new Error(`${at} (${kind}): "method" must be an A2A operation (${OPERATIONS.join(', ')})`);
      return { method: o.method as Operation };
    };
    switch (kind) {
      case 'unavailable': {
        const status = o.status ?? 503;
        if (status !== 503 && status !== 429) throw new Error(`${at} (unavailable): "status" must be 503 or 429`);
        return { kind, status, retryAfterSeconds: int('retryAfterSeconds', 0, 30, 1), calls: int('calls', 1, 5, 1), ...method() };
      }
      case 'slow':
        return { kind, ms: int('ms', 1, 5000), ...method() };
      case 'drop':
        return { kind, afterBytes: int('afterBytes', 0, 1 << 20, 0), calls: int('calls', 1, 5, 1), ...method() };
      case 'reset':
        return { kind, calls: int('calls', 1, 5, 1), ...method() };
      case 'stall':
        return { kind };
      case 'card-down':
        return { kind, retryAfterSeconds: int('retryAfterSeconds', 0, 30, 1), calls: int('calls', 1, 5, 1) };
      case 'push-fails':
        return {
          kind,
          ...(o.deliveries === undefined ? {} : { deliveries: int('deliveries', 1, 5) }),
          ...(o.lateMs === undefined ? {} : { lateMs: int('lateMs', 1, 10_000) }),
        };
      default:
        if (o.midEvent !== undefined && typeof o.midEvent !== 'boolean') throw new Error(`${at} (stream-ends): "midEvent" must be true or false`);
        return { kind: 'stream-ends', afterEvents: int('afterEvents', 1, 100, 1), ...(o.midEvent === true ? { midEvent: true } : {}) };
    }
  });
  return { faults };
}
