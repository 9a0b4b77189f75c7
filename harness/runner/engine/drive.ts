/**
 * The middle of a scenario run: the scripted peer mounted on the shared listeners, the client handed
 * its run request and held to the deadline, the wire left to settle. Nothing here grades; whatever
 * goes wrong on the harness's side is recorded in the transcript (graded ERROR later), never thrown.
 */
import { validateCard } from '../../core/card-validator-v03.js';
import type { RunOutcome } from '../../core/oracle/index.js';
import { JWKS_PATH } from '../../core/scenario/card.js';
import { fillProfile } from '../../core/scenario/profile.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { STREAM_CLOSE_MS, Transcript } from '../../core/transcript.js';
import { patientTimer } from '../../net/lag.js';
import type { ClientProfile, ClientReport, ClientTls, RunRequest } from '../../core/protocol/types.js';
import { ClientFault, HarnessFault } from '../../faults.js';
import type { PkiFiles } from '../../pki/index.js';
import type { RunEnv } from '../infrastructure/env.js';
import { mountPeer, type MountedPeer } from '../infrastructure/mount.js';
import { keptReport, reportProblem } from './client-report.js';
import type { Prepared } from './prepare.js';

/**
 * Grace after an abort before the harness stops waiting for the client. The subprocess adapter
 * kills a process 2 s after the abort and waits for it to exit, so it settles well inside this.
 */
const ABORT_GRACE_MS = 5000;

/** What a driven run leaves for grading. */
export interface Driven {
  mounted?: MountedPeer;
  transcript: Transcript;
  card: Record<string, unknown>;
  /** The profile the client was given: the prepared one, with this run's trust anchors filled in. */
  profile: ClientProfile;
  claims: ClientReport | null;
  outcome: RunOutcome;
  /** The result's fields the protocol does not define (ignored, and said). */
  unknownFields: string[];
  runId: string;
  /** The client did not settle within the grace after its abort: its listeners must not serve another run. */
  hungClient: boolean;
}

/**
 * Resolves once every streaming answer of the run has ended (the peer's end, or the client's close),
 * or after `ms` of the harness's time: a client closes what it is done with just after it reports,
 * and that close is on record before the seal.
 */
async function streamsClosed(t: Transcript, ms: number): Promise<void> {
  const open = () => t.events.some((e) => e.kind === 'http' && e.responseBody?.events !== undefined && !e.streamEnd);
  if (!open()) return;
  let over = false;
  const timer = patientTimer(ms, () => (over = true));
  while (open() && !over) await new Promise((r) => setTimeout(r, 10));
  timer.clear();
}

function tlsFor(pki: PkiFiles, callback: string): ClientTls {
  const base = { caFile: pki.cert.testCa, clientCertFile: pki.cert.client, clientKeyFile: pki.key.client };
  if (callback === 'https') return { ...base, receiver: { certFile: pki.cert.receiver, keyFile: pki.key.receiver } };
  if (callback === 'mtls')
    return { ...base, receiver: { certFile: pki.cert.partnerReceiver, keyFile: pki.key.partnerReceiver, clientCaFile: pki.cert.partnerCa } };
  return base;
}

export async function drive(s: Scenario, env: RunEnv, base: Prepared['base']): Promise<Driven> {
  const { deadlineMs } = base;
  const d: Driven = {
    transcript: new Transcript(() => performance.now()),
    card: s.peer.card,
    profile: base.profile,
    claims: null,
    outcome: { kind: 'reported' },
    unknownFields: [],
    runId: 'r-unmounted',
    hungClient: false,
  };
  try {
    const mounted = mountPeer(env.host, env.dispatcher, s.peer, { deadlineMs });
    d.mounted = mounted;
    d.transcript = mounted.transcript;
    d.runId = `r-${mounted.key}`;
    const peer = mounted.peer;
    d.card = peer.card;
    // Trust anchors of this run: the JWKS on another vendor's origin, at this run's path.
    d.profile = fillProfile(d.profile, { vendorJwksUrl: `${env.host.base('vendor-b', mounted.key)}${JWKS_PATH}` });
    const issues = validateCard(d.card);
    if (issues.length > 0) throw new Error(`scenario ${s.id} serves a structurally invalid card: ${issues.map((i) => `${i.pointer} ${i.message}`).join('; ')}`);

    const req: RunRequest = {
      id: d.runId,
      scenario: base.opaqueId,
      cardUrl: peer.cardUrl,
      intent: s.intent,
      profile: d.profile,
      deadlineMs,
      tls: tlsFor(env.pki, d.profile.callback),
      // Credentials provisioned out of band for this run (A2A §7.3), where the peer runs a token endpoint.
      ...(peer.credentials ? { credentials: peer.credentials } : {}),
    };
    // Spawning and greeting a subprocess is not the client's time: the deadline starts after it.
    try {
      await env.client.prepare?.();
    } catch (err) {
      if (!(err instanceof ClientFault)) throw err;
      d.outcome = { kind: 'crashed', reason: err.message };
    }
    if (d.outcome.kind === 'reported') await runClient(env, req, d);
    else d.transcript.record({ kind: 'decision', outcome: 'crashed' });
    // Let in-flight pushes, state changes and handshake outcomes land before the ledger is read (a push's outcome
    // can take the dispatcher's own timeouts: a genuine push the client acted on must not be lost to the seal).
    // A push the client acted on before the peer read its answer is recorded here, not lost (found under load).
    await Promise.all([
      new Promise((r) => setTimeout(r, 30)),
      env.host.handshakesSettled(1000),
      env.dispatcher.settled(d.transcript, env.dispatcher.longestMs),
      // Where the peer leaves its streams open after their terminal event (STREAM-CLOSE): the client's close.
      s.peer.runtime.streamsStayOpen ? streamsClosed(d.transcript, STREAM_CLOSE_MS) : undefined,
      // A live agent's tasks the client left unfinished: read once more from the agent (peers/live.ts).
      peer.settle?.(),
    ]);
  } catch (err) {
    d.transcript.record({ kind: 'harness', level: 'error', message: (err as Error).stack ?? String(err) });
  } finally {
    d.transcript.seal();
    d.mounted?.end();
  }
  return d;
}

/** The client's run, held to the deadline: its outcome and claims (or why it has none) go into `d`. */
async function runClient(env: RunEnv, req: RunRequest, d: Driven): Promise<void> {
  const abort = new AbortController();
  let deadline: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    deadline = setTimeout(() => resolve('timeout'), req.deadlineMs);
  });
  // Through a promise chain, so a client that throws synchronously is caught like one that rejects.
  const running = Promise.resolve()
    .then(() => env.client.run(req, abort.signal))
    .then(
      (r) => ({ ok: true as const, r: r as unknown }),
      (e: unknown) => ({ ok: false as const, e }),
    );
  const first = await Promise.race([running, timedOut]);
  clearTimeout(deadline);
  if (first === 'timeout') {
    d.transcript.record({ kind: 'decision', outcome: 'timeout' });
    abort.abort(new Error('deadline'));
    d.outcome = { kind: 'timeout', deadlineMs: req.deadlineMs };
    let grace: NodeJS.Timeout | undefined;
    const settled = await Promise.race([running, new Promise<false>((r) => (grace = setTimeout(() => r(false), env.abortGraceMs ?? ABORT_GRACE_MS)))]);
    clearTimeout(grace);
    // A client that ignores the abort may keep connecting: the caller gives the next run fresh listeners.
    if (settled === false) d.hungClient = true;
    else if (!settled.ok && settled.e instanceof HarnessFault) throw settled.e;
  } else if (first.ok) {
    const problem = reportProblem(first.r);
    if (problem) d.outcome = { kind: 'crashed', reason: `the client's result is invalid: ${problem}` };
    else ({ claims: d.claims, unknown: d.unknownFields } = keptReport(first.r as ClientReport));
    d.transcript.record({
      kind: 'decision',
      outcome: d.outcome.kind === 'crashed' ? 'crashed' : 'reported',
      ...(d.claims ? { decision: d.claims.decision } : {}),
    });
  } else {
    const e = first.e as Error | undefined;
    // A fault of the adapter, not of the client: the harness's, never blamed on the client.
    if (e instanceof HarnessFault) throw e;
    d.outcome = { kind: 'crashed', reason: e instanceof ClientFault ? e.message : `the client threw: ${e?.message ?? String(first.e)}` };
    d.transcript.record({ kind: 'decision', outcome: 'crashed' });
  }
}
