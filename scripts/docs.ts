/**
 * `npm run docs`: re-makes every generated section of the docs from its source (scripts/generated-docs.ts).
 * Runs nothing: the verdict tables come from baselines/ (`npm run baselines` writes those from runs).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import { generatedDocs } from './generated-docs.js';

for (const doc of await generatedDocs()) {
  const file = join(PACKAGE_ROOT, doc.file);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const after = doc.regenerate(before);
  if (after !== before) writeFileSync(file, after);
  process.stdout.write(after === before ? `${doc.file} is up to date\n` : `${doc.file} regenerated\n`);
}
