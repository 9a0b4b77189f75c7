/**
 * Clients nobody on the harness team wrote the rules for: the python3 example shim over the NDJSON
 * protocol, and the real @a2a-js/sdk 1.3.0. Both run end to end; their wire traces and verdicts
 * must match what their READMEs publish.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../harness/runner/engine/run.js';
import { ROOT } from './helpers/cli.js';
import { BUILTIN_FILES } from './helpers/scenarios.js';
import { differences, matrixRowProblems, baselineVerdicts, verdicts } from './helpers/published.js';

describe('clients under test (their verdicts pinned in baselines/, which the docs tables render)', () => {
  it('the python3 shim runs over the real wire and gets the verdicts its baseline pins (its README renders them)', { timeout: 120_000 }, async () => {
    // The CLI's own run, in this process (no cold CLI start): a python process per lane, over NDJSON.
    const r = { results: await runConformance({ clientCmd: 'python3 clients/examples/python/client.py', cwd: ROOT, files: BUILTIN_FILES, lanes: 4 }) };
    expect(r.results.exitCode).toBe(1);
    expect(r.results.client.name).toBe('python-simple');
    // What it declares it does not implement comes through the NDJSON hello, and leaves those scenarios out with its reasons.
    expect(r.results.client.notImplemented?.map((d) => d.capability)).toEqual(['signed-card-verification', 'push-receiver', 'streaming']);
    expect(r.results.notRun.find((n) => n.id === 'trust-signature/valid')?.reason).toMatch(
      /^needs signed-card-verification, .*"standard library only: no JWS verification"/,
    );
    expect(r.results.results.find((x) => x.id === 'trust-signature/tampered')?.verdict).toBe('FAIL');
    const control = r.results.results.find((x) => x.id === 'spec-tls-verify/valid-certificate-control')!;
    // Its wire trace: the card fetched over TLS, SendMessage, then GetTask polls.
    const http = control.transcript.flatMap((e) => (e.kind === 'http' ? [e.rpc?.method ?? `${e.method} ${e.path.replace(/^\/t\/[^/]+/, '')}`] : []));
    expect(http[0]).toBe('GET /.well-known/agent-card.json');
    expect(http).toContain('SendMessage');
    expect(http).toContain('GetTask');
    expect(control.transcript.some((e) => e.kind === 'http' && e.headers.a2aVersion === '1.0')).toBe(true);
    expect(control.stderr).toContain('[python-simple] task');
    const published = baselineVerdicts('python-simple');
    expect(Object.keys(published).length).toBe(r.results.results.length);
    expect(differences(r.results, published)).toEqual([]);
    expect(verdicts(r.results)).toEqual(published);
    // Its row of the built-in clients' matrix (docs/clients/README.md).
    expect(matrixRowProblems(r.results)).toEqual([]);
    expect(new Set(Object.values(published))).toContain('PASS');
    expect(new Set(Object.values(published))).toContain('FAIL');
  });
});
