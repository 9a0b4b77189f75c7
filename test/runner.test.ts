/**
 * The runner against hostile clients, harness faults, fixed profiles, unsupported task classes and
 * malformed scenario files: each costs at most its scenario, with a verdict or error that says why.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClientAdapter } from '../harness/adapters/contract.js';
import type { Scenario } from '../harness/core/scenario/scenario.js';
import {
  DECISIONS,
  DEFAULT_PROFILE,
  DEGRADATION_RECORDS,
  ERROR_CLASSES,
  TASK_CLASSES,
  isKnownDegradation,
  type Hello,
} from '../harness/core/protocol/types.js';
import { readFileSync } from 'node:fs';
import { loadCatalogue, scenarioProblem } from '../harness/runner/load/catalogue.js';
import { importVendorModules, VendorImportError } from '../harness/runner/load/vendor-import.js';
import { RULE_IDS } from '../harness/core/oracle/rules.js';
import { ROOT } from './helpers/cli.js';
import { exitCode, unexpectedWhy } from '../harness/runner/judge/policy.js';
import { withGlue } from '../harness/runner/engine/run.js';
import { selectScenarios } from '../harness/runner/engine/select.js';
import { helloProblem } from '../harness/adapters/contract.js';
import type { ScenarioResult } from '../harness/core/results.js';
import { createBuiltinClient } from '../clients/index.js';
import { startHarness } from './helpers/harness.js';
import { runInProcess } from './helpers/results.js';
import { ALL_SCENARIOS, scenario } from './helpers/scenarios.js';

const hello: Hello = { name: 'hostile', version: '0', profile: null, taskClasses: [...TASK_CLASSES] };

function client(run: ClientAdapter['run'], h: Hello = hello): ClientAdapter {
  return { hello: () => h, run };
}

const short = (s: Scenario, deadlineMs = 400): Scenario => ({ ...s, deadlineMs });

describe('hostile clients cost one scenario, never the run', () => {
  it('a client that throws: FAIL from WIRE-DEADLINE, saying it threw', async () => {
    const h = await startHarness(
      client(async () => {
        throw new Error('boom');
      }),
    );
    const r = await h.run(scenario('spec-tls-verify/valid-certificate-control'));
    await h.close();
    expect(r.outcome).toEqual({ kind: 'crashed', reason: 'the client threw: boom' });
    expect(r.checks.find((c) => c.rule === 'WIRE-DEADLINE')).toMatchObject({ verdict: 'FAIL', reason: expect.stringContaining('boom') });
  });

  it('a client that hangs and ignores the abort: TIMEOUT, and the harness moves on', async () => {
    const h = await startHarness(
      client(() => new Promise(() => {})),
      { abortGraceMs: 500 },
    );
    const r = await h.run(short(scenario('spec-tls-verify/valid-certificate-control')));
    const next = await h.run(short(scenario('spec-tls-verify/expired')));
    await h.close();
    expect(r.verdict).toBe('TIMEOUT');
    expect(r.outcome.kind).toBe('timeout');
    expect(next.outcome.kind).toBe('timeout');
  });

  it('a client that returns nothing, or a malformed report, is a FAIL that says why — even where doing nothing looks right', async () => {
    for (const [result, why] of [
      [undefined, 'not a report object'],
      [{ decision: 'rejected' }, 'degradations must be a list'],
      [{ decision: 'maybe', degradations: [], taskIds: [] }, 'decision must be one of'],
    ] as const) {
      const h = await startHarness(client(async () => result as never));
      const r = await h.run(scenario('neg-live-input/live-audio-to-batch-peer'));
      await h.close();
      expect(r.outcome.kind).toBe('crashed');
      expect(r.outcome.reason).toContain(why);
      expect(r.verdict).toBe('FAIL');
    }
  });

  it('a client that throws synchronously is caught like one that rejects', async () => {
    const h = await startHarness(
      client(() => {
        throw new Error('sync boom');
      }),
    );
    const r = await h.run(scenario('spec-tls-verify/valid-certificate-control'));
    await h.close();
    expect(r.outcome).toEqual({ kind: 'crashed', reason: 'the client threw: sync boom' });
  });

  it('a client that ignores the abort cannot leak into the next run: the listeners are replaced', async () => {
    let leak: (() => Promise<void>) | undefined;
    const h = await startHarness(
      client(async (req) => {
        // Keep hammering the card URL long after the deadline, ignoring the abort.
        leak = async () => {
          for (let i = 0; i < 100; i++) {
            await fetch(req.cardUrl).catch(() => {});
            await new Promise((r) => setTimeout(r, 50));
          }
        };
        void leak();
        return new Promise(() => {});
      }),
      { abortGraceMs: 500 },
    );
    const oldOrigin = h.env.host.origin('expired');
    await h.run(short(scenario('spec-tls-verify/expired')));
    expect(h.env.host.origin('expired')).not.toBe(oldOrigin);
    h.env.client = createBuiltinClient('reference');
    const next = await h.run(scenario('spec-tls-verify/expired'));
    await h.close();
    expect(next.verdict).toBe('PASS');
    expect(next.transcript.filter((e) => e.kind === 'tls' && !e.ok)).toHaveLength(1);
  });

  it('a TRACE request or a flood of garbage gets an answer, not a hang or a harness error', async () => {
    const h = await startHarness(
      client(async (req) => {
        const { request } = await import('undici');
        const { Agent } = await import('undici');
        const { readFileSync } = await import('node:fs');
        const agent = new Agent({ connect: { ca: readFileSync(req.tls.caFile, 'utf8') } });
        const rpc = req.cardUrl.replace('/.well-known/agent-card.json', '/rpc');
        const trace = await request(rpc, { method: 'TRACE' as never, dispatcher: agent });
        await trace.body.dump();
        const deep = '['.repeat(20_000) + ']'.repeat(20_000);
        const junk = await request(rpc, { method: 'POST', dispatcher: agent, body: `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":${deep}}}` });
        await junk.body.dump();
        await agent.close();
        return { decision: 'rejected', degradations: [], taskIds: [], notes: `${trace.statusCode} ${junk.statusCode}` };
      }),
    );
    const r = await h.run(scenario('spec-tls-verify/valid-certificate-control'));
    await h.close();
    expect(r.claims?.notes).toBe('405 200');
    expect(r.verdict).not.toBe('ERROR');
    expect(JSON.stringify(r.transcript).length).toBeLessThan(200_000);
  });

  it('a client that lies about tasks it never minted: FAIL from WIRE-HONEST-REPORT', async () => {
    const h = await startHarness(client(async () => ({ decision: 'proceeded', degradations: [], taskIds: ['ghost'] })));
    const r = await h.run(scenario('spec-tls-verify/valid-certificate-control'));
    await h.close();
    expect(r.checks.find((c) => c.rule === 'WIRE-HONEST-REPORT')).toMatchObject({ verdict: 'FAIL' });
    expect(r.verdict).toBe('FAIL');
  });

  it('a degradation record outside the closed list is a protocol warning, read as absent: the missing push->polling is NON_STRICT', async () => {
    const ref = createBuiltinClient('reference');
    const misspelt = client(
      async (req, signal) => {
        const r = await ref.run(req, signal);
        return { ...r, degradations: r.degradations.map((d) => (d === 'push->polling' ? 'push->poll' : d)) };
      },
      await ref.hello(),
    );
    const h = await startHarness(misspelt);
    const r = await h.run(scenario('hs-aspirational/push-not-supported'));
    await h.close();
    expect(r.claims?.degradations).toEqual(['push->poll']);
    expect(r.verdict).toBe('NON_STRICT');
    const warning = r.checks.find((c) => c.rule === 'CLIENT-PROTOCOL');
    expect(warning?.verdict).toBe('INFORMATIONAL');
    expect(warning?.evidence).toEqual([
      expect.objectContaining({ source: 'claims', fact: expect.stringContaining('degradation record "push->poll" is not one the harness reads') }),
    ]);
    // The reference's own records are all in the list: no warning.
    const h2 = await startHarness('reference');
    const ok = await h2.run(scenario('hs-aspirational/push-not-supported'));
    await h2.close();
    expect(ok.claims?.degradations).toEqual(['push->polling']);
    expect(ok.checks.some((c) => c.rule === 'CLIENT-PROTOCOL')).toBe(false);
  });

  it('docs/protocol.md and the result schema carry the closed lists the code reads, each value once', () => {
    const doc = readFileSync(join(ROOT, 'docs/protocol.md'), 'utf8');
    const schema = JSON.parse(readFileSync(join(ROOT, 'docs/ndjson/result.schema.json'), 'utf8')) as { properties: Record<string, { enum?: string[] }> };
    expect(schema.properties.decision!.enum).toEqual([...DECISIONS]);
    expect(schema.properties.errorClass!.enum).toEqual([...ERROR_CLASSES]);
    for (const v of [...DECISIONS, ...ERROR_CLASSES, ...DEGRADATION_RECORDS])
      expect(doc.match(new RegExp(`^\\| \`${v.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&')}\` `, 'gm')), v).toHaveLength(1);
    expect(isKnownDegradation('skill (default)->summarize') && isKnownDegradation('skill->card-minimum')).toBe(true);
    expect(isKnownDegradation('push->poll') || isKnownDegradation('skills a->b')).toBe(false);
  });

  it('a client that says it rejected while doing nothing passes only what the wire shows', async () => {
    const h = await startHarness(client(async () => ({ decision: 'rejected', degradations: [], taskIds: [] })));
    const r = await h.run(scenario('neg-live-input/text-task-on-audio-card'));
    await h.close();
    // It never minted the text task it should have: over-rejection, graded from the ledger.
    expect(r.checks.find((c) => c.rule === 'NEG-LIVE-INPUT')?.verdict).toBe('FAIL');
  });
});

describe('a rejection is credited only when the client could have read the card and spoke the dialect', () => {
  /** A v0.3-only client: it reads the card, finds no `url`, and declines everything (as a2a-ai-provider does). */
  const v03Only = client(async (req) => {
    const { Agent } = await import('undici');
    const agent = new Agent({ connect: { ca: readFileSync(req.tls.caFile, 'utf8') } });
    try {
      const card = (await (await fetch(req.cardUrl, { dispatcher: agent } as RequestInit)).json()) as { url?: string };
      if (!card.url) return { decision: 'rejected', errorClass: 'unnegotiable-card', degradations: [], taskIds: [], notes: "no valid 'url' in the card" };
      return { decision: 'proceeded', degradations: [], taskIds: [] };
    } catch (err) {
      return { decision: 'rejected', errorClass: 'handshake', degradations: [], taskIds: [], notes: String(err) };
    } finally {
      await agent.close();
    }
  });

  it('a v0.3-only client collects no PASS on v1.0 peers: its declines become UNSUPPORTED ("never spoke A2A in a dialect its peers speak"); what it could not start stays FAIL', async () => {
    const ids = ['neg-live-input/live-audio-to-batch-peer', 'neg-resub-only/only-output-unreachable', 'neg-live-input/text-task-on-audio-card'];
    const r = await runInProcess(v03Only, ids);
    const v = Object.fromEntries(r.results.map((x) => [x.id, x.verdict]));
    expect(v['neg-live-input/live-audio-to-batch-peer']).toBe('UNSUPPORTED');
    expect(v['neg-resub-only/only-output-unreachable']).toBe('UNSUPPORTED');
    expect(v['neg-live-input/text-task-on-audio-card']).toBe('FAIL');
    const d = r.results[0]!.checks[0]!;
    expect(d).toMatchObject({ rule: 'DIALECT', verdict: 'UNSUPPORTED' });
    expect(d.reason).toContain('never spoke A2A in a dialect its peers speak');
    expect(r.summary.PASS).toBe(0);
    // The same declines from a client that does speak v1.0 elsewhere in the run are credited.
    const ref = await runInProcess('reference', ids);
    expect(ref.results.map((x) => x.verdict)).toEqual(['PASS', 'PASS', 'PASS']);
  });

  it('a miss stays a miss in a run that never spoke A2A: NON_STRICT is kept, not turned UNSUPPORTED (an exported counterexample run alone fails as it did)', async () => {
    const r = await runInProcess('naive:never-escalates', ['neg-escalate/known-extension']);
    expect(r.results[0]!.transcript.some((e) => e.kind === 'http' && !!e.rpc)).toBe(false);
    expect(r.results[0]!.verdict).toBe('NON_STRICT');
  });

  it('a client that declares only a2a-v0.3 in its hello gets UNSUPPORTED, said why, for a scenario that needs a v1.0 client (the CLI lists it as not run)', async () => {
    const h = await startHarness(client(async () => ({ decision: 'rejected', degradations: [], taskIds: [] }), { ...hello, dialects: ['a2a-v0.3'] }));
    const r = await h.run(scenario('neg-live-input/live-audio-to-batch-peer'));
    await h.close();
    expect(r.verdict).toBe('UNSUPPORTED');
    expect(r.checks[0]!.reason).toBe('the scenario needs a client that speaks a2a-v1; the client speaks a2a-v0.3');
    expect(
      selectScenarios(
        [
          { scenario: scenario('neg-live-input/live-audio-to-batch-peer'), file: 'x' },
          { scenario: scenario('dialect/v03-peer'), file: 'y' },
        ],
        { ...hello, dialects: ['a2a-v0.3'] },
      ).notRun,
    ).toEqual([{ id: 'neg-live-input/live-audio-to-batch-peer', reason: 'the scenario needs a client that speaks a2a-v1; the client speaks a2a-v0.3' }]);
  });
});

describe('a client that declared both dialects is graded by what it declared unless it takes profile.dialects per run', () => {
  const dual = { name: 'dual', version: '1', profile: null, taskClasses: ['async-completion' as const], dialects: ['a2a-v1' as const, 'a2a-v0.3' as const] };
  const ids = [
    'dialect/both-offered-v1-first',
    'dialect/both-offered-v03-client',
    'dialect/upgraded-in-place',
    'dialect/v03-card-to-v1-client',
    'dialect/v03-peer',
  ];
  const entries = ids.map((id) => ({ scenario: scenario(id), file: 'x' }));

  it('without dialectsPerRun: a scenario about a client that speaks only one dialect is not run, saying why', () => {
    const { selected, notRun } = selectScenarios(entries, dual);
    expect(selected.map((e) => e.scenario.id)).toEqual(['dialect/both-offered-v1-first', 'dialect/v03-peer']);
    expect(notRun.map((n) => n.id)).toEqual(['dialect/both-offered-v03-client', 'dialect/upgraded-in-place', 'dialect/v03-card-to-v1-client']);
    expect(notRun[0]!.reason).toMatch(/about a client that speaks only a2a-v0\.3; the client declared a2a-v1, a2a-v0\.3 and is graded by what it declared/);
  });

  it('with dialectsPerRun (the reference): it may be narrowed, and runs them all', () => {
    expect(selectScenarios(entries, { ...dual, dialectsPerRun: true }).notRun).toEqual([]);
  });

  it('the run hands it, and the oracle grades it by, every dialect it declared: on a card offering both, v1.0 first, taking v1.0 PASSes', async () => {
    // The reference, told nothing of per-run narrowing: handed both, it takes the first interface it speaks.
    const inner = createBuiltinClient('reference');
    const h = await startHarness({ hello: async () => ({ ...(await inner.hello()), dialectsPerRun: undefined }), run: (req, sig) => inner.run(req, sig) });
    const r = await h.run(scenario('dialect/v03-peer'));
    const both = await h.run(scenario('dialect/both-offered-v1-first'));
    await h.close();
    expect(r.profile.dialects).toEqual(['a2a-v1', 'a2a-v0.3']);
    expect(r.verdict).toBe('PASS');
    expect(both.verdict).toBe('PASS');
  });
});

describe("harness faults are ERROR, never the client's fault", () => {
  it('an unknown peer factory gives ERROR with the reason', async () => {
    const h = await startHarness('reference');
    const s = scenario('spec-tls-verify/valid-certificate-control');
    const r = await h.run({ ...s, peer: { ...s.peer, factory: 'no-such-peer' } });
    await h.close();
    expect(r.verdict).toBe('ERROR');
    expect(r.checks[0]).toMatchObject({ rule: 'HARNESS', verdict: 'ERROR' });
    expect(r.transcript.find((e) => e.kind === 'harness')).toMatchObject({ message: expect.stringContaining('unknown peer factory "no-such-peer"') });
  });

  it('a scenario whose card is not structurally valid gives ERROR', async () => {
    const h = await startHarness('reference');
    const s = scenario('spec-tls-verify/valid-certificate-control');
    const r = await h.run({ ...s, peer: { ...s.peer, card: { ...s.peer.card, capabilities: { streaming: 'no' } } } });
    await h.close();
    expect(r.verdict).toBe('ERROR');
    expect(exitCode([r], [])).toBe(2);
  });
});

describe('hello: fixed profiles and unsupported task classes', () => {
  const catalogue = ALL_SCENARIOS.map((s) => ({ scenario: s, file: 'x' }));

  it('a fixed profile runs only the scenarios whose constraints it meets; the rest are not run, with the reason', () => {
    const fixed: Hello = { ...hello, profile: { ...DEFAULT_PROFILE, callback: 'https' } };
    const { selected, notRun } = selectScenarios(catalogue, fixed);
    const ids = selected.map((e) => e.scenario.id);
    expect(ids).toContain('neg-push-mtls/https-receiver-wants-push');
    expect(ids).not.toContain('neg-push-mtls/mtls-receiver');
    expect(notRun.find((n) => n.id === 'neg-push-mtls/mtls-receiver')?.reason).toContain('profile.callback is "https", the scenario needs "mtls"');
    expect(notRun.find((n) => n.id === 'neg-live-input/live-audio-to-batch-peer')?.reason).toContain('liveOnlyInputModes lacks audio/pcm');
  });

  it('a profile that can buffer audio does not meet a live-only constraint', () => {
    const fixed: Hello = { ...hello, profile: { ...DEFAULT_PROFILE, bufferableInputModes: ['audio/pcm'], liveOnlyInputModes: ['audio/pcm'] } };
    const { notRun } = selectScenarios(catalogue, fixed);
    expect(notRun.find((n) => n.id === 'neg-live-input/live-audio-to-batch-peer')?.reason).toContain('can buffer audio/pcm');
  });

  it('a task class the client does not list is UNSUPPORTED and never run', async () => {
    let calls = 0;
    const h = await startHarness(client(async () => (calls++, { decision: 'rejected', degradations: [], taskIds: [] }), { ...hello, taskClasses: ['text'] }));
    const live = await h.run(scenario('neg-live-input/live-audio-to-batch-peer'));
    const text = await h.run(scenario('neg-live-input/text-task-on-audio-card'));
    await h.close();
    expect(live.verdict).toBe('UNSUPPORTED');
    expect(live.transcript).toEqual([]);
    expect(text.verdict).not.toBe('UNSUPPORTED');
    expect(calls).toBe(1);
    expect(exitCode([live], [])).toBe(1); // nothing graded
  });
});

describe('a task class declined at run time', () => {
  it('is UNSUPPORTED when nothing was minted, and a FAIL when a task was', async () => {
    const declined = await startHarness(client(async () => ({ decision: 'unsupported', degradations: [], taskIds: [] })));
    const r = await declined.run(scenario('neg-live-input/text-task-on-audio-card'));
    await declined.close();
    expect(r.verdict).toBe('UNSUPPORTED');

    const liar = await startHarness('reference');
    const ref = await liar.run(scenario('neg-live-input/text-task-on-audio-card'));
    await liar.close();
    const { grade } = await import('../harness/core/oracle/index.js');
    const g = grade({
      scenario: scenario(ref.id),
      card: ref.card,
      profile: ref.profile,
      intent: ref.intent,
      events: ref.transcript,
      tasks: ref.ledger,
      claims: { decision: 'unsupported', degradations: [], taskIds: ref.ledger.map((t) => t.id) },
      outcome: { kind: 'reported' },
    });
    expect(g.checks.find((c) => c.rule === 'WIRE-NO-TASK-AFTER-REJECT')?.verdict).toBe('FAIL');
    expect(g.verdict).toBe('FAIL');
  });
});

describe('exit-code policy (DESIGN.md §4.3)', () => {
  it('FAIL and TIMEOUT are unexpected; NON_STRICT only with --strict; ERROR is exit 2', () => {
    expect(unexpectedWhy('FAIL', { strict: false })).toBeDefined();
    expect(unexpectedWhy('TIMEOUT', { strict: false })).toBeDefined();
    expect(unexpectedWhy('NON_STRICT', { strict: false })).toBeUndefined();
    expect(unexpectedWhy('NON_STRICT', { strict: true })).toBeDefined();
    expect(unexpectedWhy('INFORMATIONAL', { strict: true })).toBeUndefined();
    expect(unexpectedWhy('UNSUPPORTED', { strict: true })).toBeUndefined();
  });
});

describe('scenario files', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'a2a-scenarios-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const body = (id: string, extra = '') => `export default [${JSON.stringify({ ...scenario('spec-tls-verify/expired'), id })}${extra}];\n`;

  it('a duplicate id is a load error that names both files', async () => {
    await writeFile(join(dir, 'a.scenario.ts'), body('dup/one'));
    await writeFile(join(dir, 'b.scenario.ts'), body('dup/one'));
    await expect(loadCatalogue([join(dir, 'a.scenario.ts'), join(dir, 'b.scenario.ts')])).rejects.toThrow(
      /duplicate scenario id "dup\/one" in .*a\.scenario\.ts and .*b\.scenario\.ts/,
    );
  });

  it('a malformed scenario names the file and the field', async () => {
    const s = { ...scenario('spec-tls-verify/expired'), id: 'bad/one', title: '' };
    await writeFile(join(dir, 'c.scenario.ts'), `export default [${JSON.stringify(s)}];\n`);
    await expect(loadCatalogue([join(dir, 'c.scenario.ts')])).rejects.toThrow(
      /c\.scenario\.ts: scenario "bad\/one": title: must NOT have fewer than 1 characters/,
    );
  });

  it('a .scenario.json is checked against docs/scenario.schema.json, naming the file and the field', async () => {
    const s = JSON.parse(JSON.stringify({ ...scenario('spec-tls-verify/expired'), id: 'json/one' }));
    const listener = s.peer.runtime.cardListener;
    s.peer.runtime.cardListener = 'plain-http';
    await writeFile(join(dir, 'e.scenario.json'), JSON.stringify({ scenarios: [s] }));
    await expect(loadCatalogue([join(dir, 'e.scenario.json')])).rejects.toThrow(
      /e\.scenario\.json: scenario "json\/one": peer\.runtime\.cardListener: must be equal to one of the allowed values \(tls, mtls/,
    );
    await writeFile(join(dir, 'f.scenario.json'), '{"scenarios": [');
    await expect(loadCatalogue([join(dir, 'f.scenario.json')])).rejects.toThrow(/f\.scenario\.json: not JSON/);
    s.peer.runtime.cardListener = listener;
    await writeFile(join(dir, 'g.scenario.json'), JSON.stringify([s]));
    const loaded = await loadCatalogue([join(dir, 'g.scenario.json')]);
    expect(loaded.map((e) => e.scenario.id)).toEqual(['json/one']);
  });

  it("every built-in scenario follows the published schema, whose rule list is the registry's", async () => {
    for (const s of ALL_SCENARIOS) expect(scenarioProblem(s), s.id).toBeUndefined();
    const schema = JSON.parse(readFileSync(join(ROOT, 'docs/scenario.schema.json'), 'utf8'));
    expect([...schema.$defs.scenario.properties.rule.enum].sort()).toEqual([...RULE_IDS].sort());
  });

  it('a file without the scenario array says what to export', async () => {
    await writeFile(join(dir, 'd.scenario.ts'), 'export const x = 1;\n');
    await expect(loadCatalogue([join(dir, 'd.scenario.ts')])).rejects.toThrow(/default export must be the array returned by defineScenarios/);
  });

  it("modules load apart, as data: a function or a cycle is an error of its own file; a later file's timer that exits costs that file only", async () => {
    await writeFile(join(dir, 'm1.scenario.ts'), body('mod/fn').replace('];', '].map((s) => ({ ...s, f: () => 1 }));'));
    await writeFile(
      join(dir, 'm2.scenario.ts'),
      `const s: Record<string, unknown> = ${JSON.stringify({ ...scenario('spec-tls-verify/expired'), id: 'mod/cycle' })};\ns.self = s;\nexport default [s];\n`,
    );
    await writeFile(join(dir, 'm3.scenario.ts'), body('mod/fine'));
    await writeFile(join(dir, 'm4.scenario.ts'), `setTimeout(() => process.exit(0), 0);\n${body('mod/exits')}`);
    const loaded = await importVendorModules(['m1', 'm2', 'm3', 'm4'].map((m) => join(dir, `${m}.scenario.ts`)));
    const said = (m: string) => {
      const v = loaded.get(join(dir, `${m}.scenario.ts`));
      return v instanceof VendorImportError ? v.message : (v?.default as Array<{ id: string }> | undefined)?.map((s) => s.id).join();
    };
    expect(said('m1')).toMatch(/its default export holds a function \(at "f"\)/);
    expect(said('m2')).toMatch(/its default export refers back to itself \(a cycle\)/);
    expect(said('m3')).toBe('mod/fine');
    expect(said('m4')).toMatch(/it called process\.exit\(0\)/);
  });
});

describe("a shim's glue, named beside the verdicts it explains (hello.glue)", () => {
  it('names the glue on the results its globs match, and never changes a verdict', () => {
    const glue = [{ scenarios: ['trust-kid/expired', 'neg-live-input/*'], note: 'glue: no key window' }];
    const r = (id: string) => ({ id, verdict: 'FAIL' }) as ScenarioResult;
    expect(withGlue(r('trust-kid/expired'), glue)).toMatchObject({ verdict: 'FAIL', glue: ['glue: no key window'] });
    expect(withGlue(r('neg-live-input/live-audio-to-batch-peer'), glue).glue).toEqual(['glue: no key window']);
    expect(withGlue(r('trust-kid/unknown'), glue).glue).toBeUndefined();
  });
  it('takes a well-formed glue list in hello, and refuses a malformed one in a line', () => {
    const hello = { name: 'shim', version: '1', profile: null, taskClasses: ['text'] };
    expect(helloProblem({ ...hello, glue: [{ scenarios: ['a/*'], note: 'why' }] })).toBeUndefined();
    expect(helloProblem({ ...hello, glue: [{ scenarios: 'a/*', note: 'why' }] })).toMatch(/hello\.glue must be a list/);
    // What a hello says goes into every result: bounded in depth and length.
    expect(helloProblem({ ...hello, profile: JSON.parse('{"a":'.repeat(4500) + '1' + '}'.repeat(4500)) })).toBe('hello nests deeper than 32 levels');
    expect(helloProblem({ ...hello, name: 'n'.repeat(201) })).toMatch(/hello\.name must be at most 200 characters/);
    expect(helloProblem({ ...hello, glue: [{ scenarios: ['a'], note: '' }] })).toMatch(/hello\.glue/);
  });
  it("the @a2a-js/sdk adapters say which of their verdicts are the glue's", async () => {
    const hello = await createBuiltinClient('a2a-js-sdk').hello();
    expect(hello.glue?.find((g) => g.scenarios.includes('trust-kid/expired'))?.note).toMatch(/x5c validity window/);
  });
});
