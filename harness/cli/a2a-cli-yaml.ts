/** The a2a-cli compliance report as YAML text (the `yaml` library writes it; the registry's key order kept). */
import { Document } from 'yaml';
import type { RunResults } from '../core/results.js';
import { a2aCliPreamble, a2aCliReport } from '../runner/judge/a2a-cli.js';
import { harnessVersion } from '../runner/infrastructure/package-root.js';

export function a2aCliYaml(run: RunResults): string {
  const harness = { version: harnessVersion() };
  const doc = new Document(a2aCliReport(run, harness));
  doc.commentBefore = a2aCliPreamble(run, harness);
  return doc.toString({ lineWidth: 0 });
}
