/**
 * `npm run docs:rules`: writes what follows from the rule registry (harness/core/oracle/rules.ts):
 * the generated part of docs/rules.md, the rule enum of docs/scenario.schema.json, and docs/a2a-cli.md's
 * table of the a2a-cli registry (harness/runner/judge/a2a-cli-registry.ts). A test fails when a file
 * and its source disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withGeneratedRules, withRuleEnum } from '../harness/core/oracle/describe.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import { withA2aCliTable } from '../harness/runner/judge/a2a-cli-registry.js';

for (const [name, regenerate] of [
  ['docs/rules.md', withGeneratedRules],
  ['docs/scenario.schema.json', withRuleEnum],
  ['docs/a2a-cli.md', withA2aCliTable],
] as const) {
  const file = join(PACKAGE_ROOT, name);
  const before = readFileSync(file, 'utf8');
  const after = regenerate(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(after === before ? `${name} is up to date\n` : `${name} regenerated\n`);
}
