/**
 * Every generated section of the docs, each with what renders it: from the rule registry, the peer
 * factories, the floors of the house (scripts/floors.ts), the a2a-cli registry, the scenario catalogue (docs/grading.md's counts) and the built-in
 * clients' baselines (baselines/*.json). `npm run docs`
 * writes them; test/docs-generated.test.ts fails, naming the file, when one is stale. (The built-in
 * clients' matrix in docs/clients/README.md comes from a matrix run: `npm run docs:matrix`, checked
 * against the full runs of the client tests.)
 */
import { withGeneratedRules, withRuleEnum } from '../harness/core/oracle/describe.js';
import { tellOver } from '../harness/core/card-binding.js';
import { withA2aCliTable } from '../harness/runner/judge/a2a-cli-registry.js';
import { CODE_ROOT, DEFAULT_SCENARIO_GLOB, findScenarioFiles, loadCatalogue } from '../harness/runner/load/catalogue.js';
import { peersPage } from '../harness/runner/load/describe-peers.js';
import { clientTable, verdictCountsTable, withSection } from './baseline-tables.js';
import { catalogueSentence, withRuleCounts } from './catalogue-counts.js';
import { floorsTable } from './floors.js';

export interface GeneratedDoc {
  /** The file, from the package root. */
  file: string;
  /** The page as it must read, from the page as it reads now. */
  regenerate: (before: string) => string;
}

export async function generatedDocs(): Promise<GeneratedDoc[]> {
  const catalogue = tellOver(await loadCatalogue(await findScenarioFiles([DEFAULT_SCENARIO_GLOB], CODE_ROOT)), []);
  const rules = new Map(catalogue.map((e) => [e.scenario.id, e.scenario.rule]));
  const ruleOf = (id: string) => rules.get(id);
  const table = (file: string, marker: string, client: string) => (page: string) => withSection(page, `results:${marker}`, clientTable(client, ruleOf), file);
  return [
    { file: 'docs/rules.md', regenerate: withGeneratedRules },
    { file: 'docs/scenario.schema.json', regenerate: withRuleEnum },
    { file: 'docs/a2a-cli.md', regenerate: withA2aCliTable },
    { file: 'docs/peers.md', regenerate: () => peersPage() },
    { file: 'docs/architecture.md', regenerate: (page) => withSection(page, 'floors', floorsTable(), 'docs/architecture.md') },
    {
      file: 'docs/clients/a2a-js-sdk.md',
      regenerate: (page) => table('docs/clients/a2a-js-sdk.md', 'sdk03', 'a2a-js-sdk@0.3')(table('docs/clients/a2a-js-sdk.md', 'sdk', 'a2a-js-sdk')(page)),
    },
    { file: 'clients/examples/python/README.md', regenerate: table('clients/examples/python/README.md', 'python', 'python-simple') },
    {
      file: 'docs/grading.md',
      regenerate: (page) => {
        const f = 'docs/grading.md';
        const table = /<!-- rule-counts:start -->\n([\s\S]*?)\n<!-- rule-counts:end -->/.exec(page)?.[1] ?? '';
        let out = withSection(page, 'catalogue', catalogueSentence(catalogue), f);
        out = withSection(out, 'rule-counts', withRuleCounts(table, catalogue), f);
        return withSection(out, 'verdicts', verdictCountsTable(), f);
      },
    },
  ];
}
