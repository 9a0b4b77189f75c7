/**
 * `npm run docs:matrix`: runs `a2a-conformance matrix` over the built-in clients (the reference,
 * @a2a-js/sdk 1.3.0 and 0.3.14, the Python example, the naive client), the property families at seed 1,
 * and writes its rows into docs/clients/README.md between `<!-- matrix:start -->` and `<!-- matrix:end -->`. The
 * client tests check each row's scenario columns (MUST and security rules, harm, scenarios) and its
 * tier against their own full runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Matrix } from '../harness/runner/judge/matrix.js';
import { PACKAGE_ROOT } from '../harness/runner/infrastructure/package-root.js';
import { README_MATRIX_HEAD, readmeMatrixRow } from '../reports/matrix.js';

const out = mkdtempSync(join(tmpdir(), 'a2a-readme-matrix-'));
try {
  const args = ['matrix', '--client', 'reference', '--client', 'a2a-js-sdk', '--client', 'a2a-js-sdk@0.3'];
  args.push('--client-cmd', 'python-simple=python3 clients/examples/python/client.py', '--client', 'naive', '--seed', '1', '--out', join(out, 'm'));
  try {
    execFileSync(process.execPath, [join(PACKAGE_ROOT, 'bin/a2a-conformance.mjs'), ...args], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (err) {
    // Exit 1 is the naive client's unexpected verdicts: the matrix is written. Anything else is not.
    if ((err as { status?: number }).status !== 1) throw err;
  }
  const m = JSON.parse(readFileSync(join(out, 'm', 'matrix.json'), 'utf8')) as Matrix;
  const section = ['<!-- matrix:start -->', ...README_MATRIX_HEAD, ...m.clients.map(readmeMatrixRow), '<!-- matrix:end -->'].join('\n');
  const file = join(PACKAGE_ROOT, 'docs/clients/README.md');
  const before = readFileSync(file, 'utf8');
  const at = before.indexOf('<!-- matrix:start -->');
  const end = before.indexOf('<!-- matrix:end -->');
  if (at < 0 || end < at) throw new Error('docs/clients/README.md has no <!-- matrix:start --> … <!-- matrix:end --> section to write');
  const after = before.slice(0, at) + section + before.slice(end + '<!-- matrix:end -->'.length);
  writeFileSync(file, after);
  process.stdout.write(after === before ? 'docs/clients/README.md matrix is up to date\n' : 'docs/clients/README.md matrix regenerated\n');
} finally {
  rmSync(out, { recursive: true, force: true });
}
