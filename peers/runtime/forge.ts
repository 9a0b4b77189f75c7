/**
 * The push forger (issue 27): deliveries the runtime description scripts (`push.forge`), posted to the
 * receiver a client registered for its task, through the same dispatcher as the genuine ones: with
 * no, wrong or another config's credentials, a state or artifact the real task never had, a task id
 * the client never created or another of its own, a genuine delivery posted twice, or from another
 * certificate. A forged delivery never touches the task or the ledger: only the transcript sees it
 * (`push-attempt` with `genuine: false` and its `forgery`). Its timers die with the run (ctx.later).
 */
import { createHash } from 'node:crypto';
import type { Forgery } from '../../harness/core/push.js';
import { isTerminal, type PushAttemptEvent } from '../../harness/core/transcript.js';
import type { PeerRunContext } from './context.js';

/** A push config as the forger reads it (tasks.ts `PushConfig`, which imports the forger). */
interface PushConfig {
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** A task as the forger reads it (tasks.ts `TaskState`). */
interface TaskState {
  rec: { id: string; contextId: string; state: string };
  pushConfigs: PushConfig[];
}

/** What the forger needs of the runtime: the tasks it knows, and how a config's deliveries are spelled. */
export interface ForgerRuntime {
  mode: 'plain' | 'partner-mtls';
  tasks(): TaskState[];
  bodyOf(c: PushConfig): (event: Record<string, unknown>) => unknown;
}

/** The short kind of a forgery, as the transcript records it: what it changed, space-separated. */
export function forgeryKind(f: Forgery): string {
  if (f.duplicate) return f.from === 'other' ? 'duplicate from:other' : 'duplicate';
  const parts: string[] = [];
  if (f.credentials && f.credentials !== 'genuine') parts.push(`credentials:${f.credentials}`);
  if (f.state && f.state !== 'current') parts.push(`state:${f.state}`);
  if (f.taskId && f.taskId !== 'own') parts.push(`task:${f.taskId}`);
  if (f.from === 'other') parts.push('from:other');
  return parts.length ? parts.join(' ') : 'resend';
}

/** Whether a forgery still tells the truth: the config's credentials, the real state of the client's own task, the usual sender. */
export function isGenuine(f: Forgery): boolean {
  const k = forgeryKind(f);
  return k === 'duplicate' || k === 'resend';
}

const derive = (s: string, salt: string) => createHash('sha256').update(`${salt}:${s}`).digest('base64url').slice(0, 24);

/** The artifact only a forged COMPLETED carries: the real task never produces it. */
export const FORGED_ARTIFACT_ID = 'forged-artifact-1';

export class PushForger {
  /** Configs in the order of registration (Forgery.config counts them). */
  private readonly configs: Array<{ c: PushConfig; t: TaskState }> = [];
  /** The last genuine body posted to each config, as posted (a duplicate posts it again). */
  private readonly lastBody = new WeakMap<PushConfig, { body: unknown; state: string }>();
  private readonly attempted = new WeakSet<PushConfig>();
  private readonly terminalSeen = new WeakSet<PushConfig>();
  /** Forgeries scheduled for each task and not yet attempted: the task's completion waits for them (`due`). */
  private readonly scheduled = new WeakMap<TaskState, Set<Promise<void>>>();

  constructor(
    private readonly forgeries: Forgery[],
    private readonly ctx: PeerRunContext,
    private readonly rt: ForgerRuntime,
  ) {}

  /** A config was registered: forgeries due at registration are scheduled. */
  registered(t: TaskState, c: PushConfig): void {
    this.configs.push({ c, t });
    const n = this.configs.length;
    for (const f of this.forgeries) if ((f.config ?? 1) === n && f.after === 'registration') this.schedule(f, t, c);
  }

  /** A genuine delivery to `c` of `state` was attempted with `body`: after the first, the forgeries due then are scheduled. */
  delivered(t: TaskState, c: PushConfig, body: unknown, state: string): void {
    this.lastBody.set(c, { body, state });
    const n = this.configs.findIndex((x) => x.c === c) + 1;
    const due = (when: Forgery['after']) => {
      for (const f of this.forgeries) if ((f.config ?? 1) === n && (f.after ?? 'first-delivery') === when) this.schedule(f, t, c);
    };
    if (!this.attempted.has(c)) {
      this.attempted.add(c);
      due('first-delivery');
    }
    if (isTerminal(state) && !this.terminalSeen.has(c)) {
      this.terminalSeen.add(c);
      due('terminal-delivery');
    }
  }

  /**
   * Resolves once every forgery scheduled so far for the task was attempted (or the run ended): the
   * runtime completes a task only then, so a forged end always comes while the real task still works,
   * however late a loaded machine runs the timers.
   */
  async due(t: TaskState): Promise<void> {
    const set = this.scheduled.get(t);
    if (set && set.size > 0) await Promise.all([...set]);
  }

  private schedule(f: Forgery, t: TaskState, c: PushConfig): void {
    const s = this.scheduled.get(t) ?? new Set<Promise<void>>();
    this.scheduled.set(t, s);
    let resolve!: () => void;
    const p = new Promise<void>((r) => {
      resolve = r;
    });
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      s.delete(p);
      resolve();
    };
    s.add(p);
    // Attempted (whatever came of it), or the run ended first (onEnd runs at once if it has).
    this.ctx.later(f.afterMs ?? 0, () => void this.fire(f, t, c).then(done, done));
    this.ctx.onEnd(done);
  }

  private async fire(f: Forgery, t: TaskState, c: PushConfig): Promise<PushAttemptEvent | undefined> {
    const kind = forgeryKind(f);
    const from = f.from === 'other' ? { from: 'other' as const } : {};
    if (f.duplicate) {
      const last = this.lastBody.get(c);
      if (last === undefined) return this.skip(kind, 'no genuine delivery to post again yet');
      const genuine = f.from !== 'other';
      return this.ctx.push({
        mode: this.rt.mode,
        url: c.url,
        taskId: t.rec.id,
        state: last.state,
        payload: last.body,
        ...creds(c),
        genuine,
        forgery: kind,
        ...from,
      });
    }
    const target = this.target(f, t);
    if (!target) return this.skip(kind, 'the client has no other task');
    const state = f.state === undefined || f.state === 'current' ? target.state : `TASK_STATE_${f.state}`;
    const timestamp = new Date().toISOString();
    const event =
      f.state === 'COMPLETED'
        ? {
            task: {
              id: target.id,
              contextId: target.contextId,
              status: { state, timestamp },
              artifacts: [{ artifactId: FORGED_ARTIFACT_ID, name: 'forged', parts: [{ text: 'a result the task never produced', mediaType: 'text/plain' }] }],
            },
          }
        : { statusUpdate: { taskId: target.id, contextId: target.contextId, status: { state, timestamp } } };
    return this.ctx.push({
      mode: this.rt.mode,
      url: c.url,
      taskId: target.id,
      state,
      payload: this.rt.bodyOf(c)(event),
      ...this.credentials(f, c),
      genuine: isGenuine(f),
      forgery: kind,
      ...from,
    });
  }

  /** The task the body names, with the state it is really in (an id the client never created takes its own task's). */
  private target(f: Forgery, t: TaskState): { id: string; contextId: string; state: string } | undefined {
    if (f.taskId === 'foreign') {
      const id = `task-${this.ctx.key}-forged-${this.forgeries.indexOf(f) + 1}`;
      return { id, contextId: `ctx-${id}`, state: t.rec.state };
    }
    const named =
      f.taskId === 'other-own'
        ? this.rt
            .tasks()
            .filter((o) => o !== t)
            .pop()
        : t;
    return named && { id: named.rec.id, contextId: named.rec.contextId, state: named.rec.state };
  }

  private credentials(f: Forgery, c: PushConfig): Pick<PushConfig, 'token' | 'authentication'> {
    switch (f.credentials ?? 'genuine') {
      case 'none':
        return {};
      case 'wrong':
        return {
          authentication: { scheme: c.authentication?.scheme ?? 'Bearer', credentials: derive(c.authentication?.credentials ?? '', `wrong-${this.ctx.key}`) },
          ...(c.token ? { token: derive(c.token, `wrong-${this.ctx.key}`) } : {}),
        };
      case 'foreign':
        // Credentials of another config, one this client never gave this agent (the shape of the config's
        // own): another of the client's own configs' would be the agent's to present, and refusing those is
        // §13.2's SHOULD on single-purpose tokens, not its MUST.
        return {
          authentication: { scheme: c.authentication?.scheme ?? 'Bearer', credentials: derive('another-config', `foreign-${this.ctx.key}`) },
          ...(c.token ? { token: derive('another-config-token', `foreign-${this.ctx.key}`) } : {}),
        };
      default:
        return creds(c);
    }
  }

  private skip(kind: string, why: string): undefined {
    this.ctx.transcript.record({ kind: 'harness', level: 'info', message: `forged push (${kind}) not sent: ${why}` });
    return undefined;
  }
}

function creds(c: PushConfig): Pick<PushConfig, 'token' | 'authentication'> {
  return { ...(c.token ? { token: c.token } : {}), ...(c.authentication ? { authentication: c.authentication } : {}) };
}
