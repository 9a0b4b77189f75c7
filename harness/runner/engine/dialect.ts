/**
 * A rejection is credited only when the client could have read the card, and speaks A2A at all
 * (docs/rules.md, principle 5). The transcript names each call by its neutral operation (v1.0's names) only where
 * the peer took it in its own dialect (a v0.3 peer decodes `message/send` to SendMessage; a v1.0
 * peer records `message/send` as sent). Where no request of the run's scenarios names one (a run of
 * "must reject" scenarios, or a single one), the harness establishes it itself: a control exchange
 * (control.ts), once per run, in a dialect the client declared, recorded in results.json and shown.
 * A scenario's verdict so never depends on which other scenarios ran with it.
 *
 * A client that speaks A2A neither in its scenarios nor in the control (a v0.3-only client that
 * fails on v1.0 cards, a broken TLS set-up) has its PASS and INFORMATIONAL verdicts turned into
 * UNSUPPORTED with that reason, so it does not collect PASSes by declining everything. Failures stay
 * (a task class it declared could not even start), and so does NON_STRICT: a miss is no credit to
 * take back.
 */
import type { ControlRecord, ScenarioResult } from '../../core/results.js';
import { wireEvidence } from '../../core/verdict.js';
import { OPERATIONS } from '../../core/scenario/runtime.js';
import type { WireEvent } from '../../core/transcript.js';

/** The neutral operations: A2A v1.0's JSON-RPC method names (spec §5.3, §9.4), which the v0.3 dialect decodes into. */
export const V1_METHODS: ReadonlySet<string> = new Set(OPERATIONS);

/** Verdicts the credit never touches: failures, and NON_STRICT (a miss is no credit to take back). */
const KEEP = new Set(['FAIL', 'TIMEOUT', 'ERROR', 'UNSUPPORTED', 'NON_STRICT']);

/** Whether a transcript shows an A2A operation a peer took in its own dialect (a -32601 was not in its dialect, whatever its name). */
export function speaksIn(events: readonly WireEvent[]): boolean {
  return events.some((e) => e.kind === 'http' && !!e.rpc && V1_METHODS.has(e.rpc.method) && e.rpcError?.code !== -32601);
}

const graded = (results: readonly ScenarioResult[]) => results.filter((r) => r.outcome.kind !== 'unsupported' && r.outcome.kind !== 'error');

/** Whether the run's own scenarios show the client speaking A2A. */
function spokeA2A(results: readonly ScenarioResult[]): boolean {
  return graded(results).some((r) => speaksIn(r.transcript));
}

/** Whether the credit needs a control exchange: the scenarios show no A2A, and some verdict would be taken back without it. */
export function needsControl(results: readonly ScenarioResult[]): boolean {
  const g = graded(results);
  return g.length > 0 && !spokeA2A(g) && g.some((r) => !KEEP.has(r.verdict));
}

/**
 * The run's verdicts, credited: unchanged where the scenarios or the control show the client
 * speaking A2A; otherwise each PASS and INFORMATIONAL becomes UNSUPPORTED, saying why.
 */
export function creditDialect(results: ScenarioResult[], control?: ControlRecord): ScenarioResult[] {
  const g = graded(results);
  if (g.length === 0 || spokeA2A(g) || control?.spoke) return results;
  const requests = g.reduce((n, r) => n + r.transcript.filter((e) => e.kind === 'http').length, 0);
  const rpc = [...new Set(g.flatMap((r) => r.transcript.flatMap((e) => (e.kind === 'http' && e.rpc ? [e.rpc.method] : []))))];
  const reason =
    'the client never spoke A2A in a dialect its peers speak: no request was an A2A operation the peer could take, in any scenario' +
    (control
      ? ` nor in the harness's control exchange (${control.dialect}: ${control.summary})`
      : ' (no control exchange could run: the client lists no "text" task class)') +
    ', so nothing it declined can be credited';
  const fact = `${requests} HTTP request(s) in the run's scenarios${rpc.length ? `; JSON-RPC methods named: ${rpc.slice(0, 8).join(', ')}` : '; none was JSON-RPC'}`;
  return results.map((r) =>
    r.outcome.kind === 'unsupported' || r.outcome.kind === 'error' || KEEP.has(r.verdict)
      ? r
      : {
          ...r,
          verdict: 'UNSUPPORTED',
          checks: [{ rule: 'DIALECT', verdict: 'UNSUPPORTED', reason, basis: 'unsupported', evidence: [wireEvidence(undefined, fact)] }, ...r.checks],
        },
  );
}
