/**
 * Executes one scenario run against a client: starts the scripted peer on the shared listeners,
 * hands the client its run request, enforces the deadline, then grades the wire.
 */
import { createHash } from 'node:crypto';
import { validateCard } from '../../core/card-validator-v03.js';
import { grade, markProbes, type RunOutcome } from '../../core/oracle/index.js';
import type { LagRecord, ScenarioResult } from '../../core/results.js';
import { lagWindow } from '../../net/lag.js';
import { JWKS_PATH, dialectProblem, dialectsFor, fillProfile, profileFor, type Scenario } from '../../core/scenario.js';
import { Transcript } from '../../core/transcript.js';
import { claimEvidence } from '../../core/verdict.js';
import {
  DECISIONS,
  DEFAULT_PROFILE,
  DEGRADATION_RECORDS,
  ERROR_CLASSES,
  isKnownDegradation,
  type ClientReport,
  type ClientTls,
  type RunRequest,
} from '../../core/vocabulary/types.js';
import { ownerOf, type RunEnv } from '../infrastructure/env.js';
import { PeerHost } from '../../net/peer-host.js';
import type { PkiFiles } from '../../pki/index.js';
import { mountPeer, type MountedPeer } from '../infrastructure/mount.js';
import { signatureStatus } from '../judge/signature-status.js';
import { ClientFault, HarnessFault } from '../../faults.js';

/**
 * Grace after an abort before the harness stops waiting for the client. The subprocess adapter
 * kills a process 2 s after the abort and waits for it to exit, so it settles well inside this.
 */
export const ABORT_GRACE_MS = 5000;

/** The opaque id a client sees: it cannot branch on the rule's name. */
export function opaqueId(id: string, salt: string): string {
  return `s-${createHash('sha256').update(`${salt}\0${id}`).digest('hex').slice(0, 8)}`;
}

/** Deepest nesting a client's result may have: its declared fields are flat; far below any stack. */
export const MAX_REPORT_DEPTH = 32;
/** The fields of a ClientReport (docs/protocol.md); any other is ignored, and said. */
const REPORT_FIELDS = ['decision', 'errorClass', 'degradations', 'taskIds', 'notes'] as const;

/** The first of an object's own keys (walked without recursion) nested deeper than `max`, as a path. */
function tooDeep(value: unknown, max: number): string | undefined {
  const stack: Array<[unknown, string[]]> = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (path.length >= max)
      return `${path
        .slice(0, 3)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join('.')}…`;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x && typeof x === 'object') stack.push([x, [...path, k]]);
  }
  return undefined;
}

/** Why a client's result is not a valid ClientReport, or undefined when it is one. */
export function reportProblem(r: unknown): string | undefined {
  const o = r as Partial<ClientReport> | null | undefined;
  if (!o || typeof o !== 'object') return `the result is ${o === null ? 'null' : typeof o}, not a report object`;
  // Before any field is read: a result nested past any use would cost the report its renderer's stack.
  const deep = tooDeep(o, MAX_REPORT_DEPTH);
  if (deep) return `it nests deeper than ${MAX_REPORT_DEPTH} levels (at ${deep})`;
  if (!DECISIONS.includes(o.decision as never)) return `decision must be one of ${DECISIONS.join(', ')}`;
  if (o.errorClass !== undefined && !ERROR_CLASSES.includes(o.errorClass)) return `errorClass must be one of ${ERROR_CLASSES.join(', ')}`;
  if (!Array.isArray(o.degradations) || o.degradations.some((d) => typeof d !== 'string')) return 'degradations must be a list of strings';
  if (!Array.isArray(o.taskIds) || o.taskIds.some((d) => typeof d !== 'string')) return 'taskIds must be a list of strings';
  if (o.notes !== undefined && typeof o.notes !== 'string') return 'notes must be a string';
  return undefined;
}

/**
 * A valid result as the harness keeps it: its declared fields only, so nothing a client adds reaches
 * results.json or the report; the names of the others (at most ten, cut to 60 characters) for a warning.
 */
export function keptReport(r: ClientReport): { claims: ClientReport; unknown: string[] } {
  const claims = {} as Record<string, unknown>;
  for (const k of REPORT_FIELDS) if ((r as unknown as Record<string, unknown>)[k] !== undefined) claims[k] = (r as unknown as Record<string, unknown>)[k];
  const unknown = Object.keys(r).filter((k) => !(REPORT_FIELDS as readonly string[]).includes(k));
  return {
    claims: claims as unknown as ClientReport,
    unknown: unknown
      .slice(0, 10)
      .map((k) => k.slice(0, 60))
      .concat(unknown.length > 10 ? [`… ${unknown.length - 10} more`] : []),
  };
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
  // The harness's own delay while this run is in flight: a timing verdict of a lagged run is confirmed before it is reported.
  const window = lagWindow();
  let lag: LagRecord | undefined;
  // The dialects the client speaks of the scenario's (the CLI never selects a scenario whose dialects it speaks none of; run directly, it gets them all).
  const spoken = dialectsFor(env.hello, s);
  let profile = env.hello.profile ?? {
    ...profileFor(DEFAULT_PROFILE, s.profileConstraints, env.hello.extensions ?? []),
    ...(spoken.length ? { dialects: spoken } : {}),
  };
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
    peer: { factory: s.peer.factory, runtime: s.peer.runtime, dialect: s.peer.dialect ?? 'a2a-v1' },
    profile,
    intent: s.intent,
    deadlineMs,
  };
  const declined = !env.hello.taskClasses.includes(s.intent.taskClass)
    ? `the client declared task class ${s.intent.taskClass} unsupported`
    : env.hello.profile
      ? undefined
      : dialectProblem(env.hello, s);
  if (declined) {
    window.end();
    return {
      ...base,
      card: s.peer.card,
      verdict: 'UNSUPPORTED',
      checks: [{ rule: s.rule, verdict: 'UNSUPPORTED', reason: declined, basis: 'unsupported', evidence: [] }],
      claims: null,
      outcome: { kind: 'unsupported' },
      transcript: [],
      ledger: [],
      durationMs: 0,
    };
  }

  let mounted: MountedPeer | undefined;
  let transcript = new Transcript(() => performance.now());
  let card: Record<string, unknown> = s.peer.card;
  let claims: ClientReport | null = null;
  let outcome: RunOutcome = { kind: 'reported' };
  let hungClient = false;
  let unknownFields: string[] = [];
  let runId = 'r-unmounted';
  try {
    mounted = mountPeer(env.host, env.dispatcher, s.peer, { deadlineMs });
    transcript = mounted.transcript;
    runId = `r-${mounted.key}`;
    const peer = mounted.peer;
    card = peer.card;
    // Trust anchors of this run: the JWKS on another vendor's origin, at this run's path.
    profile = fillProfile(profile, { vendorJwksUrl: `${env.host.base('vendor-b', mounted.key)}${JWKS_PATH}` });
    const issues = validateCard(card);
    if (issues.length > 0) throw new Error(`scenario ${s.id} serves a structurally invalid card: ${issues.map((i) => `${i.pointer} ${i.message}`).join('; ')}`);

    const req: RunRequest = {
      id: runId,
      scenario: base.opaqueId,
      cardUrl: peer.cardUrl,
      intent: s.intent,
      profile,
      deadlineMs,
      tls: tlsFor(env.pki, profile.callback),
      // Credentials provisioned out of band for this run (A2A §7.3), where the peer runs a token endpoint.
      ...(peer.credentials ? { credentials: peer.credentials } : {}),
    };
    // Spawning and greeting a subprocess is not the client's time: the deadline starts after it.
    try {
      await env.client.prepare?.();
    } catch (err) {
      if (!(err instanceof ClientFault)) throw err;
      outcome = { kind: 'crashed', reason: (err as Error).message };
    }
    if (outcome.kind === 'reported') {
      const abort = new AbortController();
      let deadline: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => {
        deadline = setTimeout(() => resolve('timeout'), deadlineMs);
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
        transcript.record({ kind: 'decision', outcome: 'timeout' });
        abort.abort(new Error('deadline'));
        outcome = { kind: 'timeout', deadlineMs };
        let grace: NodeJS.Timeout | undefined;
        const settled = await Promise.race([running, new Promise<false>((r) => (grace = setTimeout(() => r(false), env.abortGraceMs ?? ABORT_GRACE_MS)))]);
        clearTimeout(grace);
        // A client that ignores the abort may keep connecting: give the next run fresh listeners, so
        // nothing it does lands in another scenario's transcript.
        if (settled === false) hungClient = true;
        else if (!settled.ok && settled.e instanceof HarnessFault) throw settled.e;
      } else if (first.ok) {
        const problem = reportProblem(first.r);
        if (problem) outcome = { kind: 'crashed', reason: `the client's result is invalid: ${problem}` };
        else ({ claims, unknown: unknownFields } = keptReport(first.r as ClientReport));
        transcript.record({ kind: 'decision', outcome: outcome.kind === 'crashed' ? 'crashed' : 'reported', ...(claims ? { decision: claims.decision } : {}) });
      } else {
        const e = first.e as Error | undefined;
        // A fault of the adapter, not of the client: the harness's, never blamed on the client.
        if (e instanceof HarnessFault) throw e;
        outcome = { kind: 'crashed', reason: e instanceof ClientFault ? e.message : `the client threw: ${e?.message ?? String(first.e)}` };
        transcript.record({ kind: 'decision', outcome: 'crashed' });
      }
    } else transcript.record({ kind: 'decision', outcome: 'crashed' });
    // Let in-flight pushes, state changes and handshake outcomes land before the ledger is read.
    // A push the client acted on before the peer read its answer is recorded here, not lost (found under load).
    await Promise.all([new Promise((r) => setTimeout(r, 30)), env.host.handshakesSettled(1000), env.dispatcher.settled(transcript, 1000)]);
  } catch (err) {
    transcript.record({ kind: 'harness', level: 'error', message: (err as Error).stack ?? String(err) });
  } finally {
    transcript.seal();
    mounted?.end();
    lag = window.end();
  }
  if (hungClient) {
    await env.host.close();
    env.host = await PeerHost.start(env.pems, ownerOf(env.client));
  }
  const diagnostics = env.client.diagnostics?.(runId);
  const signatures = Array.isArray(card.signatures) ? await signatureStatus(card, mounted?.peer.jwks ?? []).catch(() => undefined) : undefined;
  const ledgerSnapshot = mounted?.ledger.snapshot() ?? [];
  let g: ReturnType<typeof grade>;
  try {
    g = grade({ scenario: s, card, profile, intent: s.intent, events: transcript.events, tasks: ledgerSnapshot, claims, outcome });
  } catch (err) {
    g = { verdict: 'ERROR', checks: [{ rule: 'HARNESS', verdict: 'ERROR', reason: `the oracle failed: ${(err as Error).message}`, evidence: [] }] };
  }
  // The rules read the signature's fate from the scenario (peer.signing); the harness's own check of the served card must agree,
  // or the verdict would rest on a description that is not true (a tamper that changed nothing the signature covers, say).
  const sg = s.peer.signing;
  if (sg) {
    const expected =
      sg.breaker || sg.tamper || sg.key === 'unlisted'
        ? 'does not verify'
        : sg.key === 'expired' || sg.key === 'not-yet-valid'
          ? 'verifies, but the key is outside its window'
          : 'verifies';
    const found = signatures?.at(-1);
    if (!found || found.harness !== expected)
      g = {
        verdict: 'ERROR',
        checks: [
          {
            rule: 'HARNESS',
            verdict: 'ERROR',
            reason: `the scenario's signing (${JSON.stringify(sg)}) should give a signature that ${expected}; the harness finds ${found ? `one that ${found.harness}${found.why ? ` (${found.why})` : ''}` : 'none'}`,
            evidence: [],
          },
          ...g.checks,
        ],
      };
  }
  // Degradation records outside the closed list (docs/protocol.md) are kept as claims, and said.
  const strayRecords = (claims?.degradations ?? []).filter((d) => !isKnownDegradation(d));
  const warnings = [
    ...(diagnostics?.warnings ?? []).map((w) => ({ fact: w, source: 'wire' as const })),
    ...(unknownFields.length
      ? [
          claimEvidence(
            `the result's field(s) ${unknownFields.map((k) => JSON.stringify(k)).join(', ')} are not ones the protocol defines (${REPORT_FIELDS.join(', ')}): ignored, not kept`,
          ),
        ]
      : []),
    ...strayRecords
      .slice(0, 5)
      .map((d) =>
        claimEvidence(
          `degradation record ${JSON.stringify(d.slice(0, 100))} is not one the harness reads (${DEGRADATION_RECORDS.join(', ')}, skill <from>-><to>): kept as a claim, read as absent`,
        ),
      ),
  ];
  if (warnings.length)
    g.checks.push({
      rule: 'CLIENT-PROTOCOL',
      verdict: 'INFORMATIONAL',
      reason: `${warnings.length} protocol warning(s); they cost nothing by themselves`,
      evidence: warnings.slice(0, 20),
      basis: 'protocol',
    });
  return {
    ...base,
    profile,
    ...(diagnostics?.stderr ? { stderr: diagnostics.stderr } : {}),
    card,
    verdict: g.verdict,
    checks: g.checks,
    claims,
    outcome: outcome.kind === 'crashed' ? { kind: 'crashed', reason: outcome.reason } : { kind: outcome.kind },
    transcript: transcript.events,
    ledger: markProbes(ledgerSnapshot, { scenario: s, card, profile, intent: s.intent, events: transcript.events, tasks: ledgerSnapshot, claims, outcome }),
    ...(signatures ? { signatures } : {}),
    durationMs: Math.round(performance.now() - started),
    ...(lag ? { lag } : {}),
  };
}
