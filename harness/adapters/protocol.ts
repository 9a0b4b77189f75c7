/**
 * The NDJSON protocol's lines (docs/protocol.md), for one run per process (subprocess.ts) and for
 * several (shared-process.ts) alike: the greeting, whose answer must be a good hello, and the lines
 * a process writes while runs are in flight.
 */
import type { ClientReport, Hello, RunRequest } from '../core/protocol/types.js';
import { lagWindow, owedMs } from '../net/lag.js';
import { type Child, describeExit, head } from './child.js';
import { helloProblem } from './contract.js';
import { HelloFailure } from '../faults.js';

export const PROTOCOL = 'a2a-conformance/1';
export const HELLO_TIMEOUT_MS = 10_000;
export const KILL_AFTER_ABORT_MS = 2_000;
export const MAX_WARNINGS = 100;

/** The `run` line of the protocol (docs/protocol.md): what a scenario asks of the client, credentials only where the run has some. */
export function runMessage(req: RunRequest): Record<string, unknown> {
  return {
    type: 'run',
    id: req.id,
    scenario: req.scenario,
    cardUrl: req.cardUrl,
    intent: req.intent,
    profile: req.profile,
    deadlineMs: req.deadlineMs,
    tls: req.tls,
    ...(req.credentials ? { credentials: req.credentials } : {}),
  };
}

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
        ...(Array.isArray(m.bindings) ? { bindings: m.bindings as Hello['bindings'] } : {}),
        ...(typeof m.concurrency === 'number' ? { concurrency: m.concurrency } : {}),
        ...(Array.isArray(m.glue) ? { glue: m.glue as Hello['glue'] } : {}),
        ...(Array.isArray(m.notImplemented) && m.notImplemented.length ? { notImplemented: m.notImplemented as Hello['notImplemented'] } : {}),
      };
    }
  }
}
