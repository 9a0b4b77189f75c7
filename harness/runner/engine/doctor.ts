/**
 * `a2a-conformance doctor --client-cmd "<command>"`: checks a subprocess client's protocol before
 * any grading. Runs the handshake and the harness's control exchange (a plain text task on a clean
 * peer, harness/runner/engine/control.ts) in each dialect the client declares, so a v0.3-only client is
 * really exercised in v0.3, and prints each protocol error with the offending line. Warns when hello
 * declares no dialect. Exit 0 when the client speaks the protocol (whatever its verdicts), 1 otherwise.
 */
import { SubprocessClient } from '../../adapters/subprocess.js';
import { HELLO_TIMEOUT_MS } from '../../adapters/protocol.js';
import { controlScenario, declaredDialects } from './control.js';
import { speaksIn } from './dialect.js';
import { closeRunFolder, openRunFolder } from '../infrastructure/workspace.js';
import { clientPki, closeEnv, openEnv } from '../infrastructure/env.js';
import { executeScenario } from './execute.js';
import { helloProblem } from '../../adapters/contract.js';
import { printableInline } from '../../core/text.js';
import { schemaValidator } from '../load/json-schema.js';

/**
 * `waiting` says what the check waits for while it waits (the command draws it on stderr: a status
 * line on a terminal, a line elsewhere), never part of the outcome `out` prints.
 */
export async function doctor(command: string, out: (l: string) => void, cwd = process.cwd(), waiting: (what: string) => void = () => {}): Promise<number> {
  // Its PKI and its client's processes belong to one private folder, removed on every exit path.
  const folder = await openRunFolder('doctor');
  try {
    return await check(command, out, cwd, folder.dir, folder.pkiDir, waiting);
  } finally {
    await closeRunFolder(folder);
  }
}

async function check(command: string, out: (l: string) => void, cwd: string, runDir: string, pkiDir: string, waiting: (what: string) => void): Promise<number> {
  const client = new SubprocessClient({ command, cwd, runDir });
  let problems = 0;
  const report = (ok: boolean, what: string, line?: string) => {
    if (!ok) problems++;
    out(`${ok ? '✓' : '✗'} ${what}`);
    if (line !== undefined) out(`    line: ${line.length > 300 ? `${line.slice(0, 300)}…` : line}`);
  };
  out(`doctor: ${command}`);
  let hello: Awaited<ReturnType<typeof client.hello>>;
  try {
    waiting(`waiting for the client's hello on its stdout (up to ${HELLO_TIMEOUT_MS / 1000} s)…`);
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
      out(
        timedOut
          ? '    nothing came on stdout: did you flush stdout after writing hello? (Python: print(..., flush=True); C: fflush(stdout))'
          : '    it wrote nothing on stdout before it exited: its stderr may say why',
      );
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
  report(
    schemaOk && !semantic,
    `hello: ${printableInline(`${hello.name} ${hello.version}`)}, profile ${hello.profile ? 'fixed' : 'per run'}, task classes ${hello.taskClasses.join(', ') || '(none)'}${hello.concurrency && hello.concurrency > 1 ? `, ${hello.concurrency} runs at once` : ''}${schemaOk ? '' : ` — ${(validHello.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ')}`}${semantic ? ` — ${semantic}` : ''}`,
    schemaOk && !semantic ? undefined : JSON.stringify(helloMsg),
  );

  for (const d of semantic ? [] : (hello.notImplemented ?? []))
    out(
      printableInline(
        `! hello declares ${d.capability} not implemented ("${d.reason}"): scenarios that need it are not run, and a tier is for the declared capabilities (docs/protocol.md)`,
      ),
    );
  if (!hello.dialects)
    out(
      '! hello declares no dialects: A2A v1.0 is assumed, and scenarios told in v0.3 are not run. A client that speaks v0.3 says so: "dialects": ["a2a-v0.3"] (docs/protocol.md)',
    );
  const { files, pems } = await clientPki(pkiDir);
  const env = await openEnv({ pkiDir: files.dir, pems, client, hello, idSalt: 'doctor', deadlineMultiplier: 1 });
  try {
    const dialects = declaredDialects(hello);
    if (!hello.taskClasses.includes('text')) {
      report(true, 'the control exchange: skipped (the client lists no "text" task class)');
    } else
      for (const dialect of dialects) {
        const control = controlScenario(dialect);
        waiting(`waiting for the client to carry out a plain text task in ${dialect} (deadline ${(control.deadlineMs ?? 0) / 1000} s)…`);
        const r = await executeScenario(control, env);
        const fault = r.outcome.kind === 'crashed' || r.outcome.kind === 'timeout';
        const spoke = speaksIn(r.transcript);
        report(
          !fault,
          `a plain text task in ${dialect} (the harness's control exchange): ${r.outcome.kind}${r.outcome.reason ? ` — ${r.outcome.reason}` : ''}; verdict ${r.verdict}${spoke ? '' : `; the peer saw no A2A operation in ${dialect} (until it does, no rejection of this client is credited)`}`,
        );
        for (const w of r.checks.find((c) => c.rule === 'CLIENT-PROTOCOL')?.evidence ?? []) report(false, 'protocol warning', w.fact);
        if (r.stderr) out(`    stderr: ${r.stderr.trim().split('\n').slice(-5).join('\n            ')}`);
      }
  } finally {
    await closeEnv(env);
  }
  out(problems === 0 ? 'the client speaks a2a-conformance/1' : `${problems} problem(s)`);
  return problems === 0 ? 0 : 1;
}
