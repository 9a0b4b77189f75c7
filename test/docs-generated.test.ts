/**
 * The docs' generated sections are current (issue 42): each is re-made from its source by `npm run docs`
 * (scripts/generated-docs.ts), and the verdict tables among them from baselines/, which must cover the
 * catalogue as it is now: a scenario added or renamed without `npm run baselines` is named here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULESET_VERSION } from '../harness/core/oracle/rules.js';
import { tellOver } from '../harness/core/card-binding.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';
import { BASELINE_CLIENTS, baselineFile, readBaseline } from '../scripts/baseline-tables.js';
import { generatedDocs } from '../scripts/generated-docs.js';
import { ROOT } from './helpers/cli.js';

describe('generated docs', () => {
  it('every generated section reads as its source renders it (else: npm run docs)', async () => {
    const stale: string[] = [];
    for (const doc of await generatedDocs()) {
      const file = join(ROOT, doc.file);
      const now = existsSync(file) ? readFileSync(file, 'utf8') : '';
      if (doc.regenerate(now) !== now) stale.push(doc.file);
    }
    expect(stale, 'stale: run npm run docs').toEqual([]);
  });

  it('a stale section is seen: a verdict table with one cell changed', async () => {
    const doc = (await generatedDocs()).find((d) => d.file === 'docs/clients/a2a-js-sdk.md')!;
    const now = readFileSync(join(ROOT, doc.file), 'utf8');
    const changed = now.replace(/\*\*PASS\*\*/, '**FAIL**');
    expect(changed).not.toBe(now);
    expect(doc.regenerate(changed)).toBe(now);
  });
});

describe('baselines/', () => {
  it('each client has one, graded by this ruleset, over the catalogue as it is (else: npm run baselines <client>)', async () => {
    const ids = tellOver(await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT)), []).map((e) => e.scenario.id);
    const problems: string[] = [];
    for (const c of BASELINE_CLIENTS) {
      if (!existsSync(baselineFile(c.name))) {
        problems.push(`${c.name}: no ${baselineFile(c.name)}`);
        continue;
      }
      const b = readBaseline(c.name);
      if (b.written!.ruleset !== RULESET_VERSION) problems.push(`${c.name}: graded by ${b.written!.ruleset}, the ruleset is ${RULESET_VERSION}`);
      const covered = [...b.entries.map((e) => e.scenario), ...b.written!.notRun.flatMap((g) => g.scenarios)];
      const missing = ids.filter((id) => !covered.includes(id));
      const gone = covered.filter((id) => !ids.includes(id));
      if (missing.length)
        problems.push(`${c.name}: no verdict for ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`);
      if (gone.length) problems.push(`${c.name}: pins ${gone.slice(0, 5).join(', ')}, which the catalogue no longer holds`);
    }
    expect(problems, 'run npm run baselines for each client named').toEqual([]);
  });
});
