/**
 * A rejection is credited only when the client could have read the card, and spoke the peer's
 * dialect somewhere in the run (DESIGN.md §3). The transcript names each call by its neutral
 * operation (v1.0's names) only where the peer took it in its own dialect (a v0.3 peer decodes
 * `message/send` to SendMessage; a v1.0 peer records `message/send` as sent). A run in which no
 * request named one shows a client that never reached A2A in a dialect its peers speak (a v0.3-only
 * client that fails on v1.0 cards, a broken TLS set-up): its PASS and INFORMATIONAL verdicts become UNSUPPORTED with that reason, so it
 * does not collect PASSes by declining everything. Failures stay (a task class it declared could
 * not even start), and so does NON_STRICT: a miss is no credit to take back.
 */
import type { ScenarioResult } from '../core/results.js';
import { wireEvidence } from '../core/verdict.js';
import { OPERATIONS } from '../core/scenario.js';

/** The neutral operations: A2A v1.0's JSON-RPC method names (spec §5.3, §9.4), which the v0.3 dialect decodes into. */
export const V1_METHODS: ReadonlySet<string> = new Set(OPERATIONS);

/** Verdicts the credit never touches: failures, and NON_STRICT (a miss is no credit to take back). */
const KEEP = new Set(['FAIL', 'TIMEOUT', 'ERROR', 'UNSUPPORTED', 'NON_STRICT']);

export function spokeV1(results: readonly ScenarioResult[]): boolean {
  // A call the peer refused as method-not-found (-32601) was not in its dialect, whatever its name.
  return results.some((r) => r.transcript.some((e) => e.kind === 'http' && !!e.rpc && V1_METHODS.has(e.rpc.method) && e.rpcError?.code !== -32601));
}

export function creditDialect(results: ScenarioResult[]): ScenarioResult[] {
  const graded = results.filter((r) => r.outcome.kind !== 'unsupported' && r.outcome.kind !== 'error');
  if (graded.length === 0 || spokeV1(graded)) return results;
  const requests = graded.reduce((n, r) => n + r.transcript.filter((e) => e.kind === 'http').length, 0);
  const rpc = [...new Set(graded.flatMap((r) => r.transcript.flatMap((e) => (e.kind === 'http' && e.rpc ? [e.rpc.method] : []))))];
  const reason =
    'the client never spoke A2A in a dialect its peers speak in this run: no request was an A2A operation the peer could take, in any scenario, so nothing it declined can be credited ' +
    '(if it does speak the dialect, run a scenario it proceeds on; every built-in family has one)';
  const fact = `${requests} HTTP request(s) in the run${rpc.length ? `; JSON-RPC methods named: ${rpc.slice(0, 8).join(', ')}` : '; none was JSON-RPC'}`;
  return results.map((r) =>
    r.outcome.kind === 'unsupported' || r.outcome.kind === 'error' || KEEP.has(r.verdict)
      ? r
      : { ...r, verdict: 'UNSUPPORTED', checks: [{ rule: 'DIALECT', verdict: 'UNSUPPORTED', reason, basis: 'unsupported', evidence: [wireEvidence(undefined, fact)] }, ...r.checks] },
  );
}
