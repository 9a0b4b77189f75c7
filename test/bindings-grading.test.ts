/**
 * One rule, three bindings: the same scenario told over JSON-RPC, gRPC and HTTP+JSON (`run
 * --binding`) leaves transcripts that every rule grades to the same verdict, for a client that gets
 * them right (reference) and one that gets many wrong (naive), through the real peers and listeners
 * (HTTP/1.1 for JSON-RPC and HTTP+JSON, HTTP/2 for gRPC). The families picked carry auth gates,
 * artifacts and push, where a binding could most easily change what the wire shows.
 */
import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../harness/core/results.js';
import { mainRun } from './helpers/main.js';

const GREP = '/^(hs-challenge|trust-decode|neg-push-mtls)\\/(?!.*\\.v03$)/';
const SUFFIX = /\.(grpc|rest)$/;

/** Each scenario's tellings, by the id they share, with what each check gave. */
function byScenario(results: ScenarioResult[]): Map<string, Map<string, { verdict: string; checks: string[]; binding: string }>> {
  const out = new Map<string, Map<string, { verdict: string; checks: string[]; binding: string }>>();
  for (const r of results) {
    const base = r.id.replace(SUFFIX, '');
    const binding = SUFFIX.exec(r.id)?.[1] ?? 'jsonrpc';
    const checks = r.checks.map((c) => `${c.rule}: ${c.verdict}`).sort();
    if (!out.has(base)) out.set(base, new Map());
    out.get(base)!.set(binding, { verdict: r.verdict, checks, binding });
  }
  return out;
}

describe('the same rule grades a scenario alike over JSON-RPC, gRPC and HTTP+JSON', () => {
  for (const client of ['reference', 'naive']) {
    it(`${client}: every check of every scenario, told over each binding`, async () => {
      const r = await mainRun(['--client', client, '--binding', 'jsonrpc', '--binding', 'grpc', '--binding', 'rest', '--grep', GREP, '--reporter', 'dot']);
      // A scenario of several interfaces (or another certificate) keeps its one telling: compared are those told over all three.
      const groups = new Map([...byScenario(r.results.results)].filter(([, t]) => t.size > 1));
      expect(groups.size).toBeGreaterThanOrEqual(10);
      for (const [id, tellings] of groups) {
        expect([...tellings.keys()].sort(), id).toEqual(['grpc', 'jsonrpc', 'rest']);
        const json = tellings.get('jsonrpc')!;
        for (const b of ['grpc', 'rest']) {
          expect(tellings.get(b)!.checks, `${id} over ${b}`).toEqual(json.checks);
          expect(tellings.get(b)!.verdict, `${id} over ${b}`).toBe(json.verdict);
        }
      }
      // The gRPC tellings' calls really went over gRPC, and the HTTP+JSON ones over HTTP+JSON.
      const told = r.results.results.filter((x) => SUFFIX.test(x.id));
      for (const x of told) {
        const calls = x.transcript.filter((e) => e.kind === 'http' && e.rpc);
        const want = x.id.endsWith('.grpc') ? 'GRPC' : 'HTTP+JSON';
        expect(
          calls.every((e) => e.kind === 'http' && e.binding === want),
          x.id,
        ).toBe(true);
      }
      const verdicts = [...groups.values()].map((t) => t.get('jsonrpc')!.verdict);
      if (client === 'naive') expect(verdicts.filter((v) => v === 'FAIL' || v === 'TIMEOUT').length).toBeGreaterThanOrEqual(5);
      else expect(verdicts.every((v) => v === 'PASS' || v === 'INFORMATIONAL')).toBe(true);
    });
  }
});
