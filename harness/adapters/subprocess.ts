/**
 * The NDJSON subprocess transport (docs/protocol.md): any client, any language, as a process that
 * reads one JSON object per line on stdin and writes one per line on stdout. stderr is its log,
 * kept per scenario. JSON Schemas of every message: docs/ndjson/.
 *
 * A misbehaving process costs the scenario it was running, never the run: a crash, an exit, a
 * missing or invalid result, an answer to the wrong id, or a line over 1 MiB fails that scenario
 * with a reason that says which (a hang is a TIMEOUT), and the process is restarted for the next.
 */
import type { ClientReport, Hello, RunRequest } from '../core/protocol/types.js';
import { Child, describeExit, head, type SubprocessOptions } from './child.js';
import type { ClientAdapter, ClientDiagnostics } from './contract.js';
import { sampleTrees } from './process-group.js';
import { greetChild, KILL_AFTER_ABORT_MS, MAX_WARNINGS, runLine, runMessage } from './protocol.js';
import { ClientFault, HarnessFault, HelloFailure } from '../faults.js';

/** How long the next run waits for the previous one to end (a killed process to exit). */
const PREVIOUS_RUN_MS = 10_000;

/**
 * A `--client-cmd` client as a ClientAdapter: one process, one run at a time on it (a hello that
 * declares `concurrency: n`, n > 1, gets shared-process.ts instead), restarted after it fails one.
 */
export class SubprocessClient implements ClientAdapter {
  private child: Child | undefined;
  private lastFailed: Child | undefined;
  private helloAnswer: Hello | undefined;
  private readonly diag = new Map<string, { d: ClientDiagnostics; child?: Child }>();
  /** Every protocol problem seen, with its line: `doctor` prints them. */
  readonly protocolLog: Array<{ problem: string; line?: string }> = [];

  constructor(private readonly o: SubprocessOptions) {}

  /** A greeting in flight: a second caller waits for it instead of reading the same pipe. */
  private greeting: Promise<Hello> | undefined;

  /** Starts the process if needed and greets it. Throws ClientFault with the offending line. */
  async hello(): Promise<Hello> {
    if (this.child && !this.child.exited && this.helloAnswer) return this.helloAnswer;
    if (!this.greeting) this.greeting = this.greet().finally(() => (this.greeting = undefined));
    return this.greeting;
  }

  private async greet(): Promise<Hello> {
    this.helloAnswer = undefined;
    this.child?.kill();
    const child = new Child(this.o);
    this.child = child;
    try {
      this.helloAnswer = await greetChild(child, this.protocolLog);
      return this.helloAnswer;
    } catch (err) {
      if (err instanceof HelloFailure) throw this.fault(err.message, err.line, child);
      throw err;
    }
  }

  /** What the process that failed its hello left: its stderr, and what it wrote on stdout (for `doctor`). */
  failedProcess(): { stderr: string; stdoutBytes: number; pendingBytes: number } | undefined {
    const c = this.lastFailed;
    return c ? { stderr: c.takeStderr(), stdoutBytes: c.stdoutBytes, pendingBytes: c.pendingBytes } : undefined;
  }

  private fault(problem: string, line: string | undefined, child?: Child): ClientFault {
    this.protocolLog.push({ problem, ...(line !== undefined ? { line: head(line, 300) } : {}) });
    child?.kill();
    if (child) this.lastFailed = child;
    if (child === this.child) this.child = undefined;
    return new ClientFault(`the client process ${problem}${line !== undefined ? `: ${head(line, 300)}` : ''}`);
  }

  /** Whether a greeted process is alive now (it may still die before the next run: that costs the run). */
  get running(): boolean {
    return !!this.child && !this.child.exited && !!this.helloAnswer;
  }

  /** Asked after the run settled: stderr arrives on its own pipe, often after the result line. */
  diagnostics(runId: string): ClientDiagnostics | undefined {
    const entry = this.diag.get(runId);
    this.diag.delete(runId);
    if (!entry) return undefined;
    if (entry.child) entry.d.stderr += entry.child.takeStderr();
    return entry.d;
  }

  private busy = false;

  /** The run in flight, settled once its process answered or was killed and has exited. */
  private inflight: Promise<unknown> = Promise.resolve();

  processes(): number[] {
    const pid = this.child?.proc.pid;
    return pid && !this.child!.exited ? [pid] : [];
  }

  /**
   * Waits for the previous run to end (its process gone, when it had to be killed), then starts the
   * process if it is not running and greets it: all before the deadline starts, so neither a slow
   * kill nor a restart eats into a scenario's time. A process that fails here costs the scenario.
   */
  async prepare(): Promise<void> {
    const waited = await Promise.race([
      this.inflight.then(
        () => true,
        () => true,
      ),
      new Promise<false>((r) => setTimeout(() => r(false), PREVIOUS_RUN_MS).unref()),
    ]);
    if (!waited || this.busy) throw new HarnessFault(`[harness] the previous run on this client process did not end within ${PREVIOUS_RUN_MS / 1000} s`);
    await this.hello().catch((err: unknown) => {
      this.pendingStderr = this.lastFailed?.takeStderr() ?? '';
      throw err;
    });
  }

  private pendingStderr = '';

  async run(req: RunRequest, signal: AbortSignal): Promise<ClientReport> {
    // The harness awaits each run's end (and the process's exit after a kill) before the next: a
    // second run here is the harness's fault, never the client's.
    if (this.busy) throw new HarnessFault('[harness] one run in flight per client process');
    this.busy = true;
    const running = this.runOne(req, signal).finally(() => (this.busy = false));
    this.inflight = running.catch(() => {});
    return running;
  }

  private async runOne(req: RunRequest, signal: AbortSignal): Promise<ClientReport> {
    const d: ClientDiagnostics = { stderr: this.pendingStderr, warnings: [] };
    this.pendingStderr = '';
    const entry: { d: ClientDiagnostics; child?: Child } = { d };
    this.diag.set(req.id, entry);
    if (signal.aborted) throw new ClientFault('the deadline passed before the run could start');
    // Normally prepare() has greeted the process; a process that died since is restarted here.
    if (!this.child || this.child.exited || !this.helloAnswer) {
      const restarted = this.hello().catch((err: unknown) => {
        if (this.lastFailed) d.stderr += this.lastFailed.takeStderr();
        throw err;
      });
      const aborted = new Promise<never>((_, reject) =>
        signal.addEventListener('abort', () => reject(new ClientFault('the deadline passed while the client process was starting')), { once: true }),
      );
      aborted.catch(() => {});
      await Promise.race([restarted, aborted]);
    }
    const child = this.child!;
    child.takeStderr(); // what it logged between runs is not this scenario's
    entry.child = child;
    child.send(runMessage(req));
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      // Its tree as it is at the deadline: a descendant that left the group is known before the kill.
      sampleTrees();
      child.send({ type: 'abort', id: req.id });
      killTimer = setTimeout(() => child.kill(), this.o.killAfterAbortMs ?? KILL_AFTER_ABORT_MS);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      for (;;) {
        const e = await child.next(60_000);
        if (!e) continue; // a long scenario; the deadline (abort, then kill) bounds the wait
        if (e.kind === 'exit') throw this.fault(`${describeExit(e)} before sending a result for ${req.id}`, undefined, child);
        if (e.kind === 'too-long') throw this.fault(`sent a line of ${e.bytes} bytes (over the 1 MiB limit)`, undefined, child);
        const line = runLine(e.text);
        if ('warning' in line) {
          if (d.warnings.length < MAX_WARNINGS) d.warnings.push(line.warning);
          continue;
        }
        if (line.id !== req.id) throw this.fault(`answered the wrong id (${JSON.stringify(line.id)}, expected ${JSON.stringify(req.id)})`, e.text, child);
        return line.report;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      if (signal.aborted && !child.exited) {
        // It ignored the abort, or answered late: start clean next time, once it is really gone.
        if (this.child === child) this.child = undefined;
        await child.killAndWait();
      } else if (child.exited || this.child !== child) {
        await child.killAndWait();
      }
    }
  }

  async close(): Promise<void> {
    const c = this.child;
    this.child = undefined;
    if (!c || c.exited) return;
    c.send({ type: 'shutdown' });
    const gone = await c.next(1000);
    if (gone?.kind !== 'exit') c.kill();
  }
}
