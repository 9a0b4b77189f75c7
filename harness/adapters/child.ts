/**
 * A client process of the NDJSON subprocess transport (subprocess.ts) and its stdout as a stream of
 * lines: spawned in a process group of its own (registered with the run's folder, gated until then),
 * its lines framed and queued (each at most 1 MiB, a bounded backlog), its stderr kept, its exit and
 * its kill. What the lines mean is protocol.ts's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { registerProcessGroup, RUN_MARK, sampleTrees, trackTree, unregisterProcessGroup, untrackTree } from './process-group.js';

export const MAX_LINE_BYTES = 1024 * 1024;
const MAX_STDERR = 64 * 1024;
const MAX_QUEUED = 1000;
/** Bytes of unread lines kept (a client writing while nobody reads costs at most this). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
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

export type LineEvent = { kind: 'line'; text: string } | { kind: 'too-long'; bytes: number } | { kind: 'exit'; code: number | null; signal: string | null };

/** One live child process and its line stream. */
/**
 * The CI runner's command files: whatever a process appends to them becomes the job's outputs,
 * environment, PATH, summary or state. The client under test never gets them (a line it appended could
 * set the Action's `exit-code` and turn a failing run into a green job).
 */
export const CI_COMMAND_FILES: readonly string[] = ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_PATH', 'GITHUB_STEP_SUMMARY', 'GITHUB_STATE'];

/** The environment a client process starts with: the harness's, without the CI runner's command files. */
export function clientEnvironment(from: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env = { ...from };
  for (const name of CI_COMMAND_FILES) delete env[name];
  return env;
}

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
    // A run's client carries the run's mark, and the run's folder is its temp folder: what it writes there goes with the run.
    const env = { ...clientEnvironment(o.env ?? process.env), ...(o.runDir ? { [RUN_MARK]: o.runDir, TMPDIR: o.runDir } : {}) };
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
    // The group stopped first, so nothing in it forks after the last look: a descendant spawned in the
    // instant before the kill (one that left the group, on a starved machine) still has its parent then.
    try {
      process.kill(-this.proc.pid!, 'SIGSTOP');
    } catch {
      // no group to stop: the look below is the last one all the same
    }
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
