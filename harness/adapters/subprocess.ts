/**
 * The NDJSON subprocess transport (DESIGN.md §4.1): any client, any language, as a process that
 * reads one JSON object per line on stdin and writes one per line on stdout. stderr is its log,
 * kept per scenario. JSON Schemas of every message: docs/ndjson/.
 *
 * A misbehaving process costs the scenario it was running, never the run: a crash, an exit, a
 * missing or invalid result, an answer to the wrong id, or a line over 1 MiB fails that scenario
 * with a reason that says which (a hang is a TIMEOUT), and the process is restarted for the next.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { ClientReport, Hello, RunRequest } from '../core/vocabulary/types.js';
import { lagWindow, owedMs } from '../net/lag.js';
import { helloProblem, type ClientAdapter, type ClientDiagnostics } from './contract.js';
import { registerProcessGroup, RUN_MARK, sampleTrees, trackTree, unregisterProcessGroup, untrackTree } from './process-group.js';
import { ClientFault, HarnessFault, HelloFailure } from '../faults.js';

export const PROTOCOL = 'a2a-conformance/1';
export const MAX_LINE_BYTES = 1024 * 1024;
const HELLO_TIMEOUT_MS = 10_000;
export const KILL_AFTER_ABORT_MS = 2_000;
/** How long the next run waits for the previous one to end (a killed process to exit). */
const PREVIOUS_RUN_MS = 10_000;
const MAX_STDERR = 64 * 1024;
const MAX_QUEUED = 1000;
/** Bytes of unread lines kept (a client writing while nobody reads costs at most this). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
export const MAX_WARNINGS = 100;
/** How the shell in front of a run's client exits when stdin ends before it was told to start. */
const GATE_CLOSED_EXIT = 125;

/** Every live child, so none outlives the harness. */
const LIVE = new Set<{ kill(): void }>();
process.once('exit', () => {
  for (const c of LIVE) c.kill();
});

export interface SubprocessOptions {
  command: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long after an abort the process is killed (docs/protocol.md: 2 s; shorter only in the harness's own tests). */
  killAfterAbortMs?: number;
  /** The run's private folder (harness/runner/infrastructure/workspace.ts): every process group is registered there and marked with it. */
  runDir?: string;
}

type LineEvent = { kind: 'line'; text: string } | { kind: 'too-long'; bytes: number } | { kind: 'exit'; code: number | null; signal: string | null };

/** One live child process and its line stream. */
export class Child {
  readonly proc: ChildProcess;
  private queue: LineEvent[] = [];
  private waiter: ((e: LineEvent) => void) | undefined;
  stderr = '';
  exited = false;
  /** Lines dropped because nobody was reading them (a flooding client). */
  dropped = 0;
  private exit: LineEvent | undefined;
  /** Resolves once the process has exited. */
  readonly gone: Promise<void>;
  private markGone!: () => void;

  constructor(o: SubprocessOptions) {
    this.gone = new Promise((resolve) => (this.markGone = resolve));
    // Its own process group: the shell that runs the command and everything it starts die together.
    const env = { ...(o.env ?? process.env), ...(o.runDir ? { [RUN_MARK]: o.runDir } : {}) };
    // A run's client waits, in the shell that carries the run's mark, for one line on stdin before its
    // command starts: that line is written only once the group is registered. A client that clears its
    // environment can then never be unmarked and unregistered at once, even when the process that
    // spawns it is killed in between (the shell reads the end of stdin then, and exits).
    const gated = !!o.runDir && process.platform !== 'win32'; // cmd.exe has no `read`: no gate there
    const command = gated ? `IFS= read -r _ || exit ${GATE_CLOSED_EXIT}\n${o.command}` : o.command;
    this.proc = spawn(command, { shell: true, detached: true, cwd: o.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    const pgid = this.proc.pid;
    if (o.runDir && pgid) {
      registerProcessGroup(o.runDir, pgid);
      trackTree(o.runDir, pgid);
      if (gated) this.proc.stdin!.write('\n');
    }
    LIVE.add(this);
    this.proc.stdout!.on('data', (c: Buffer) => this.onData(c));
    this.proc.stderr!.setEncoding('utf8'); // multi-byte characters split across chunks stay whole
    this.proc.stderr!.on('data', (c: string) => {
      if (this.stderr.length < MAX_STDERR) this.stderr += c.slice(0, MAX_STDERR - this.stderr.length);
    });
    this.proc.stdin!.on('error', () => {}); // a dead child's stdin: the exit event says what happened
    this.proc.on('error', (err) => {
      this.push({ kind: 'exit', code: null, signal: `spawn error: ${err.message}` });
      if (this.proc.pid === undefined) {
        this.exited = true;
        LIVE.delete(this);
        this.markGone();
      }
    });
    this.proc.on('exit', (code, signal) => {
      // Whatever the client started in its group dies with it: nothing outlives the process the harness talks to.
      if (pgid) {
        try {
          process.kill(-pgid, 'SIGKILL');
        } catch {
          // the group is already empty
        }
        if (o.runDir) unregisterProcessGroup(o.runDir, pgid);
        untrackTree(pgid);
      }
      this.exited = true;
      LIVE.delete(this);
      this.exit = { kind: 'exit', code, signal };
      this.push(this.exit);
      this.markGone();
    });
  }

  /** The pieces of the line being read: joined once, when its newline arrives (no copy per chunk). */
  private parts: Buffer[] = [];
  private partBytes = 0;

  /** Bytes the process wrote on stdout, and how many of them wait for a newline (for `doctor`'s hints). */
  stdoutBytes = 0;
  get pendingBytes(): number {
    return this.partBytes;
  }

  private onData(c: Buffer): void {
    this.stdoutBytes += c.length;
    let rest = c;
    for (;;) {
      const nl = rest.indexOf(0x0a);
      if (nl < 0) break;
      const bytes = this.partBytes + nl;
      if (bytes > MAX_LINE_BYTES) this.push({ kind: 'too-long', bytes });
      else {
        const line = this.parts.length ? Buffer.concat([...this.parts, rest.subarray(0, nl)]) : rest.subarray(0, nl);
        this.push({ kind: 'line', text: line.toString('utf8').replace(/\r$/, '') });
      }
      this.parts = [];
      this.partBytes = 0;
      rest = rest.subarray(nl + 1);
    }
    if (this.partBytes + rest.length > MAX_LINE_BYTES) {
      this.push({ kind: 'too-long', bytes: this.partBytes + rest.length });
      this.parts = [];
      this.partBytes = 0;
    } else if (rest.length) {
      this.parts.push(rest);
      this.partBytes += rest.length;
    }
  }

  private queuedBytes = 0;

  private push(e: LineEvent): void {
    const bytes = e.kind === 'line' ? e.text.length : 0;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w(e);
    } else if (e.kind === 'exit' || (this.queue.length < MAX_QUEUED && this.queuedBytes + bytes <= MAX_QUEUED_BYTES)) {
      this.queue.push(e);
      this.queuedBytes += bytes;
    } else this.dropped++;
  }

  /** The next line or event, or `undefined` after `ms`. After the exit, always the exit. */
  next(ms: number): Promise<LineEvent | undefined> {
    const q = this.queue.shift();
    if (q) {
      if (q.kind === 'line') this.queuedBytes -= q.text.length;
      return Promise.resolve(q);
    }
    if (this.exit) return Promise.resolve(this.exit);
    return new Promise((resolve) => {
      const waiter = (e: LineEvent) => {
        clearTimeout(t);
        resolve(e);
      };
      const t = setTimeout(() => {
        if (this.waiter === waiter) this.waiter = undefined;
        resolve(undefined);
      }, ms);
      this.waiter = waiter;
    });
  }

  send(msg: unknown): void {
    if (!this.exited && this.proc.stdin!.writable) this.proc.stdin!.write(JSON.stringify(msg) + '\n');
  }

  kill(): void {
    if (this.exited) return;
    // A last look at its tree: a descendant that left the group is known before its parent dies.
    sampleTrees();
    try {
      process.kill(-this.proc.pid!, 'SIGKILL');
    } catch {
      this.proc.kill('SIGKILL');
    }
    this.proc.stdin?.destroy();
  }

  /** Kills the process and waits until it has exited (bounded: SIGKILL cannot be ignored). */
  async killAndWait(ms = 5000): Promise<void> {
    this.kill();
    await Promise.race([this.gone, new Promise((r) => setTimeout(r, ms).unref())]);
  }

  takeStderr(): string {
    const s = this.stderr;
    this.stderr = '';
    return s;
  }
}

/**
 * The first `n` characters of a line, as a string of their own: a plain slice of a 1 MB line keeps
 * the whole line alive for as long as the slice is kept (V8 shares the parent's memory).
 */
export const head = (s: string, n: number): string => (s.length <= n ? s : Buffer.from(s.slice(0, n), 'utf8').toString('utf8'));

export const describeExit = (e: { code: number | null; signal: string | null }) => (e.signal ? `was ended by ${e.signal}` : `exited with code ${e.code}`);

/**
 * A line a process wrote while runs were in flight: a result (its id and report, whose shape the
 * runner checks), or what a line that costs nothing by itself is kept as (a warning).
 */
export function runLine(text: string): { id: unknown; report: ClientReport } | { warning: string } {
  let msg: unknown;
  try {
    msg = JSON.parse(text);
  } catch {
    return { warning: `non-JSON line on stdout: ${head(text, 200)}` };
  }
  const m = (msg && typeof msg === 'object' && !Array.isArray(msg) ? msg : {}) as Record<string, unknown>;
  if (m.type !== 'result')
    return {
      warning: `message of unknown type ${JSON.stringify(typeof m.type === 'string' ? head(m.type, 100) : (m.type ?? null))} ignored: ${head(text, 200)}`,
    };
  const { type: _t, id, ...report } = m;
  return { id, report: report as unknown as ClientReport };
}

/**
 * Greets a fresh process and reads its hello, within 10 s: non-JSON lines and unknown message types
 * before it are logged and skipped; anything else that is not a good hello throws HelloFailure.
 */
export async function greetChild(child: Child, protocolLog: Array<{ problem: string; line?: string }>): Promise<Hello> {
  child.send({ type: 'hello', protocol: PROTOCOL });
  // The 10 s are the client's: time the harness itself lagged (its loop late, waiting for a core) while
  // it waited, reading the client's lines among other things, is added back, up to a minute in all.
  const lag = lagWindow();
  const started = Date.now();
  let deadline = started + HELLO_TIMEOUT_MS;
  let added = 0;
  try {
    return await readHello();
  } finally {
    lag.end();
  }

  async function readHello(): Promise<Hello> {
    for (;;) {
      const e = await child.next(Math.max(0, deadline - Date.now()));
      if (!e) {
        const owed = owedMs(lag.measure()) - added;
        if (owed > 100 && deadline - started < HELLO_TIMEOUT_MS * 6) {
          deadline += owed;
          added += owed;
          continue;
        }
        throw new HelloFailure(
          `did not answer hello within ${HELLO_TIMEOUT_MS / 1000} s${added ? ` (and ${(added / 1000).toFixed(1)} s more, while the harness itself lagged)` : ''}`,
        );
      }
      if (e.kind === 'exit') throw new HelloFailure(`${describeExit(e)} before answering hello`);
      if (e.kind === 'too-long') throw new HelloFailure(`sent a line of ${e.bytes} bytes (over 1 MiB) instead of hello`);
      let msg: unknown;
      try {
        msg = JSON.parse(e.text);
      } catch {
        if (protocolLog.length < MAX_WARNINGS) protocolLog.push({ problem: 'non-JSON line on stdout (ignored)', line: head(e.text, 300) });
        continue;
      }
      if (!msg || typeof msg !== 'object' || Array.isArray(msg)) throw new HelloFailure('answered hello with JSON that is not an object', e.text);
      const m = msg as Record<string, unknown>;
      if (m.type !== 'hello' && typeof m.type === 'string' && m.type !== 'result') {
        if (protocolLog.length < MAX_WARNINGS)
          protocolLog.push({ problem: `unknown message type ${JSON.stringify(head(m.type, 100))} (ignored)`, line: head(e.text, 300) });
        continue;
      }
      const problem = m.type === 'hello' ? helloProblem(m) : `expected {"type":"hello",…}, got type ${JSON.stringify(m.type)}`;
      if (problem) throw new HelloFailure(`bad hello: ${problem}`, e.text);
      return {
        name: m.name as string,
        version: m.version as string,
        profile: m.profile as Hello['profile'],
        taskClasses: m.taskClasses as Hello['taskClasses'],
        ...(Array.isArray(m.extensions) ? { extensions: m.extensions as string[] } : {}),
        ...(Array.isArray(m.dialects) ? { dialects: m.dialects as Hello['dialects'] } : {}),
        ...(m.dialectsPerRun === true ? { dialectsPerRun: true } : {}),
        ...(typeof m.concurrency === 'number' ? { concurrency: m.concurrency } : {}),
        ...(Array.isArray(m.glue) ? { glue: m.glue as Hello['glue'] } : {}),
      };
    }
  }
}

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

  /**
   * Waits for the previous run to end (its process gone, when it had to be killed), then starts the
   * process if it is not running and greets it: all before the deadline starts, so neither a slow
   * kill nor a restart eats into a scenario's time. A process that fails here costs the scenario.
   */
  processes(): number[] {
    const pid = this.child?.proc.pid;
    return pid && !this.child!.exited ? [pid] : [];
  }

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
    child.send({
      type: 'run',
      id: req.id,
      scenario: req.scenario,
      cardUrl: req.cardUrl,
      intent: req.intent,
      profile: req.profile,
      deadlineMs: req.deadlineMs,
      tls: req.tls,
      ...(req.credentials ? { credentials: req.credentials } : {}),
    });
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
