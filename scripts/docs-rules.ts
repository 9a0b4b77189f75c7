/**
 * `npm run docs:rules`: writes the generated part of docs/rules.md from the rule objects. A test
 * fails when the file and the objects disagree.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withGeneratedRules } from '../harness/core/oracle/describe.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';

const file = join(PACKAGE_ROOT, 'docs/rules.md');
const before = readFileSync(file, 'utf8');
const after = withGeneratedRules(before);
if (after !== before) writeFileSync(file, after);
process.stdout.write(after === before ? 'docs/rules.md is up to date\n' : 'docs/rules.md regenerated\n');
