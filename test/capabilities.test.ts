/**
 * Declared capabilities (docs/protocol.md, "Declared capabilities"): a client that says it does not
 * implement something of the closed list is not run on the scenarios whose premise needs it (listed
 * as not run, with its reason, never credited), is still run and graded where declining is the duty,
 * and its tier says it is for the declared capabilities.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helloProblem } from '../harness/adapters/contract.js';
import { createBuiltinClient } from '../clients/index.js';
import { CAPABILITIES, type AbsentCapability } from '../harness/core/protocol/capabilities.js';
import type { ClientAdapter } from '../harness/core/protocol/adapter.js';
import { capabilityNeeds, capabilityProblem } from '../harness/runner/engine/capability-needs.js';
import { runConformance } from '../harness/runner/engine/run.js';
import { buildMatrix } from '../harness/runner/judge/matrix.js';
import { tierOf } from '../harness/runner/judge/tiers.js';
import { schemaValidator } from '../harness/runner/load/json-schema.js';
import { badgeMessage, badgeTitle } from '../reports/matrix.js';
import { renderHtmlReport } from '../reports/html/report.js';
import { ALL_SCENARIOS, BUILTIN_FILES } from './helpers/scenarios.js';

const ROOT = join(import.meta.dirname, '..');
const NO_VERIFY: AbsentCapability = { capability: 'signed-card-verification', reason: 'no JWS library in this client yet' };

/** A built-in client whose hello adds a declaration, as a vendor's would. */
function declaring(name: string, notImplemented: AbsentCapability[]): () => ClientAdapter {
  return () => {
    const inner = createBuiltinClient(name);
    return {
      hello: async () => ({ ...(await inner.hello()), notImplemented }),
      run: (req, signal) => inner.run(req, signal),
      close: () => inner.close?.() ?? Promise.resolve(),
    };
  };
}

describe('which scenarios need a capability', () => {
  it('a required signature that holds needs verification; one that does not hold, or one not required, runs (declining is the duty there)', () => {
    const all = ALL_SCENARIOS;
    const needs = (id: string) => capabilityNeeds(all.find((s) => s.id === id)!).map((n) => n.capability);
    for (const id of ['trust-signature/valid', 'trust-uninterpretable/status-only', 'trust-kid/listed-key', 'trust-alg/es256'])
      expect(needs(id), id).toContain('signed-card-verification');
    for (const id of [
      'trust-signature/tampered',
      'trust-kid/unknown',
      'trust-kid/expired',
      'trust-kid/no-anchor',
      'trust-jku/own-origin',
      'trust-alg/none',
      'trust-alg/hmac-public-key',
      'trust-signature/tampered-not-required',
    ])
      expect(needs(id), id).not.toContain('signed-card-verification');
    expect(needs('hs-challenge/token-works')).toContain('oauth-client-credentials');
    expect(needs('push-receipt/genuine')).toContain('push-receiver');
    expect(needs('push-receipt/partner-mtls')).toEqual(expect.arrayContaining(['push-receiver', 'mtls-push-receiver']));
    expect(needs('stream-framing/split-writes')).toContain('streaming');
    expect(needs('spec-tls-verify/expired')).toEqual([]);
    // A client that declares nothing is never left out for a capability.
    for (const s of all) expect(capabilityProblem({}, s)).toBeUndefined();
  });

  it('hello.notImplemented: the closed list, each once, a one-line reason; the schemas name the same list', () => {
    const base = { name: 'c', version: '1', profile: null, taskClasses: ['text'] };
    expect(helloProblem({ ...base, notImplemented: [NO_VERIFY] })).toBeUndefined();
    expect(helloProblem({ ...base, notImplemented: [{ capability: 'grpc', reason: 'x' }] })).toMatch(/not a capability the harness knows/);
    expect(helloProblem({ ...base, notImplemented: [NO_VERIFY, NO_VERIFY] })).toMatch(/names signed-card-verification twice/);
    expect(helloProblem({ ...base, notImplemented: [{ ...NO_VERIFY, reason: 'one\n::notice::forged' }] })).toMatch(/must be one line/);
    expect(helloProblem({ ...base, notImplemented: [{ ...NO_VERIFY, reason: '' }] })).toMatch(/must be one line/);
    expect(helloProblem({ ...base, notImplemented: [{ ...NO_VERIFY, extra: 1 }] })).toMatch(/must be a list of/);
    const enumAt = (file: string, path: (d: any) => unknown) => path(JSON.parse(readFileSync(join(ROOT, 'docs', file), 'utf8')));
    expect(enumAt('ndjson/hello.schema.json', (d) => d.properties.notImplemented.items.properties.capability.enum)).toEqual([...CAPABILITIES]);
    expect(enumAt('results.schema.json', (d) => d.properties.client.properties.notImplemented.items.properties.capability.enum)).toEqual([...CAPABILITIES]);
    const valid = schemaValidator('ndjson/hello.schema.json');
    expect(valid({ type: 'hello', ...base, notImplemented: [NO_VERIFY] })).toBe(true);
    expect(valid({ type: 'hello', ...base, notImplemented: [{ ...NO_VERIFY, reason: 'two\nlines' }] })).toBe(false);
  });
});

describe('a client that declares no signed-card verification', () => {
  it('is not run where a signature that holds is required, still FAILs where it proceeds on a required signature that does not hold, and is ranked for the declared capabilities', async () => {
    const r = await runConformance({
      adapter: declaring('naive:skips-signature-verification', [NO_VERIFY]),
      files: BUILTIN_FILES,
      pick: { grep: { source: '^trust-(signature|kid)/', test: (t) => /^trust-(signature|kid)\//.test(t) } },
    });
    const left = r.notRun.filter((n) => n.reason.startsWith('needs signed-card-verification'));
    expect(left.map((n) => n.id).sort()).toEqual(['trust-kid/listed-key', 'trust-signature/key-store-busy', 'trust-signature/valid']);
    expect(left[0]!.reason).toContain('"no JWS library in this client yet"');
    // Never credited: none of them is a result.
    expect(r.results.map((x) => x.id)).not.toContain('trust-signature/valid');
    const verdict = (id: string) => r.results.find((x) => x.id === id)?.verdict;
    // Proceeding on a card whose required signature does not hold is still a failure.
    for (const id of ['trust-signature/tampered', 'trust-kid/unknown', 'trust-kid/expired']) expect(verdict(id), id).toBe('FAIL');
    expect(r.client.notImplemented).toEqual([NO_VERIFY]);

    const tier = tierOf(r);
    expect(tier.declared).toEqual([{ ...NO_VERIFY, notRun: 3 }]);
    const { matrix } = buildMatrix([r]);
    const c = matrix.clients[0]!;
    expect(c.tier.declared).toEqual([{ ...NO_VERIFY, notRun: 3 }]);
    // A selection (--grep) of a client that declares a capability absent: both, in a word that fits.
    expect(badgeMessage(c)).toBe('unranked (subset)');
    expect(badgeMessage({ tier: { ...c.tier, selection: undefined } })).toMatch(/ \(scoped\)$/);
    expect(badgeTitle(matrix, c)).toContain('for the declared capabilities (not implemented: signed-card-verification)');
    expect(schemaValidator('matrix.schema.json')(matrix)).toBe(true);
    expect(schemaValidator('results.schema.json')(r)).toBe(true);
    const html = renderHtmlReport(r);
    expect(html).toContain('data-testid="declared"');
    expect(html).toContain('no JWS library in this client yet');
  });

  it('the same client declaring nothing runs every one of those scenarios, and its tier has no scope', async () => {
    const r = await runConformance({
      adapter: declaring('naive:skips-signature-verification', []),
      files: BUILTIN_FILES,
      pick: { ids: ['trust-signature/valid', 'trust-signature/tampered'] },
    });
    expect(r.results.map((x) => x.id).sort()).toEqual(['trust-signature/tampered', 'trust-signature/valid']);
    expect(r.notRun.filter((n) => n.reason.startsWith('needs '))).toEqual([]);
    expect(tierOf(r).declared).toBeUndefined();
  });
});
