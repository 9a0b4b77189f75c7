/**
 * What the built-in scenarios' full runs must show, from one full run per client (the CLI's own,
 * runConformance), shared by the checks below so the catalogue runs once per client:
 *
 * - Peers emit only valid payloads (issue 23, item 1): every JSON-RPC answer, stream event and push
 *   body of every built-in scenario, in both dialects, as the reference (which speaks both), the naive
 *   client (whose frames, retries and blind sends reach the error paths) and one naive mistake drive
 *   them (the real @a2a-js/sdk 0.3 client's in test/clients-sdk.test.ts): A2A v1.0 by the proto's
 *   ProtoJSON field rules, v0.3 by the official v0.3.0 JSON
 *   Schema where it sits beside the checkout. A payload bug of ours must never become a client's FAIL.
 * - One verdict per scenario, whatever else runs (DESIGN.md §3; item 5): the verdict of a scenario run
 *   alone equals its verdict in the full run, for every built-in scenario and three clients (the
 *   reference, the naive client with every mistake, one naive mistake). Each scenario is run again on
 *   its own lane and credited as a run of that one scenario is (creditRun, with the control exchange
 *   the runner runs where the scenario alone shows no A2A). Two scenarios also go the whole way alone
 *   through runConformance.
 */
import { existsSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createBuiltinClient } from '../clients/index.js';
import type { ControlRecord, RunResults, ScenarioResult } from '../harness/core/results.js';
import { runControl } from '../harness/runner/engine/control.js';
import { confirm } from '../harness/runner/judge/confirm.js';
import { openLanePool } from '../harness/runner/engine/lanes.js';
import { creditRun, runConformance } from '../harness/runner/engine/run.js';
import { makePki, writePki } from '../harness/pki/index.js';
import { closeRunFolder, openRunFolder } from '../harness/runner/infrastructure/workspace.js';
import { payloadProblems, V03_SCHEMA } from './helpers/payloads.js';
import { baselineVerdicts, differences, matrixRowProblems } from './helpers/published.js';
import { scenario, BUILTIN_FILES } from './helpers/scenarios.js';
import { LEVELS } from '../harness/core/sources.js';
import { renderHtmlReport } from '../reports/html/report.js';

const verdicts = (rs: readonly ScenarioResult[]) => Object.fromEntries(rs.map((r) => [r.id, r.verdict]));

const CLIENTS = ['reference', 'naive', 'naive:rejects-whole-card'] as const;
const full = new Map<string, RunResults>();
beforeAll(async () => {
  for (const client of CLIENTS) full.set(client, await runConformance({ client, files: BUILTIN_FILES, lanes: 8 }));
}, 300_000);

describe('the verdicts baselines/ pins (npm run baselines; the docs render their tables from them)', () => {
  it.each(CLIENTS)('%s: its full run gives every verdict its baseline pins', (client) => {
    const r = full.get(client)!;
    expect(differences(r, baselineVerdicts(client))).toEqual([]);
    expect(verdicts(r.results)).toEqual(baselineVerdicts(client));
  });
});

describe('the matrix of the built-in clients in docs/clients/README.md (scripts/readme-matrix.ts)', () => {
  it.each(['reference', 'naive'])('%s: its row says what its full run gives (rules, harm, scenarios, tier)', (client) => {
    expect(matrixRowProblems(full.get(client)!)).toEqual([]);
  });
});

describe('every payload the peers send in the built-in scenarios is valid for its dialect', () => {
  // (@a2a-js/sdk 0.3's, a v0.3 client's, are checked in test/clients-sdk.test.ts, from its own full run.)
  it.each(['reference', 'naive', 'naive:rejects-whole-card'])('driven by %s: no payload problem, both dialects seen', (client) => {
    const results = full.get(client)!.results;
    const count = { v1: 0, v03: 0, v03Unchecked: 0 };
    const problems = results.flatMap((r) => payloadProblems(r, count));
    expect(problems).toEqual([]);
    expect(count.v1).toBeGreaterThan(50);
    if (client === 'reference') expect(count.v03 + count.v03Unchecked).toBeGreaterThan(30);
    if (existsSync(V03_SCHEMA)) expect(count.v03Unchecked).toBe(0);
  });
  if (!existsSync(V03_SCHEMA)) console.log(`v0.3 bodies not checked against the official schema: ${V03_SCHEMA} is absent (it lives in ../shared/spec)`);

  it('the check sees a file part whose bytes were cut (the old history summary), in v1.0 and in v0.3', () => {
    const results = full.get('reference')!.results;
    const withRaw = (dialect: string) =>
      results.find(
        (r) =>
          r.peer.dialect === dialect &&
          r.transcript.some((e) => e.kind === 'http' && JSON.stringify(e.responseBody?.json ?? '').includes(dialect === 'a2a-v1' ? '"raw"' : '"bytes"')),
      );
    for (const dialect of ['a2a-v1', 'a2a-v0.3']) {
      const r = withRaw(dialect);
      expect(r, `a ${dialect} scenario whose answers carry a file part`).toBeDefined();
      const cut = JSON.parse(JSON.stringify(r!).replace(/"(raw|bytes)":"([A-Za-z0-9+/=]{16})[A-Za-z0-9+/=]*"/g, '"$1":"$2…"')) as ScenarioResult;
      const problems = payloadProblems(cut, { v1: 0, v03: 0, v03Unchecked: 0 });
      if (dialect === 'a2a-v0.3' && !existsSync(V03_SCHEMA)) continue;
      expect(problems.map((p) => p.problems.join('; ')).join('\n')).toMatch(/base64/);
    }
  });
});

describe('a scenario run alone gets the verdict it gets in the full run', () => {
  it.each(['reference', 'naive', 'naive:rejects-whole-card'])(
    '%s: every built-in scenario',
    async (client) => {
      const run = full.get(client)!;
      expect(run.results.length).toBeGreaterThan(40);
      // The full run shows the client speaking A2A: it needs no control exchange.
      expect(run.control).toBeUndefined();

      const folder = await openRunFolder('alone test');
      try {
        const pkiDir = (await writePki(await makePki(), folder.pkiDir)).dir;
        const c = createBuiltinClient(client);
        const hello = await c.hello();
        await c.close?.();
        const env = { pkiDir, hello, idSalt: 'alone', deadlineMultiplier: 1 };
        const pool = await openLanePool({ lanes: 8, env, client: () => createBuiltinClient(client) });
        let controlRuns = 0;
        let control: Promise<ControlRecord[]> | undefined;
        // The control is a property of the client, the same for every run: run once, as the runner would for each.
        const once = () => (controlRuns++, (control ??= runControl({ choice: { client }, hello, pkiDir, idSalt: 'alone', deadlineMultiplier: 1 })));
        try {
          // As the runner does: a failure met while the harness lagged is confirmed on the drained pool, then credited.
          const alone = await Promise.all(
            run.results.map(async (r) => {
              const s = scenario(r.id);
              const ran = await confirm(await pool.run(s), () => pool.runAlone(s));
              return (await creditRun([ran], once)).ordered[0]!;
            }),
          );
          expect(verdicts(alone)).toEqual(verdicts(run.results));
        } finally {
          await pool.close();
        }
        // Some scenarios alone show no A2A (a correct rejection): those are the ones the control credits.
        if (client !== 'naive') expect(controlRuns).toBeGreaterThan(0);
        if (control) expect((await control).some((x) => x.spoke)).toBe(true);
      } finally {
        await closeRunFolder(folder);
      }
    },
    240_000,
  );

  it.each(['neg-live-input/live-audio-to-batch-peer', 'neg-live-input/live-audio-to-batch-peer.v03'])(
    '%s through runConformance alone: PASS, with the control exchange on record',
    async (id) => {
      const r = await runConformance({ client: 'reference', files: BUILTIN_FILES, pick: { ids: [id] } });
      expect(r.results.map((x) => [x.id, x.verdict])).toEqual([[id, 'PASS']]);
      expect(r.exitCode).toBe(0);
      expect(r.control?.length).toBe(1);
      expect(r.control![0]!.spoke).toBe(true);
      expect(r.control![0]!.transcript.some((e) => e.kind === 'http' && e.rpc?.method === 'SendMessage')).toBe(true);
    },
  );
});

// From test/rules.test.ts (the unit tier runs no scenario): the report of a real run, and the authorities it cites.
describe('the report of a run cites what a user can read', () => {
  it('the report carries the text of every duty it cites, where its citations link, and a legend of every level', async () => {
    const r = await runConformance({ client: 'reference', files: BUILTIN_FILES, pick: { ids: ['neg-live-input/live-audio-to-batch-peer'] } });
    const html = renderHtmlReport(r);
    expect(html).toContain('href="#duty-1"');
    expect(html).toContain('id="duty-1"');
    expect(html).toContain('which for live audio is the same as not taking it');
    expect(html).toContain('href="https://github.com/a2aproject/A2A/blob/v1.0.1/docs/specification.md"');
    for (const l of LEVELS) expect(html).toContain(`<span class="lvl lvl-${l}">${l}</span>`);
    expect(html).not.toMatch(/seed 00|DESIGN\.md/);
  });
});
