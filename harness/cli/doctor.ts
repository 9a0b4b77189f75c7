/**
 * `a2a-conformance doctor --client-cmd "<command>"`: checks a subprocess client's protocol before
 * any grading. Runs the handshake and one harmless scenario, and prints each protocol error with
 * the offending line. Exit 0 when the client speaks the protocol (whatever its verdict), 1 otherwise.
 */
import { SubprocessClient } from '../adapters/subprocess.js';
import type { Scenario } from '../core/scenario.js';
import { makePki, writePki } from '../pki/index.js';
import { closeRunFolder, openRunFolder } from '../runner/workspace.js';
import { closeEnv, openEnv } from '../runner/env.js';
import { executeScenario } from '../runner/execute.js';
import { helloProblem } from '../adapters/contract.js';
import { schemaValidator } from '../runner/json-schema.js';

export async function doctor(command: string, harmless: Scenario, out: (l: string) => void, cwd = process.cwd()): Promise<number> {
  // Its PKI and its client's processes belong to one private folder, removed on every exit path.
  const folder = await openRunFolder('doctor');
  try {
    return await check(command, harmless, out, cwd, folder.dir, folder.pkiDir);
  } finally {
    await closeRunFolder(folder);
  }
}

async function check(command: string, harmless: Scenario, out: (l: string) => void, cwd: string, runDir: string, pkiDir: string): Promise<number> {
  const client = new SubprocessClient({ command, cwd, runDir });
  let problems = 0;
  const report = (ok: boolean, what: string, line?: string) => {
    if (!ok) problems++;
    out(`${ok ? '✓' : '✗'} ${what}`);
    if (line !== undefined) out(`    line: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  };
  out(`doctor: ${command}`);
  let hello;
  try {
    hello = await client.hello();
  } catch (err) {
    const last = client.protocolLog.at(-1);
    for (const p of client.protocolLog.slice(0, -1)) report(false, p.problem, p.line);
    report(false, last ? `the client ${last.problem}` : (err as Error).message, last?.line);
    const gone = client.failedProcess();
    // A process still running when the wait ended may hold its hello in a buffer; one that exited has flushed (most runtimes do at exit).
    const timedOut = last?.problem.startsWith('did not answer hello') === true;
    if (gone && gone.pendingBytes > 0) out(`    ${gone.pendingBytes} byte(s) on stdout wait for a newline: end every message with "\\n" and flush`);
    else if (gone && gone.stdoutBytes === 0)
      out(timedOut ? '    nothing came on stdout: did you flush stdout after writing hello? (Python: print(..., flush=True); C: fflush(stdout))' : '    it wrote nothing on stdout before it exited: its stderr may say why');
    if (gone?.stderr.trim()) out(`    stderr: ${gone.stderr.trim().split('\n').slice(-10).join('\n            ')}`);
    await client.close();
    out('the handshake failed: fix it before grading (docs/protocol.md)');
    return 1;
  }
  for (const p of client.protocolLog) report(false, p.problem, p.line);
  const validHello = schemaValidator('ndjson/hello.schema.json', undefined, true);
  const helloMsg = { type: 'hello', ...hello };
  const schemaOk = validHello(helloMsg);
  const semantic = helloProblem(hello);
  report(schemaOk && !semantic, `hello: ${hello.name} ${hello.version}, profile ${hello.profile ? 'fixed' : 'per run'}, task classes ${hello.taskClasses.join(', ') || '(none)'}${hello.concurrency && hello.concurrency > 1 ? `, ${hello.concurrency} runs at once` : ''}${schemaOk ? '' : ` — ${(validHello.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`}${semantic ? ` — ${semantic}` : ''}`, schemaOk && !semantic ? undefined : JSON.stringify(helloMsg));

  const files = await writePki(await makePki(), pkiDir);
  const env = await openEnv({ pkiDir: files.dir, client, hello, idSalt: 'doctor', deadlineMultiplier: 1 });
  try {
    if (!hello.taskClasses.includes(harmless.intent.taskClass)) {
      report(true, `one scenario: skipped (the client lists no "${harmless.intent.taskClass}" task class)`);
    } else {
      const r = await executeScenario(harmless, env);
      const fault = r.outcome.kind === 'crashed' || r.outcome.kind === 'timeout';
      report(!fault, `one scenario (${harmless.title}): ${r.outcome.kind}${r.outcome.reason ? ` — ${r.outcome.reason}` : ''}; verdict ${r.verdict}`);
      for (const w of r.checks.find((c) => c.rule === 'CLIENT-PROTOCOL')?.evidence ?? []) report(false, 'protocol warning', w.fact);
      if (r.stderr) out(`    stderr: ${r.stderr.trim().split('\n').slice(-5).join('\n            ')}`);
    }
  } finally {
    await closeEnv(env);
  }
  out(problems === 0 ? 'the client speaks a2a-conformance/1' : `${problems} problem(s)`);
  return problems === 0 ? 0 : 1;
}

