/**
 * `npm run docs:rules`: writes what follows from the rule registry (harness/core/oracle/rules.ts):
 * the generated part of docs/rules.md, and the rule enum of docs/scenario.schema.json. A test fails
 * when either file and the registry disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withGeneratedRules, withRuleEnum } from '../harness/core/oracle/describe.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';

for (const [name, regenerate] of [
  ['docs/rules.md', withGeneratedRules],
  ['docs/scenario.schema.json', withRuleEnum],
] as const) {
  const file = join(PACKAGE_ROOT, name);
  const before = readFileSync(file, 'utf8');
  const after = regenerate(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(after === before ? `${name} is up to date\n` : `${name} regenerated\n`);
}
