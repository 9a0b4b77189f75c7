/**
 * A `--client-cmd` client whose hello declared `concurrency: n` (n > 1): one process takes up to n
 * runs at once, so n lanes share it (docs/protocol.md, "Several runs per process"). Each `result` is
 * matched to its run by `id`; a result for no run in flight (a late answer to an aborted run) is a
 * warning, never a fault.
 *
 * What a misbehaving process costs is as in subprocess.ts, widened to the runs it had in flight: a
 * crash, an exit or a line over 1 MiB fails every run in flight on it; a run that ignores its abort
 * for 2 s gets the process killed, and the others in flight fail, saying which run it was. The
 * process is started again (with a new hello) for the next run.
 */
import type { ClientReport, Hello, RunRequest } from '../core/protocol/types.js';
import type { ClientAdapter, ClientDiagnostics } from './contract.js';
import { Child, describeExit, head, type SubprocessOptions } from './child.js';
import { greetChild, KILL_AFTER_ABORT_MS, MAX_WARNINGS, runLine, runMessage } from './protocol.js';
import { ClientFault, HarnessFault, HelloFailure } from '../faults.js';

/** stderr kept per process: the last 256 KiB, from which each run takes what came while it was in flight. */
const STDERR_KEEP = 256 * 1024;
const STDERR_PER_RUN = 64 * 1024;

interface InFlight {
  resolve(r: ClientReport): void;
  reject(e: Error): void;
  d: ClientDiagnostics;
}

/** One process and the runs in flight on it. */
class Process {
  readonly inflight = new Map<string, InFlight>();
  /** stderr as one rolling window: `log` holds the characters from `logStart` on. */
  private log = '';
  private logStart = 0;
  /** Why the process was killed, for the runs it takes down with it. */
  killedBecause: string | undefined;

  constructor(
    readonly child: Child,
    readonly hello: Hello,
  ) {}

  get stderrAt(): number {
    this.drain();
    return this.logStart + this.log.length;
  }

  /** What the process wrote on stderr from `from` on (at most 64 KiB). */
  stderrSince(from: number): string {
    this.drain();
    const s = this.log.slice(Math.max(0, from - this.logStart));
    return s.length > STDERR_PER_RUN ? s.slice(0, STDERR_PER_RUN) : s;
  }

  private drain(): void {
    this.log += this.child.takeStderr();
    if (this.log.length > STDERR_KEEP) {
      const cut = this.log.length - STDERR_KEEP;
      this.log = this.log.slice(cut);
      this.logStart += cut;
    }
  }

  /** Every run in flight fails with this fault. */
  failAll(problem: string): void {
    for (const [id, f] of this.inflight) {
      this.inflight.delete(id);
      f.reject(new ClientFault(`the client process ${problem}`));
    }
  }
}

/** The process n lanes share, started (and restarted) on demand. */
export class SharedProcess {
  private current: Process | undefined;
  private starting: Promise<Process> | undefined;
  private readonly diag = new Map<string, ClientDiagnostics>();
  /** Where each run's share of its process's stderr begins. */
  private readonly stderrOf = new Map<string, { p: Process; from: number }>();
  private lanes = 0;
  readonly protocolLog: Array<{ problem: string; line?: string }> = [];

  constructor(private readonly o: SubprocessOptions) {}

  /** A lane's view: the adapter one lane holds. Closing the last view closes the process. */
  lane(): ClientAdapter {
    this.lanes++;
    let closed = false;
    return {
      hello: async () => (await this.ready()).hello,
      prepare: async () => void (await this.ready()),
      run: (req, signal) => this.run(req, signal),
      processes: () => (this.current?.child.proc.pid && !this.current.child.exited ? [this.current.child.proc.pid] : []),
      diagnostics: (id) => {
        const d = this.diag.get(id);
        this.diag.delete(id);
        // Asked after the run settled: stderr arrives on its own pipe, often after the result line.
        const e = this.stderrOf.get(id);
        this.stderrOf.delete(id);
        if (d && e) d.stderr += e.p.stderrSince(e.from);
        return d;
      },
      close: async () => {
        if (closed) return;
        closed = true;
        if (--this.lanes === 0) await this.close();
      },
    };
  }

  /** The live, greeted process; a new one when there is none (a fault costs the caller's run). */
  private ready(): Promise<Process> {
    // A process being killed is not live, though its exit has not come yet: a run is never put on it.
    if (this.current && !this.current.child.exited && !this.current.killedBecause) return Promise.resolve(this.current);
    if (!this.starting)
      this.starting = this.start().finally(() => {
        this.starting = undefined;
      });
    return this.starting;
  }

  private async start(): Promise<Process> {
    const child = new Child(this.o);
    let hello: Hello;
    try {
      hello = await greetChild(child, this.protocolLog);
    } catch (err) {
      child.kill();
      if (err instanceof HelloFailure) throw new ClientFault(`the client process ${err.message}${err.line !== undefined ? `: ${head(err.line, 300)}` : ''}`);
      throw err;
    }
    const p = new Process(child, hello);
    this.current = p;
    void this.pump(p);
    return p;
  }

  /** Reads the process's lines and hands each result to its run, until the process is gone. */
  private async pump(p: Process): Promise<void> {
    const warn = (w: string) => {
      for (const f of p.inflight.values()) if (f.d.warnings.length < MAX_WARNINGS) f.d.warnings.push(w);
    };
    for (;;) {
      const e = await p.child.next(60_000);
      if (!e) continue;
      if (e.kind === 'exit') {
        if (this.current === p) this.current = undefined;
        p.failAll(p.killedBecause ?? `${describeExit(e)} with ${p.inflight.size} run(s) in flight`);
        return;
      }
      if (e.kind === 'too-long') {
        p.killedBecause = `sent a line of ${e.bytes} bytes (over the 1 MiB limit)`;
        p.child.kill();
        continue;
      }
      const line = runLine(e.text);
      if ('warning' in line) {
        warn(line.warning);
        continue;
      }
      const f = typeof line.id === 'string' ? p.inflight.get(line.id) : undefined;
      if (!f) {
        // With several runs on one process, a late answer to an aborted run is expected: nobody reads it.
        warn(`a result for no run in flight (${JSON.stringify(head(String(line.id), 100))}) ignored`);
        continue;
      }
      p.inflight.delete(line.id as string);
      f.resolve(line.report);
    }
  }

  private async run(req: RunRequest, signal: AbortSignal): Promise<ClientReport> {
    const d: ClientDiagnostics = { stderr: '', warnings: [] };
    this.diag.set(req.id, d);
    if (signal.aborted) throw new ClientFault('the deadline passed before the run could start');
    const aborted = new Promise<never>((_, reject) =>
      signal.addEventListener('abort', () => reject(new ClientFault('the deadline passed while the client process was starting')), { once: true }),
    );
    aborted.catch(() => {});
    const p = await Promise.race([this.ready(), aborted]);
    if (p.inflight.has(req.id)) throw new HarnessFault(`[harness] run ${req.id} is already in flight`);
    if (p.child.exited || p.killedBecause) throw new ClientFault(`the client process ${p.killedBecause ?? 'exited'} before run ${req.id} could start`);
    const from = p.stderrAt;
    this.stderrOf.set(req.id, { p, from });
    const answered = new Promise<ClientReport>((resolve, reject) => p.inflight.set(req.id, { resolve, reject, d }));
    p.child.send(runMessage(req));
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      p.child.send({ type: 'abort', id: req.id });
      killTimer = setTimeout(() => {
        if (!p.inflight.has(req.id)) return;
        p.killedBecause = `was killed: run ${req.id} did not answer its abort within ${(this.o.killAfterAbortMs ?? KILL_AFTER_ABORT_MS) / 1000} s (the runs in flight on a process end with it)`;
        p.child.kill();
      }, this.o.killAfterAbortMs ?? KILL_AFTER_ABORT_MS);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await answered;
    } finally {
      signal.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      p.inflight.delete(req.id);
      // A killed process is gone before the lane runs again: nothing it does lands in the next scenario.
      if (p.child.exited || p.killedBecause) await p.child.killAndWait();
    }
  }

  private async close(): Promise<void> {
    // A process still being started is closed too, once it is up (or has failed).
    await this.starting?.catch(() => undefined);
    const p = this.current;
    this.current = undefined;
    if (!p || p.child.exited) return;
    p.child.send({ type: 'shutdown' });
    // The pump reads the process's lines: wait for the exit itself, a second at most.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([p.child.gone, new Promise((r) => (timer = setTimeout(r, 1000)))]);
    clearTimeout(timer);
    if (!p.child.exited) await p.child.killAndWait();
  }
}
