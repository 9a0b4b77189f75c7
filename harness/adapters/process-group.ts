/**
 * How a run finds its client processes again: each process group is registered in this process's
 * memory (what a live run kills: nothing a client can write) and as a file
 * `<run folder>/procs/<pgid>` holding its leader's start time (for the next run, after a SIGKILL of
 * this one; each descendant seen is written there too, by its pid); every process carries `A2A_CONFORMANCE_RUN=<run folder>` in its environment (inherited by
 * whatever it starts, unless it clears its environment); and the descendants of each client process
 * are seen while it lives (its process tree, sampled), so one that left the group, cleared its
 * environment and lost its parent is still known. harness/runner/infrastructure/workspace.ts kills by all three.
 */
import { readdirSync, readFileSync, readlinkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The environment variable that marks a client process as one of a run's. */
export const RUN_MARK = 'A2A_CONFORMANCE_RUN';

/** Fields of `/proc/<pid>/stat` from field 3 (state) on, or undefined off Linux or when gone. */
export function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count from the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's start time in clock ticks (field 22): a reused pid has another. */
export const startTicks = (pid: number): string | null => statFields(pid)?.[19] ?? null;

/** Per run folder: the process groups this process registered, and every descendant of a client seen, each with its start time. */
const GROUPS = new Map<string, Map<number, string>>();
const SEEN = new Map<string, Map<number, string>>();
/** Client processes whose trees are sampled, with the run folder each belongs to. */
const ROOTS = new Map<number, string>();
/** How often a client's process tree is sampled while it lives. */
export const TREE_SAMPLE_MS = 200;
let sampler: NodeJS.Timeout | undefined;

/** The process groups a live run registered (from memory: a file a client wrote is never read here). */
export const registeredGroups = (runDir: string): Map<number, string> => GROUPS.get(runDir) ?? new Map();

/** Every descendant of the run's clients seen so far, with its start time. */
export const seenDescendants = (runDir: string): Map<number, string> => SEEN.get(runDir) ?? new Map();

/** Forgets what this process registered for a run folder (once it is removed). */
export function forgetRun(runDir: string): void {
  GROUPS.delete(runDir);
  SEEN.delete(runDir);
  for (const [pid, dir] of ROOTS) if (dir === runDir) ROOTS.delete(pid);
}

/**
 * Samples the process trees of the live clients: every process whose parent chain reaches a client
 * (or a descendant seen before) is recorded. A process that called setsid() and cleared its
 * environment keeps its parent until that parent exits; seen once, it is known for good.
 */
export function sampleTrees(): void {
  if (ROOTS.size === 0) return;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return;
  }
  const parent = new Map<number, number>();
  const ticks = new Map<number, string>();
  for (const e of entries) {
    if (e.charCodeAt(0) > 57) continue; // not a pid (names start with a letter)
    const f = statFields(Number(e));
    if (!f) continue;
    parent.set(Number(e), Number(f[1]));
    ticks.set(Number(e), f[19]!);
  }
  for (const [pid, ppid] of parent) {
    // Walk up until a client, a known descendant of one, or the top.
    let at = ppid;
    for (let hops = 0; at > 1 && hops < 64; hops++) {
      const dir = ROOTS.get(at) ?? [...SEEN].find(([, m]) => m.has(at) && m.get(at) === ticks.get(at))?.[0];
      if (dir) {
        let m = SEEN.get(dir);
        if (!m) {
          m = new Map();
          SEEN.set(dir, m);
        }
        if (!m.has(pid)) {
          m.set(pid, ticks.get(pid)!);
          // On disk too, as a process group is: after a SIGKILL of this process, the next run's reaper finds it there.
          writeRecord(dir, pid, ticks.get(pid)!);
        }
        break;
      }
      at = parent.get(at) ?? 0;
    }
  }
}

/** Starts sampling a client's process tree (Linux); stopped by `untrackTree` once it has exited and been sampled a last time. */
export function trackTree(runDir: string, pid: number): void {
  ROOTS.set(pid, runDir);
  sampler ??= setInterval(() => {
    sampleTrees();
    if (ROOTS.size === 0) {
      clearInterval(sampler);
      sampler = undefined;
    }
  }, TREE_SAMPLE_MS).unref();
}

export function untrackTree(pid: number): void {
  ROOTS.delete(pid);
}

export function registerProcessGroup(runDir: string, pgid: number): void {
  let m = GROUPS.get(runDir);
  if (!m) {
    m = new Map();
    GROUPS.set(runDir, m);
  }
  m.set(pgid, startTicks(pgid) ?? '');
  // The environment mark still finds the process if the run is being torn down.
  writeRecord(runDir, pgid, startTicks(pgid) ?? '');
}

/**
 * Writes `procs/<pid>` whole or not at all (a temporary name, then a rename): a SIGKILL between the
 * file's creation and its write would leave the next run's reaper an empty start time, which it never believes.
 */
function writeRecord(runDir: string, pid: number, ticks: string): void {
  const temp = join(runDir, 'procs', `.${pid}.${process.pid}`);
  try {
    writeFileSync(temp, ticks, { mode: 0o600 });
    renameSync(temp, join(runDir, 'procs', String(pid)));
  } catch {
    // the run is being torn down
  }
}

export function unregisterProcessGroup(runDir: string, pgid: number): void {
  GROUPS.get(runDir)?.delete(pgid);
  try {
    unlinkSync(join(runDir, 'procs', String(pgid)));
  } catch {
    // already gone
  }
}

/**
 * The inode of the TCP socket whose local port is `from` and remote port `to`, on loopback: a string,
 * '' where there is none with an owner (closed already: inode 0, or gone), undefined where /proc
 * cannot tell. The client's end is an IPv4 socket (/proc/net/tcp) or an IPv6 one (/proc/net/tcp6):
 * a dual-stack stack (grpcio, many Java and Go clients) reaches a listener on 127.0.0.1 through an
 * AF_INET6 socket with the v4-mapped address ::ffff:127.0.0.1, which only the IPv6 table lists. The
 * listener's own end (local port `to`) never matches: its ports are the other way round.
 */
export function socketInode(from: number, to: number, tables: readonly string[] = SOCKET_TABLES): string | undefined {
  const port = (n: number) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`;
  const [a, b] = [port(from), port(to)];
  let readable = false;
  for (const table of tables) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue; // no IPv6 on this kernel: the other table still answers
    }
    readable = true;
    for (const line of text.split('\n')) {
      const f = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (f.length > 9 && f[1]!.endsWith(a) && f[2]!.endsWith(b) && f[9] !== '0') return f[9]!;
    }
  }
  return readable ? '' : undefined;
}

/**
 * Where the kernel lists TCP sockets: IPv4, then IPv6 (v4-mapped addresses included). A list, not a
 * constant, so that a test can take the IPv6 table away and watch the dual-stack verdicts break.
 */
export const SOCKET_TABLES: string[] = ['/proc/net/tcp', '/proc/net/tcp6'];

function holdsSocket(pid: number, link: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === link) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

/** A process's children (Linux `/proc/<pid>/task/<tid>/children`); undefined where the kernel does not say. */
function childrenOf(pid: number): number[] | undefined {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      out.push(...readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && tid === String(pid)) return undefined;
    }
  }
  return out;
}

/**
 * Whether the client end of a loopback connection (from port `from` to a listener's port `to`) is
 * held by one of these process groups' leaders, their descendants (walked down from the leaders), or
 * a descendant seen earlier (one that left the group and lost its parent). Checked at accept, before
 * the server's first byte, so a real client has not closed its end yet: a connection with no open
 * client end there (a scanner that connected and left) is not the client's. Undefined where /proc
 * cannot tell.
 */
export function connectionFrom(leaders: number[], from: number, to: number, tables: readonly string[] = SOCKET_TABLES): boolean | undefined {
  const inode = socketInode(from, to, tables);
  if (inode === undefined) return undefined;
  if (inode === '') return false;
  const link = `socket:[${inode}]`;
  const seen = new Set<number>();
  const queue = [...leaders];
  while (queue.length && seen.size < 4096) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    if (holdsSocket(pid, link)) return true;
    const kids = childrenOf(pid);
    if (kids === undefined) return undefined; // no children files: cannot tell
    queue.push(...kids);
  }
  // Descendants seen while the client lived, of whichever run these groups belong to.
  const runs = new Set(leaders.map((l) => ROOTS.get(l)).filter((d): d is string => !!d));
  for (const dir of runs) for (const [pid, t] of seenDescendants(dir)) if (!seen.has(pid) && startTicks(pid) === t && holdsSocket(pid, link)) return true;
  return false;
}
