/**
 * The lock a command holds on a report folder while it writes it (harness/cli/output.ts):
 * `.a2a-conformance.lock`, created exclusively, holding its pid and start time. A second command on
 * the same folder is refused; a lock whose owner is dead is taken over.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { OutputError } from '../faults.js';
import { harnessVersion } from '../runner/infrastructure/package-root.js';
import { alive, ownerOfThisProcess, pidNamespace, type Owner } from '../runner/infrastructure/workspace.js';

/** The lock a command holds while it writes a report folder. */
export const OUT_LOCK = '.a2a-conformance.lock';
export const HARNESS = 'a2a-conformance';
/** A marker or lock is a few hundred bytes: anything far larger is not one of ours. */
const SMALL = 64 * 1024;

export const why = (err: unknown) => {
  const e = err as NodeJS.ErrnoException;
  return e.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : e.message;
};

export /** A small regular file's text, or undefined (missing, not a plain file, too large to be ours). */
function smallFile(file: string, max = SMALL): string | undefined {
  try {
    const st = lstatSync(file);
    if (!st.isFile() || st.size > max) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

let version: string | undefined;
export const ownVersion = () => (version ??= harnessVersion());

interface LockBody extends Owner {
  harness: typeof HARNESS;
  version: string;
  /** Tells this process's lock from a later one of the same process (in-process tests). */
  nonce: string;
}

type Holder = { kind: 'none' } | { kind: 'ours'; body: LockBody; text: string } | { kind: 'unreadable'; mtimeMs: number; text: string } | { kind: 'foreign' };

export function lockHolder(file: string): Holder {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    return { kind: 'none' };
  }
  if (!st.isFile() || st.size > SMALL) return { kind: 'foreign' };
  const text = smallFile(file);
  if (text === undefined) return { kind: 'none' };
  // Created and not yet written (its owner is between open and write, or died there).
  if (!text.trim()) return { kind: 'unreadable', mtimeMs: st.mtimeMs, text };
  try {
    const body = JSON.parse(text) as LockBody;
    if (body.harness === HARNESS && Number.isInteger(body.pid)) return { kind: 'ours', body, text };
  } catch {
    // torn, or not ours
  }
  return { kind: 'foreign' };
}

/** Locks this process holds, by lock file, with the nonce written in each. */
const HELD = new Map<string, string>();
let exitHook = false;

export function releaseLock(file: string): void {
  const nonce = HELD.get(file);
  if (nonce === undefined) return;
  HELD.delete(file);
  const h = lockHolder(file);
  if (h.kind === 'ours' && h.body.nonce === nonce) {
    try {
      unlinkSync(file);
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * Takes the folder's lock, or refuses in one line: another command holds it and is alive (or lives in
 * another pid namespace, where its life cannot be told from here). A lock whose owner is dead (a
 * SIGKILLed run) is taken over. The liveness test is the run folders' (harness/runner/infrastructure/workspace.ts).
 */
export function takeLock(option: string, given: string, dir: string): string {
  const file = join(dir, OUT_LOCK);
  const body: LockBody = { ...ownerOfThisProcess(`${HARNESS} ${option}`), harness: HARNESS, version: ownVersion(), nonce: randomBytes(8).toString('hex') };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o644);
      try {
        writeSync(fd, JSON.stringify(body) + '\n');
      } finally {
        closeSync(fd);
      }
      HELD.set(file, body.nonce);
      if (!exitHook) {
        exitHook = true;
        process.on('exit', () => {
          for (const f of [...HELD.keys()]) releaseLock(f);
        });
      }
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
    }
    const h = lockHolder(file);
    const busy = (who: string) => new OutputError(`${option} ${given} is being written by ${who}: wait for it to finish, or name another folder`);
    if (h.kind === 'foreign') throw new OutputError(`${option} ${given} holds a ${OUT_LOCK} that a2a-conformance did not write: name another folder`);
    if (attempt > 0) throw busy('another a2a-conformance command (it took the lock as this one did)');
    if (h.kind === 'ours') {
      const o = h.body;
      const here = pidNamespace();
      if (o.pidNamespace && here && o.pidNamespace !== here)
        throw busy(
          `an a2a-conformance command in another pid namespace (pid ${o.pid} there, started ${o.startedAt}; if none runs, delete ${join(given, OUT_LOCK)})`,
        );
      if (alive(o)) throw busy(`another a2a-conformance command (pid ${o.pid}, started ${o.startedAt})`);
    } else if (h.kind === 'unreadable' && Date.now() - h.mtimeMs < 10_000) throw busy('another a2a-conformance command (it is taking the lock)');
    // Its owner is dead: the lock is taken over. Removed only while it is still the lock judged dead:
    // another command taking it over at the same moment has replaced it with its own (the window left
    // is the one between this read and the unlink; the loser's exclusive create then fails).
    if (h.kind !== 'none' && smallFile(file) !== h.text) throw busy('another a2a-conformance command (it took over the same stale lock)');
    try {
      unlinkSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new OutputError(`${option} ${given}: cannot write there: ${why(err)}`);
    }
  }
}
