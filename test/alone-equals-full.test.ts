/**
 * One verdict per scenario, whatever else runs (DESIGN.md §3): the verdict of a scenario run alone
 * equals its verdict in the full run, for every built-in scenario and three clients (the reference,
 * the naive client with every mistake, one naive mistake). The full run is the CLI's own
 * (runConformance). Each scenario is then run again on its own lane and credited as a run of that
 * one scenario is (creditRun, with the control exchange the runner runs where the scenario alone
 * shows no A2A). Two scenarios also go the whole way alone through runConformance.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createBuiltinClient } from '../clients/index.js';
import type { ControlRecord, ScenarioResult } from '../harness/core/results.js';
import { runControl } from '../harness/runner/control.js';
import { openLanePool } from '../harness/runner/lanes.js';
import { creditRun, runConformance } from '../harness/runner/run.js';
import { makePki, writePki } from '../harness/pki/index.js';
import { closeRunFolder, openRunFolder } from '../harness/runner/workspace.js';
import { ROOT } from './helpers/cli.js';
import { scenario } from './helpers/scenarios.js';

const BUILTIN_FILES = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.scenario.ts')).map((f) => join(ROOT, 'scenarios', f));
const verdicts = (rs: readonly ScenarioResult[]) => Object.fromEntries(rs.map((r) => [r.id, r.verdict]));

describe('a scenario run alone gets the verdict it gets in the full run', () => {
  it.each(['reference', 'naive', 'naive:rejects-whole-card'])('%s: every built-in scenario', async (client) => {
    const full = await runConformance({ client, files: BUILTIN_FILES, lanes: 8 });
    expect(full.results.length).toBeGreaterThan(40);
    // The full run shows the client speaking A2A: it needs no control exchange.
    expect(full.control).toBeUndefined();

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
        const alone = await Promise.all(
          full.results.map(async (r) => (await creditRun([await pool.run(scenario(r.id))], once)).ordered[0]!),
        );
        expect(verdicts(alone)).toEqual(verdicts(full.results));
      } finally {
        await pool.close();
      }
      // Some scenarios alone show no A2A (a correct rejection): those are the ones the control credits.
      if (client !== 'naive') expect(controlRuns).toBeGreaterThan(0);
      if (control) expect((await control).some((x) => x.spoke)).toBe(true);
    } finally {
      await closeRunFolder(folder);
    }
  }, 240_000);

  it.each(['neg-live-input/live-audio-to-batch-peer', 'neg-live-input/live-audio-to-batch-peer.v03'])('%s through runConformance alone: PASS, with the control exchange on record', async (id) => {
    const r = await runConformance({ client: 'reference', files: BUILTIN_FILES, pick: { ids: [id] } });
    expect(r.results.map((x) => [x.id, x.verdict])).toEqual([[id, 'PASS']]);
    expect(r.exitCode).toBe(0);
    expect(r.control?.length).toBe(1);
    expect(r.control![0]!.spoke).toBe(true);
    expect(r.control![0]!.transcript.some((e) => e.kind === 'http' && e.rpc?.method === 'SendMessage')).toBe(true);
  });
});
