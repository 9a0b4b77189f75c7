/**
 * `npm run requirements`: freezes the current ruleset's requirement set (harness/runner/judge/requirements.ts)
 * to docs/requirements/<ruleset>.json: every built-in scenario, every rule, every property family.
 * Run it when RULESET_VERSION changes; the sets of earlier rulesets stay as they were. A test fails
 * when the current set and the catalogue disagree.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { FAMILY_IDS } from '../harness/core/family-ids.js';
import { RULE_IDS, RULESET_VERSION } from '../harness/core/oracle/rules.js';
import { scenarioFiles } from '../harness/cli/context.js';
import { loadCatalogue } from '../harness/runner/load/catalogue.js';
import { REQUIREMENTS_DIR, requirementsFile, type RequirementSet } from '../harness/runner/judge/requirements.js';

const catalogue = await loadCatalogue(await scenarioFiles(undefined));
const set: RequirementSet = {
  ruleset: RULESET_VERSION,
  scenarios: catalogue.map((e) => e.scenario.id).sort(),
  rules: [...RULE_IDS],
  families: [...FAMILY_IDS],
};
const file = requirementsFile(RULESET_VERSION);
const text = `${JSON.stringify(set, null, 2)}\n`;
mkdirSync(REQUIREMENTS_DIR, { recursive: true });
const same = existsSync(file) && readFileSync(file, 'utf8') === text;
if (!same) writeFileSync(file, text);
process.stdout.write(
  `docs/requirements/${RULESET_VERSION}.json ${same ? 'is up to date' : 'written'}: ${set.scenarios.length} scenarios, ${set.rules.length} rules, ${set.families.length} families\n`,
);
