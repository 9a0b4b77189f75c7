/**
 * Executes one scenario run against a client: starts the scripted peer on the shared listeners,
 * hands the client its run request, enforces the deadline, then grades the wire.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ClientAdapter } from '../clients/contract.js';
import { validateCardV1 } from '../core/card-validator.js';
import { grade, type RunOutcome } from '../core/oracle/index.js';
import type { ScenarioResult } from '../core/results.js';
import { profileFor, type Scenario } from '../core/scenario.js';
import { TaskLedger, Transcript } from '../core/transcript.js';
import { DEFAULT_PROFILE, type ClientReport, type ClientTls, type Hello, type RunRequest } from '../core/types.js';
import type { PeerHost } from '../net/peer-host.js';
import type { PushDispatcher } from '../net/push-dispatcher.js';
import type { PkiFiles } from '../pki/index.js';
import { createPeer } from '../../peers/index.js';

/** What a worker holds for all its scenario runs. */
export interface RunEnv {
  host: PeerHost;
  dispatcher: PushDispatcher;
  pki: PkiFiles;
  client: ClientAdapter;
  hello: Hello;
  idSalt: string;
  deadlineMultiplier: number;
}

/** Grace after an abort before the harness stops waiting for the client (DESIGN.md §4.1). */
const ABORT_GRACE_MS = 2000;

/** The opaque id a client sees: it cannot branch on the rule's name. */
export function opaqueId(id: string, salt: string): string {
  return `s-${createHash('sha256').update(`${salt}\0${id}`).digest('hex').slice(0, 8)}`;
}

function tlsFor(pki: PkiFiles, callback: string): ClientTls {
  const base = { caFile: pki.cert.testCa, clientCertFile: pki.cert.client, clientKeyFile: pki.key.client };
  if (callback === 'https') return { ...base, receiver: { certFile: pki.cert.receiver, keyFile: pki.key.receiver } };
  if (callback === 'mtls')
    return { ...base, receiver: { certFile: pki.cert.partnerReceiver, keyFile: pki.key.partnerReceiver, clientCaFile: pki.cert.partnerCa } };
  return base;
}

export async function executeScenario(s: Scenario, env: RunEnv): Promise<ScenarioResult> {
  const started = performance.now();
  const profile = env.hello.profile ?? profileFor(DEFAULT_PROFILE, s.profileConstraints);
  const deadlineMs = Math.round(s.deadlineMs * env.deadlineMultiplier);
  const base = {
    id: s.id,
    opaqueId: opaqueId(s.id, env.idSalt),
    rule: s.rule,
    title: s.title,
    description: s.description,
    expectation: s.expectation,
    spec: s.spec,
    expect: s.expect,
    cardPointers: s.peer.signals.map((x) => x.pointer),
    peer: { factory: s.peer.factory, runtime: s.peer.runtime },
    profile,
    intent: s.intent,
    deadlineMs,
  };
  if (!env.hello.taskClasses.includes(s.intent.taskClass)) {
    return {
      ...base, card: s.peer.card, verdict: 'UNSUPPORTED',
      checks: [{ rule: s.rule, verdict: 'UNSUPPORTED', reason: `the client declared task class ${s.intent.taskClass} unsupported`, evidence: [] }],
      claims: null, outcome: { kind: 'unsupported' }, transcript: [], ledger: [], durationMs: 0,
    };
  }

  const key = randomBytes(4).toString('hex');
  const transcript = new Transcript(() => performance.now());
  const ledger = new TaskLedger(transcript);
  const timers = new Set<NodeJS.Timeout>();
  const slot = env.host.beginRun(key, transcript);
  let ended = false;
  let card: Record<string, unknown> = s.peer.card;
  let claims: ClientReport | null = null;
  let outcome: RunOutcome = { kind: 'reported' };
  try {
    const peer = createPeer(s.peer, {
      key,
      transcript,
      ledger,
      base: (kind) => env.host.base(kind, key),
      push: (order) => env.dispatcher.dispatch({ ...order, transcript }),
      later: (ms, fn) => {
        const t = setTimeout(() => {
          timers.delete(t);
          if (!ended) fn();
        }, ms);
        timers.add(t);
      },
    });
    card = peer.card;
    slot.handlers = peer.handlers;
    const issues = validateCardV1(card);
    if (issues.length > 0) throw new Error(`scenario ${s.id} serves a structurally invalid card: ${issues.map((i) => `${i.pointer} ${i.message}`).join('; ')}`);

    const req: RunRequest = {
      id: `r-${key}`,
      scenario: base.opaqueId,
      cardUrl: peer.cardUrl,
      intent: s.intent,
      profile,
      deadlineMs,
      tls: tlsFor(env.pki, profile.callback),
    };
    const abort = new AbortController();
    let deadline: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      deadline = setTimeout(() => resolve('timeout'), deadlineMs);
    });
    const running = env.client.run(req, abort.signal).then(
      (r) => ({ ok: true as const, r }),
      (e: unknown) => ({ ok: false as const, e }),
    );
    const first = await Promise.race([running, timedOut]);
    clearTimeout(deadline);
    if (first === 'timeout') {
      abort.abort(new Error('deadline'));
      outcome = { kind: 'timeout', deadlineMs };
      await Promise.race([running, new Promise((r) => setTimeout(r, ABORT_GRACE_MS))]);
    } else if (first.ok) {
      claims = first.r;
    } else {
      outcome = { kind: 'crashed', reason: `the client threw: ${(first.e as Error)?.message ?? String(first.e)}` };
    }
    // Let in-flight pushes and state changes land before the ledger is read.
    await new Promise((r) => setTimeout(r, 30));
  } catch (err) {
    transcript.record({ kind: 'harness', level: 'error', message: (err as Error).stack ?? String(err) });
  } finally {
    ended = true;
    for (const t of timers) clearTimeout(t);
    env.host.endRun(key);
  }
  const ledgerSnapshot = ledger.snapshot();
  const g = grade({ scenario: s, card, profile, intent: s.intent, events: transcript.events, tasks: ledgerSnapshot, claims, outcome });
  return {
    ...base,
    card,
    verdict: g.verdict,
    checks: g.checks,
    claims,
    outcome: outcome.kind === 'crashed' ? { kind: 'crashed', reason: outcome.reason } : { kind: outcome.kind },
    transcript: transcript.events,
    ledger: ledgerSnapshot,
    durationMs: Math.round(performance.now() - started),
  };
}
