/**
 * The per-run private folder and the owner of every process a run starts.
 *
 * A run (and `serve`) makes one folder with mkdtemp (mode 0700, in the system temp folder): its PKI,
 * the generated test modules of JSON scenario files, and a `procs/` registry with one file per client
 * process group. Every client process carries `A2A_CONFORMANCE_RUN=<folder>` in its environment. The
 * folder and every process that carries its mark are removed on every exit path: the end of the run,
 * an exception, SIGINT/SIGTERM/SIGHUP (see `interruptible`), and the process's `exit`. After a
 * SIGKILL nothing runs; the next run finds the folder (its `owner.json` names a dead process), says
 * so, kills what is left of that run's processes and removes the folder.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, rmSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetRun, registeredGroups, RUN_MARK, sampleTrees, seenDescendants, startTicks, statFields } from '../../adapters/process-group.js';

const RUN_FOLDER_PREFIX = 'a2a-conformance-run-';

export interface RunFolder {
  dir: string;
  pkiDir: string;
  /** One empty file per client process group, named by its id. */
  procsDir: string;
}

/** Who holds a run folder (or an `--out` lock: harness/cli/output.ts): enough to tell a live owner from a dead one. */
/** The most a file of a run folder's bookkeeping (owner.json, a procs/ entry) can hold. */
const BOOKKEEPING_BYTES = 4096;

/**
 * A small regular file of a run folder, read: undefined where it is anything else (a fifo, a link, a
 * device, a folder, a file over `max` bytes). The folder is the client's TMPDIR, so what is there may
 * be planted: it is opened without following a link and without blocking on a fifo, and checked again
 * once open (a file swapped in between), and never read past `max`.
 */
export function readBookkeeping(path: string, max = BOOKKEEPING_BYTES): string | undefined {
  let fd: number | undefined;
  try {
    const before = lstatSync(path);
    if (!before.isFile() || before.size > max) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > max || st.ino !== before.ino) return undefined;
    const buf = Buffer.alloc(Math.min(max, st.size));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString('utf8');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export interface Owner {
  pid: number;
  /** The process's start time in clock ticks (Linux `/proc/<pid>/stat` field 22): tells a reused pid apart. */
  startTicks: string | null;
  /** Its pid namespace: a run in another one (a container sharing /tmp) cannot be judged from here. */
  pidNamespace: string | null;
  startedAt: string;
  /** What made the folder (run, serve, doctor…): never a client command, which may hold a secret. */
  command: string;
}

export function pidNamespace(): string | null {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return null;
  }
}

const OPEN = new Set<string>();
let exitHook = false;

/** This process as an owner. */
export const ownerOfThisProcess = (command: string): Owner => ({
  pid: process.pid,
  startTicks: startTicks(process.pid),
  pidNamespace: pidNamespace(),
  startedAt: new Date().toISOString(),
  command,
});

/** Whether an owner still runs: its pid answers and, where /proc tells, with the same start time and not a zombie. */
export function alive(o: Owner): boolean {
  try {
    process.kill(o.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const fields = statFields(o.pid);
  if (!fields) return true; // no /proc: the signal test is all there is
  // A zombie (state Z or X) is dead; a pid whose start time differs is another process.
  if (fields[0] === 'Z' || fields[0] === 'X') return false;
  return o.startTicks === null || fields[19] === o.startTicks;
}

/** Makes this run's folder. Removed by `closeRunFolder`, and on the process's exit whatever happens. */
export async function openRunFolder(command: string): Promise<RunFolder> {
  const dir = await mkdtemp(join(tmpdir(), RUN_FOLDER_PREFIX));
  const f: RunFolder = { dir, pkiDir: join(dir, 'pki'), procsDir: join(dir, 'procs') };
  for (const d of [f.pkiDir, f.procsDir]) mkdirSync(d, { mode: 0o700 });
  const owner = ownerOfThisProcess(command);
  await writeFile(join(dir, 'owner.json'), JSON.stringify(owner) + '\n', { mode: 0o600 });
  // Held open while the run lives (close-on-exec: no client inherits it): whatever a client writes in
  // owner.json, another command's reaper sees a live process holding the folder and leaves it alone.
  HELD.set(dir, openSync(dir, 'r'));
  OPEN.add(dir);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const d of OPEN) removeRunFolderSync(d);
    });
  }
  return f;
}

/** The run folders this process has open now. */
export const openRunFolders = (): string[] => [...OPEN];

/** Pids of processes whose environment carries this run's mark (Linux; elsewhere none are found). */
export function markedProcesses(dir: string): number[] {
  const mark = Buffer.from(`${RUN_MARK}=${dir}\0`);
  const inner = Buffer.from(`\0${RUN_MARK}=${dir}\0`);
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const env = readFileSync(`/proc/${e}/environ`);
      // The whole variable: first in the environment, or after another one's terminating NUL.
      if (env.subarray(0, mark.length).equals(mark) || env.includes(inner)) out.push(Number(e));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/**
 * Kills every process of a run. The marked processes go first (on Linux): a run's client processes
 * carry the mark, and one left running by a SIGKILLed CLI could otherwise start another process
 * between the read of the registry and the kill. Then each registered process group (its leader the
 * very process registered, or holding a marked process), then whatever carries the mark by now (a
 * client that started its own session, say).
 */
function killRunProcesses(dir: string, since?: string | null): string[] {
  const killed = new Map<number, string>();
  const note = (pid: number) => {
    if (!killed.has(pid)) killed.set(pid, `${commOf(pid) ?? 'process'} (pid ${pid})`);
  };
  const canVerify = existsProc();
  // A run of this process kills what it registered itself, never what a file in the folder says (a client can write there).
  const own = OPEN.has(dir);
  if (own) sampleTrees();
  const marked = markedProcesses(dir);
  const markedGroups = new Set(marked.map(groupOf).filter((g): g is number => g !== undefined));
  const killAll = (pids: number[]) => {
    for (const pid of pids) {
      try {
        note(pid);
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  };
  killAll(marked);
  // A SIGKILL is delivered, not done, when kill() returns: wait (up to 2 s) until those processes are
  // gone or zombies, so none of them can still start and register a client after the registry is read.
  if (canVerify) waitGone(marked, 2000);
  let groups: Array<[number, string | undefined]> = [];
  if (own) groups = [...registeredGroups(dir)];
  else {
    try {
      // Unregistered meanwhile, or planted (not a small regular file): no start time to believe.
      groups = readdirSync(join(dir, 'procs')).map((g) => [Number(g), readBookkeeping(join(dir, 'procs', g))]);
    } catch {
      // no registry
    }
  }
  const throughGroups: number[] = [];
  for (const [pgid, ticks] of groups) {
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    // Where /proc tells, a group is killed while its leader is the very process registered (same start
    // time: a client that cleared its environment is still found), or while it held a marked process.
    // Anything else may be a reused pid. A dead run's file is believed only for a leader that started
    // after that run did: a file a client forged to name an older group (a shell's, say) kills nothing.
    if (canVerify) {
      const now = startTicks(pgid);
      const sameLeader = !!ticks && now === ticks && (own || (since !== undefined && since !== null && since !== 'unknown' && Number(now) >= Number(since)));
      if (!sameLeader && !markedGroups.has(pgid)) continue;
    }
    // Named before the group goes: the reap message says what was killed through it.
    const members = canVerify ? groupMembers(pgid) : [];
    members.forEach(note);
    throughGroups.push(...members);
    try {
      process.kill(-pgid, 'SIGKILL');
      if (!canVerify) killed.set(-pgid, `process group ${pgid}`);
    } catch {
      // No such group: a descendant written by its pid (process-group.ts) that leads none, killed alone (it is the very
      // process seen, by its start time); else the group is gone.
      if (canVerify && members.length === 0 && startTicks(pgid) === ticks) {
        note(pgid);
        throughGroups.push(pgid);
        try {
          process.kill(pgid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  }
  // Descendants of the run's clients seen while they lived (one that left the group and cleared its environment), still the same process.
  const escaped = own ? [...seenDescendants(dir)].filter(([pid, t]) => startTicks(pid) === t).map(([pid]) => pid) : [];
  killAll(escaped);
  const late = markedProcesses(dir);
  killAll(late);
  // As for the marked ones: the run is over only once what it killed is gone (a loaded machine takes a
  // while to tear a process down, and one still dying is still running to whoever looks).
  if (canVerify) waitGone([...throughGroups, ...escaped, ...late], 2000);
  return [...killed.values()];
}

/** A process's command name (`/proc/<pid>/stat` field 2), printable and short. */
function commOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat
      .slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      .replace(/[^\x20-\x7e]/g, '?')
      .slice(0, 32);
  } catch {
    return undefined;
  }
}

/** The live processes of a process group (Linux). */
function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(Number(e));
    if (f && Number(f[2]) === pgid && f[0] !== 'Z' && f[0] !== 'X') out.push(Number(e));
  }
  return out;
}

/** Blocks until every pid is gone or a zombie, or `ms` passed (synchronous: exit hooks call it). */
function waitGone(pids: number[], ms: number): void {
  const end = Date.now() + ms;
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const alive = (pid: number) => {
    const state = statFields(pid)?.[0];
    return state !== undefined && state !== 'Z' && state !== 'X';
  };
  while (Date.now() < end && pids.some(alive)) Atomics.wait(nap, 0, 0, 10);
}

function existsProc(): boolean {
  try {
    return lstatSync('/proc/self').isSymbolicLink();
  } catch {
    return false;
  }
}

function groupOf(pid: number): number | undefined {
  const pgrp = statFields(pid)?.[2];
  return pgrp === undefined ? undefined : Number(pgrp);
}

function removeRunFolderSync(dir: string, since?: string | null): string[] {
  const killed = killRunProcesses(dir, since);
  rmSync(dir, { recursive: true, force: true });
  OPEN.delete(dir);
  forgetRun(dir);
  const fd = HELD.get(dir);
  HELD.delete(dir);
  if (fd !== undefined) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
  }
  return killed;
}

/** The open descriptor on each run folder of this process. */
const HELD = new Map<string, number>();

/** Whether a live process holds the folder open (a run's owner does, whatever its owner.json says). */
function heldOpen(dir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return false;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone, or not ours to read
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === dir) return true;
      } catch {
        // closed meanwhile
      }
    }
  }
  return false;
}

/**
 * The folder's birth as a start time in clock ticks since boot (as `/proc/<pid>/stat` gives one),
 * less half a second (the two clocks are read apart); undefined where the file system keeps no birth time. A client can rewrite
 * owner.json, never the folder's birth.
 */
function bornTicks(dir: string): string | undefined {
  try {
    const born = statSync(dir).birthtimeMs;
    const uptime = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    if (!(born > 0) || !(uptime > 0)) return undefined;
    const bootMs = Date.now() - uptime * 1000;
    return String(Math.max(0, Math.floor(((born - bootMs) / 1000 - 0.5) * 100)));
  } catch {
    return undefined;
  }
}

/** Kills the run's processes and removes its folder. */
export async function closeRunFolder(f: RunFolder | undefined): Promise<void> {
  if (f) removeRunFolderSync(f.dir);
}

/** Removes every open run folder now, synchronously: the last step before a forced exit. */
export function closeAllRunFoldersSync(): void {
  for (const d of [...OPEN]) removeRunFolderSync(d);
}

/**
 * Whether a folder without an owner file was touched in the last minute: a run that is just being
 * made or just being removed (its entries go first), not a dead one. A folder gone meanwhile counts
 * as recent: there is nothing to reap.
 */
function recent(dir: string): boolean {
  try {
    return Date.now() - statSync(dir).mtimeMs < 60_000;
  } catch {
    return true;
  }
}

/**
 * Finds run folders of this user whose owner process is dead (a run that was SIGKILLed, or a machine
 * that lost power), kills what is left of their processes and removes them. Returns one line per folder.
 */
export function reapDeadRuns(): string[] {
  const lines: string[] = [];
  const base = tmpdir();
  let names: string[];
  try {
    names = readdirSync(base).filter((n) => n.startsWith(RUN_FOLDER_PREFIX));
  } catch {
    return lines;
  }
  for (const n of names) {
    const dir = join(base, n);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) continue;
    } catch {
      continue;
    }
    // Its marker: owner.json. A folder of the prefix without one is not a run folder (or one that died within ms
    // of mkdtemp, before any key was written): left alone. One that is not a small regular file was planted by a
    // client (its TMPDIR is the folder): never read, and the folder judged by its age alone.
    let marked = false;
    try {
      lstatSync(join(dir, 'owner.json'));
      marked = true;
    } catch {
      marked = false;
    }
    if (!marked) continue;
    let owner: Owner | undefined;
    try {
      owner = JSON.parse(readBookkeeping(join(dir, 'owner.json')) ?? 'null') as Owner | undefined;
      if (!owner || typeof owner.pid !== 'number' || typeof owner.command !== 'string') owner = undefined;
    } catch {
      owner = undefined;
    }
    if (OPEN.has(dir) || (owner ? alive(owner) : recent(dir))) continue;
    // A run in another pid namespace cannot be told alive or dead from here: left alone.
    if (owner?.pidNamespace && pidNamespace() && owner.pidNamespace !== pidNamespace()) continue;
    // A live run holds its folder open: an owner.json a client rewrote to name a dead process fools nobody.
    if (heldOpen(dir)) continue;
    // Registry files are believed only for groups born after the folder (its birth, not owner.json's word).
    const killed = removeRunFolderSync(dir, bornTicks(dir) ?? 'unknown');
    const named = killed.length > 5 ? `${killed.slice(0, 5).join(', ')} and ${killed.length - 5} more` : killed.join(', ');
    lines.push(
      `a previous ${owner?.command ?? 'run'} died${owner ? ` (pid ${owner.pid}, started ${owner.startedAt})` : ''}; removed what it left: ${dir}${killed.length ? `, and killed ${killed.length} process(es) it left running: ${named}` : ''}`,
    );
  }
  return lines;
}
