/**
 * Clients nobody on the harness team wrote the rules for: the python3 example shim over the NDJSON
 * protocol, and the real @a2a-js/sdk 1.3.0. Both run end to end; their wire traces and verdicts
 * must match what their READMEs publish.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { SubprocessClient } from '../harness/adapters/subprocess.js';
import { ROOT } from './helpers/cli.js';
import { runInProcess } from './helpers/results.js';

/** The verdict table a README publishes between its result markers: scenario id → verdict. */
function publishedVerdicts(readme: string, marker: string): Record<string, string> {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const section = text.slice(text.indexOf(`<!-- results:${marker}:start -->`), text.indexOf(`<!-- results:${marker}:end -->`));
  return Object.fromEntries([...section.matchAll(/^\| `([^`]+)` \| [A-Z0-9-]+ \| \*\*([A-Z_]+)\*\* \|/gm)].map((m) => [m[1]!, m[2]!]));
}
const verdicts = (r: RunResults) => Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));

describe('clients under test (their README tables are written by bench/scenario-table.mjs from CLI runs)', () => {
  it('the python3 shim runs over the real wire and gets the mix of verdicts its README publishes', { timeout: 120_000 }, async () => {
    // In-process (the CLI's path is test/cli.test.ts's): the same NDJSON transport, without a cold vitest.
    const r = { results: await runInProcess(new SubprocessClient({ command: 'python3 clients/examples/python/client.py', cwd: ROOT })) };
    expect(r.results.exitCode).toBe(1);
    expect(r.results.client.name).toBe('python-simple');
    const control = r.results.results.find((x) => x.id === 'spec-tls-verify/valid-certificate-control')!;
    // Its wire trace: the card fetched over TLS, SendMessage, then GetTask polls.
    const http = control.transcript.flatMap((e) => (e.kind === 'http' ? [e.rpc?.method ?? `${e.method} ${e.path.replace(/^\/t\/[^/]+/, '')}`] : []));
    expect(http[0]).toBe('GET /.well-known/agent-card.json');
    expect(http).toContain('SendMessage');
    expect(http).toContain('GetTask');
    expect(control.transcript.some((e) => e.kind === 'http' && e.headers.a2aVersion === '1.0')).toBe(true);
    expect(control.stderr).toContain('[python-simple] task');
    const published = publishedVerdicts('clients/examples/python/README.md', 'python');
    expect(Object.keys(published).length).toBe(r.results.results.length);
    expect(verdicts(r.results)).toEqual(published);
    expect(new Set(Object.values(published))).toContain('PASS');
    expect(new Set(Object.values(published))).toContain('FAIL');
  });

  it('@a2a-js/sdk 1.3.0 runs through every scenario; its results are the README\'s', { timeout: 120_000 }, async () => {
    const r = { results: await runInProcess('a2a-js-sdk') };
    expect(r.results.summary.ERROR).toBe(0);
    expect(verdicts(r.results)).toEqual(publishedVerdicts('README.md', 'sdk'));
  });

  it('@a2a-js/sdk 0.3.14 runs through every scenario for a v0.3 client; its results are the README\'s, and it is PASSed nowhere it never reached the peer\'s dialect', { timeout: 120_000 }, async () => {
    const r = await runInProcess('a2a-js-sdk@0.3');
    expect(r.summary.ERROR).toBe(0);
    expect(verdicts(r)).toEqual(publishedVerdicts('README.md', 'sdk03'));
    for (const x of r.results.filter((x) => x.verdict === 'PASS' && x.outcome.kind === 'reported'))
      // A PASS either declined after reading the card, or spoke the peer's dialect on the wire.
      expect(x.claims?.decision === 'rejected' || x.transcript.some((e) => e.kind === 'http' && !!e.rpc?.wireMethod), x.id).toBe(true);
  });
});
