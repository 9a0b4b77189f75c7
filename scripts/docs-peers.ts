/**
 * `npm run docs:peers`: writes docs/peers.md from the peer factories and the scenario schema. A test
 * fails when the file and its sources disagree.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { peersPage } from '../harness/runner/load/describe-peers.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';

const file = join(PACKAGE_ROOT, 'docs/peers.md');
const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
const after = peersPage();
if (after !== before) writeFileSync(file, after);
process.stdout.write(after === before ? 'docs/peers.md is up to date\n' : 'docs/peers.md regenerated\n');
