/**
 * The control exchange (docs/rules.md, principle 5: a scenario gets the same verdict run alone as
 * in the full run): a rejection is credited only to a client that speaks A2A at all, and where none of a run's
 * scenarios shows that (a run of "must reject" scenarios, `--scenario` with one id, a vendor file of
 * refusals), the harness shows it itself. It hands the client a plain text task on a clean peer in
 * a dialect the client declared: nothing on that card is a reason to decline, so a client that
 * speaks the dialect takes at least one A2A operation there. Once per run, after its scenarios;
 * recorded in results.json (`control`) with its transcript, and said in the output. It is not a
 * scenario and is never graded: its only use is the credit.
 */
import type { ControlRecord } from '../../core/results.js';
import type { Scenario } from '../../core/scenario/scenario.js';
import { scenarioToV03 } from '../../core/card-v03.js';
import type { Pki } from '../../pki/index.js';
import type { Dialect, Hello } from '../../core/protocol/types.js';
import { createClient, type ClientChoice } from './client-factory.js';
import { speaksIn, V1_METHODS } from './dialect.js';
import { closeEnv, openEnv } from '../infrastructure/env.js';
import { executeScenario } from './execute.js';

/** The id the control's result carries (never in the catalogue: its prefix is not a family's). */
const CONTROL_ID = 'control/plain-text-task';

const V1_CONTROL: Scenario = {
  id: CONTROL_ID,
  rule: 'WIRE-HONEST-REPORT',
  title: 'Control exchange: a plain text task on a clean peer',
  description: 'A card with nothing to decline: text in, text out, no security, no streaming, no push. The harness runs it only to see the client speak A2A.',
  expectation: 'Fetch the card, send the text, poll to the end.',
  spec: 'a2a-conformance: the control exchange (docs/rules.md, principle 5)',
  peer: {
    factory: 'contoso-control',
    card: {
      name: 'Contoso Notes',
      description: 'Files short notes.',
      supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
      provider: { organization: 'Contoso', url: 'https://contoso.example' },
      version: '1.0.0',
      capabilities: { streaming: false, pushNotifications: false },
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
      skills: [{ id: 'notes', name: 'Notes', description: 'Files a note', tags: ['notes'] }],
    },
    runtime: {
      cardListener: 'tls',
      rpcListener: 'tls',
      workMs: 50,
      streaming: false,
      push: { supported: false, delivery: 'plain' },
      outputs: [{ mediaType: 'text/plain', channel: 'task' }],
    },
    signals: [],
  },
  profileConstraints: {},
  intent: {
    taskClass: 'text',
    input: { mediaType: 'text/plain', text: 'File a note: the control exchange ran.' },
    acceptedOutputModes: ['text/plain'],
    completion: 'poll',
  },
  deadlineMs: 5000,
  expect: 'PASS',
};

/** The control scenario in a dialect. */
export function controlScenario(dialect: Dialect): Scenario {
  return dialect === 'a2a-v0.3' ? { ...scenarioToV03(V1_CONTROL), id: CONTROL_ID } : V1_CONTROL;
}

/** The dialects a client declared, v1.0 first (none declared: v1.0). */
export function declaredDialects(hello: Hello): Dialect[] {
  const d = hello.profile?.dialects ?? hello.dialects ?? ['a2a-v1'];
  return (['a2a-v1', 'a2a-v0.3'] as const).filter((x) => d.includes(x));
}

export interface ControlOptions {
  choice: ClientChoice;
  hello: Hello;
  pkiDir: string;
  pems?: Pki;
  idSalt: string;
  deadlineMultiplier: number;
  signal?: AbortSignal;
}

/**
 * Runs the control in each dialect the client declared until one shows it speaking A2A. Empty where
 * it cannot run at all: a client that lists no `text` task class has no task the control could hand it.
 */
export async function runControl(o: ControlOptions): Promise<ControlRecord[]> {
  const out: ControlRecord[] = [];
  if (!o.hello.taskClasses.includes('text')) return out;
  for (const dialect of declaredDialects(o.hello)) {
    if (o.signal?.aborted) break;
    const client = createClient(o.choice);
    let env: Awaited<ReturnType<typeof openEnv>>;
    try {
      env = await openEnv({
        pkiDir: o.pkiDir,
        ...(o.pems ? { pems: o.pems } : {}),
        client,
        hello: o.hello,
        idSalt: `${o.idSalt}:control`,
        deadlineMultiplier: o.deadlineMultiplier,
      });
    } catch (err) {
      // The harness's fault, never the client's: recorded as credited (the control could not show otherwise).
      await client.close?.().catch(() => undefined);
      out.push({
        dialect,
        spoke: true,
        summary: `the harness could not open a lane for it (${(err as Error).message}): not held against the client`,
        outcome: 'error',
        durationMs: 0,
        transcript: [],
      });
      break;
    }
    try {
      let r = await executeScenario(controlScenario(dialect), env);
      // A control that showed nothing while the harness lagged runs once more: a delay of the harness is never the client's fault.
      if (!speaksIn(r.transcript) && r.lag?.lagged) r = await executeScenario(controlScenario(dialect), env);
      const http = r.transcript.filter((e) => e.kind === 'http');
      const ops = [...new Set(http.flatMap((e) => (e.kind === 'http' && e.rpc && V1_METHODS.has(e.rpc.method) ? [e.rpc.wireMethod ?? e.rpc.method] : [])))];
      const spoke = speaksIn(r.transcript);
      const ended =
        r.outcome.kind === 'reported'
          ? `it reported ${r.claims?.decision ?? '?'}`
          : r.outcome.kind === 'timeout'
            ? 'it gave no result by the deadline'
            : `its run ended: ${r.outcome.reason ?? r.outcome.kind}`;
      out.push({
        dialect,
        spoke,
        summary: `${http.length} request(s)${ops.length ? `, A2A operations taken: ${ops.join(', ')}` : ', no A2A operation the peer could take'}; ${ended}`,
        outcome: r.outcome.kind,
        ...(r.claims ? { decision: r.claims.decision } : {}),
        durationMs: r.durationMs,
        transcript: r.transcript,
      });
      if (spoke) break;
    } finally {
      await closeEnv(env);
    }
  }
  return out;
}
