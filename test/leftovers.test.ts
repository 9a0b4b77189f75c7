/**
 * No run folder (keys inside), temp file or client process left behind by any command, on its way
 * out whether it succeeded or failed (issue 42 item 7). Each command runs through `main` in this
 * process (no cold start); what it leaves is looked for among this process's run folders (owner.json
 * names the pid: another worker's are not ours) and among this process's child processes. `serve`,
 * which runs until a signal, is test/hostile/signals.test.ts's ("serve: SIGINT and SIGTERM stop it").
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResults } from '../harness/core/results.js';
import { runMain } from './helpers/main.js';
import { testTemp } from './helpers/tmp.js';

/** This process's run folders in the temp folder. */
function runFolders(): string[] {
  return readdirSync(tmpdir()).filter((f) => {
    if (!f.startsWith('a2a-conformance-run-')) return false;
    try {
      return (JSON.parse(readFileSync(join(tmpdir(), f, 'owner.json'), 'utf8')) as { pid: number }).pid === process.pid;
    } catch {
      return false;
    }
  });
}

/** The live children of this process (their pids), zombies left out. */
function children(): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === process.pid && fields[0] !== 'Z') out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** What a command left: run folders and child processes that were not there before it. */
async function leftBy(args: string[], code: number): Promise<string[]> {
  const folders = new Set(runFolders());
  const kids = new Set(children());
  const o = await runMain(args);
  expect(o.code, `${args.join(' ')}: ${o.stderr}`).toBe(code);
  // A child killed at the end may take a moment to be reaped by its parent's handler.
  let left: string[] = [];
  for (let i = 0; i < 50; i++) {
    left = [
      ...runFolders().filter((f) => !folders.has(f)),
      ...children()
        .filter((p) => !kids.has(p))
        .map((p) => `process ${p}`),
    ];
    if (left.length === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return left;
}

const ONE = ['--scenario', 'spec-tls-verify/valid-certificate-control'];
const GARBAGE = 'echo garbage; echo \'{"type":"hello"\'; sleep 3';

describe('no command leaves a run folder, a key or a process behind', () => {
  it('run, report, verify-bundle, list, matrix, check-scenarios, properties, replay and doctor: each on a path that succeeds and one that fails', {
    timeout: 240_000,
  }, async () => {
    const dir = testTemp('a2a-leftovers-');
    const out = join(dir, 'run');
    const left: Record<string, string[]> = {};
    left['run'] = await leftBy(['run', '--client', 'reference', ...ONE, '--out', out], 0);
    left['run, a client whose hello is garbage'] = await leftBy(['run', '--client-cmd', GARBAGE, ...ONE, '--out', join(dir, 'bad')], 1);
    left['run, a missing expectations file'] = await leftBy(
      ['run', '--client', 'reference', ...ONE, '--expectations', join(dir, 'none.json'), '--out', out],
      2,
    );
    left['report --bundle'] = await leftBy(['report', join(out, 'results.json'), '--out', join(dir, 'again'), '--bundle', join(dir, 'b.zip')], 0);
    left['verify-bundle'] = await leftBy(['verify-bundle', join(dir, 'b.zip')], 0);
    writeFileSync(join(dir, 'not.zip'), 'not a zip');
    left['verify-bundle, not a bundle'] = await leftBy(['verify-bundle', join(dir, 'not.zip')], 1);
    left['list'] = await leftBy(['list', '--grep', 'spec-tls-verify'], 0);
    left['matrix'] = await leftBy(['matrix', '--client', 'reference', ...ONE, '--no-properties', '--out', join(dir, 'm')], 0);
    left['matrix, a client whose hello is garbage'] = await leftBy(
      ['matrix', '--client-cmd', `bad=${GARBAGE}`, ...ONE, '--no-properties', '--out', join(dir, 'm2')],
      1,
    );
    left['check-scenarios'] = await leftBy(['check-scenarios', 'examples/scenarios/retry-after.scenario.json'], 0);
    writeFileSync(join(dir, 'broken.scenario.json'), '{ "id": 1 }');
    left['check-scenarios, a broken file'] = await leftBy(['check-scenarios', join(dir, 'broken.scenario.json')], 2);
    const props = join(dir, 'p');
    left['properties'] = await leftBy(['properties', '--client', 'reference', '--family', 'negotiation', '--runs', '2', '--seed', '1', '--out', props], 0);
    const path = (JSON.parse(readFileSync(join(props, 'results.json'), 'utf8')) as RunResults).properties![0]!.cases[0]!.path;
    left['replay'] = await leftBy(['replay', '--client', 'reference', '--family', 'negotiation', '--seed', '1', '--path', path, '--out', join(dir, 'r')], 0);
    left['properties, a client whose hello is garbage'] = await leftBy(
      ['properties', '--client-cmd', GARBAGE, '--family', 'negotiation', '--runs', '2', '--seed', '1', '--out', join(dir, 'p2')],
      1,
    );
    left['doctor, a hello that is garbage'] = await leftBy(['doctor', '--client-cmd', GARBAGE], 1);
    expect(Object.entries(left).filter(([, l]) => l.length)).toEqual([]);
  });
});
