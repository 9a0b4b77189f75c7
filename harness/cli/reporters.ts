/**
 * What `run` prints while it runs and when it ends (`--reporter`, repeatable: several at once):
 *
 * - `progress` (default): a line per scenario on stderr as it finishes, the summary on stdout;
 * - `dot`: a character per scenario on stdout (`.` as expected, `F` unexpected), then the summary;
 * - `tap`: TAP version 13 on stdout, `ok`/`not ok` by whether the verdict is expected, each
 *   scenario not run as `# SKIP` with its reason, the plan last;
 * - `json`: nothing while it runs; the results document (docs/results.schema.json) on stdout;
 * - `junit`: nothing while it runs; the report's junit.xml on stdout;
 * - `github`: a GitHub Actions workflow command (`::error`) per unexpected verdict, on stdout, so
 *   each shows as an annotation (on the scenario file where it lies in the repository).
 *
 * `name=file` writes a reporter's whole output to that file instead (written when the run ends).
 * tap, json and junit write documents a tool parses: at most one of them on stdout, and `github`
 * (whose commands the runner reads on stdout) not beside one there; `progress` and `dot` move to
 * stderr when a document holds stdout. Colour only on a terminal, or with FORCE_COLOR (not 0 or
 * false), never with NO_COLOR set unless FORCE_COLOR is (as Node itself decides), never in a file.
 * Text that comes from a scenario file or a client is made printable before any colour is added. A
 * scenario still running after 10 s is said on stderr (progress, dot), every 10 s, so a long run
 * never looks hung.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { checkBehind, controlSentence, incompleteSentence, type RunResults, type ScenarioResult } from '../core/results.js';
import { CODE_ROOT, PACKAGE_ROOT } from '../runner/infrastructure/package-root.js';
import { printable, printableInline, printableJson } from '../core/text.js';
import { VERDICT_KINDS, type VerdictKind } from '../core/verdict.js';
import { shownPath } from './io.js';
import type { WrittenReport } from '../../reports/index.js';

export const REPORTERS = ['progress', 'dot', 'tap', 'json', 'junit', 'github'] as const;
export type ReporterName = (typeof REPORTERS)[number];

/** One `--reporter`: its name, and the file it writes to instead of stdout. */
export interface ReporterChoice {
  name: ReporterName;
  file?: string;
}

/** Reporters whose stdout is a document a tool parses: one of them at most on stdout. */
const DOCUMENTS: readonly ReporterName[] = ['tap', 'json', 'junit'];

/** `--reporter name[=file]`, repeatable or comma-separated; throws an Error with the one line to say. */
export function parseReporters(v: string, prev: ReporterChoice[] = []): ReporterChoice[] {
  const more = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean)
    .map((item) => {
      const eq = item.indexOf('=');
      const name = eq < 0 ? item : item.slice(0, eq);
      const file = eq < 0 ? undefined : item.slice(eq + 1);
      if (!(REPORTERS as readonly string[]).includes(name)) throw new Error(`--reporter must be one of ${REPORTERS.join(', ')} (or name=file), got "${name}"`);
      if (file !== undefined && !file.trim()) throw new Error(`--reporter ${name}=: the file name is empty`);
      return { name: name as ReporterName, ...(file !== undefined ? { file } : {}) };
    });
  if (more.length === 0) throw new Error('--reporter needs a name');
  return [...prev, ...more];
}

/** Why these reporters cannot run together, or undefined. */
export function reportersProblem(choices: ReporterChoice[]): string | undefined {
  const onStdout = choices.filter((c) => c.file === undefined);
  const documents = onStdout.filter((c) => DOCUMENTS.includes(c.name));
  if (documents.length > 1)
    return `--reporter ${documents.map((d) => d.name).join(' and ')} would both write to stdout, where neither could be parsed: give one a file (--reporter ${documents[1]!.name}=${documents[1]!.name === 'tap' ? 'results.tap' : documents[1]!.name === 'junit' ? 'junit.xml' : 'results.json'})`;
  if (documents.length === 1 && onStdout.some((c) => c.name === 'github'))
    return `--reporter github writes workflow commands to stdout, where --reporter ${documents[0]!.name} writes its document: give ${documents[0]!.name} a file (--reporter ${documents[0]!.name}=<file>)`;
  const seen = new Set<string>();
  for (const c of choices) {
    const key = c.file !== undefined ? `file:${resolve(c.file)}` : `stdout:${c.name}`;
    if (seen.has(key)) return c.file !== undefined ? `two reporters write to ${c.file}: give each its own file` : `--reporter ${c.name} is given twice`;
    seen.add(key);
  }
  return undefined;
}

export interface RunReporter {
  start(scenarioId: string): void;
  /** The run failed before it could end (a client that never said hello…): TAP says `Bail out!`. */
  failed(reason: string): void;
  result(done: number, total: number, r: ScenarioResult, unexpected: boolean): void;
  /** A failure met while the harness lagged: it runs again on a drained lane before it is reported. */
  deferred?(done: number, total: number, r: ScenarioResult): void;
  end(results: RunResults, written: WrittenReport): void;
  dispose(): void;
}

export interface ReporterIo {
  /** Writes to stdout / stderr as given (the reporter has made untrusted text printable). */
  out(text: string): void;
  err(text: string): void;
  colour: boolean;
}

/**
 * Colour for a stream: FORCE_COLOR set (to anything but 0 or false) forces it on, and FORCE_COLOR=0
 * (or false) off; otherwise a terminal, with NO_COLOR absent or empty. FORCE_COLOR wins over
 * NO_COLOR, as in Node's own tty.
 */
export function wantsColour(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false'].includes(force.toLowerCase());
  return stream.isTTY === true && !env.NO_COLOR;
}

const SGR: Record<VerdictKind, number> = { PASS: 32, NON_STRICT: 33, FAIL: 31, INFORMATIONAL: 36, UNSUPPORTED: 90, TIMEOUT: 35, ERROR: 31 };
const paint = (on: boolean, code: number, text: string) => (on ? `\u001b[${code}m${text}\u001b[39m` : text);

/** The summary every human-facing reporter ends with. */
export function summaryText(r: RunResults, out: WrittenReport, colour = false): string {
  const counts = VERDICT_KINDS.map((k) => (r.summary[k] > 0 ? paint(colour, SGR[k], `${k} ${r.summary[k]}`) : `${k} ${r.summary[k]}`)).join('  ');
  const lines = [
    '',
    printableInline(
      `a2a-conformance ${r.harness.version} · client ${r.client.name} ${r.client.version} · ${r.results.length} scenario(s) run, ${r.notRun.length} not run · ${(r.durationMs / 1000).toFixed(1)} s`,
    ),
    counts,
  ];
  if (r.client.notImplemented?.length)
    lines.push(
      printable(
        `declared not implemented: ${r.client.notImplemented.map((d) => `${d.capability} (${printableInline(d.reason)})`).join('; ')}: the scenarios that need it are not run, and the verdicts are for the declared capabilities`,
      ),
    );
  if (r.control?.length) lines.push(printable(`control: ${controlSentence(r.control)}`));
  const rerun = r.results.filter((x) => x.attempts?.length);
  if (rerun.length)
    lines.push(
      printable(
        `${rerun.length} scenario(s) ran again on a drained lane after the harness lagged: ${rerun
          .slice(0, 8)
          .map((x) => `${x.id} ${x.attempts!.map((a) => a.verdict).join(' → ')} → ${x.verdict}`)
          .join('; ')}${rerun.length > 8 ? '; …' : ''}`,
      ),
    );
  if (r.lanes?.backoffs) lines.push(`lanes: ${r.lanes.start} asked, backed off to ${r.lanes.min} while the harness lagged (${r.lanes.backoffs} time(s))`);
  for (const u of r.unexpected) {
    const res = r.results.find((x) => x.id === u.id);
    const worst = checkBehind(res, u.verdict);
    // No result behind it (a stale expectation): the reason it is unexpected is all there is to say.
    lines.push(
      `  ✗ ${paint(colour, SGR[u.verdict], u.verdict.padEnd(10))} ${printableInline(`${u.id} — ${worst ? `${worst.rule}: ${worst.reason}` : u.why}`)}`,
    );
  }
  if (r.incomplete) lines.push(`  ✗ ${printable(incompleteSentence(r.incomplete))}`);
  if (r.shard && !r.shard.startsWith('merged') && r.results.length === 0 && r.notRun.length > 0 && r.exitCode === 0)
    lines.push(printable(`shard ${r.shard} holds no scenario (there are more shards than scenarios): nothing to run here; \`report\` merges the shards`));
  lines.push(
    printable(`report: ${shown(out.html)}`),
    printable(`results: ${shown(out.results)} · junit: ${shown(out.junit)} · summary: ${shown(out.markdown)}`),
    `exit code ${r.exitCode}`,
  );
  return lines.join('\n') + '\n';
}

/** A path as the console names it: relative to the current folder where it lies under it, else as it is. */
export function shown(path: string): string {
  return shownPath(process.cwd(), path);
}

/** Says on stderr which scenarios are still running after 10 s, then after each further 10 s. */
function inFlight(io: ReporterIo) {
  /** When each running scenario started, and the next mark (in seconds) to announce. */
  const started = new Map<string, { at: number; next: number }>();
  const timer = setInterval(() => {
    const now = Date.now();
    for (const [id, s] of started) {
      const secs = Math.floor((now - s.at) / 1000);
      if (secs < s.next) continue;
      io.err(`  … ${printableInline(id)} still running (${secs} s)\n`);
      s.next = (Math.floor(secs / 10) + 1) * 10;
    }
  }, 1000);
  timer.unref();
  return {
    start: (id: string) => started.set(id, { at: Date.now(), next: 10 }),
    done: (id: string) => started.delete(id),
    stop: () => clearInterval(timer),
  };
}

export function makeReporter(name: ReporterName, io: ReporterIo): RunReporter {
  const c = io.colour;
  if (name === 'json')
    return {
      start() {},
      result() {},
      end: (results) => io.out(printableJson(results, 2) + '\n'),
      failed() {},
      dispose() {},
    };
  if (name === 'junit')
    return {
      start() {},
      result() {},
      // The report's own junit.xml, written before the reporters end: one rendering, two places.
      end: (_results, written) => io.out(readFileSync(written.junit, 'utf8')),
      failed() {},
      dispose() {},
    };
  if (name === 'github')
    return {
      start() {},
      result() {},
      failed: (reason) => io.out(workflowCommand('error', { title: 'A2A conformance: the run failed before its report' }, reason.split('\n')[0]!)),
      end(results) {
        for (const u of results.unexpected) {
          const r = results.results.find((x) => x.id === u.id);
          const worst = checkBehind(r, u.verdict);
          const file = r?.file ? repositoryFile(r.file) : undefined;
          const message = worst ? `${worst.rule}: ${worst.reason}${worst.level ? ` [${worst.level}]` : ''}\nunexpected: ${u.why}` : u.why;
          io.out(workflowCommand('error', { ...(file ? { file } : {}), title: `A2A conformance: ${u.verdict} ${u.id}` }, message));
        }
        if (results.incomplete) io.out(workflowCommand('error', { title: 'A2A conformance: incomplete merge' }, incompleteSentence(results.incomplete)));
      },
      dispose() {},
    };
  if (name === 'tap') {
    let n = 0;
    io.out('TAP version 13\n');
    return {
      start() {},
      result(_done, _total, r, unexpected) {
        n += 1;
        const worst = checkBehind(r);
        const why = unexpected && worst ? `: ${worst.rule}: ${worst.reason}` : '';
        io.out(`${unexpected ? 'not ok' : 'ok'} ${n} - ${printableInline(r.id)} # ${r.verdict}${printableInline(why).replace(/#/g, '\\#')}\n`);
      },
      failed: (reason) => io.out(`Bail out! ${printableInline(reason.split('\n')[0]!)}\n`),
      end(results, written) {
        // What did not run is listed, as TAP lists what it skips: `ok` with a SKIP directive and the reason.
        for (const s of results.notRun) io.out(`ok ${++n} - ${printableInline(s.id)} # SKIP ${printableInline(s.reason).replace(/#/g, '\\#')}\n`);
        io.out(`1..${n}\n`);
        for (const line of summaryText(results, written).trim().split('\n')) io.out(`# ${line}\n`);
      },
      dispose() {},
    };
  }
  const flight = inFlight(io);
  if (name === 'dot') {
    let col = 0;
    return {
      start: flight.start,
      result(_done, _total, r, unexpected) {
        flight.done(r.id);
        io.out(unexpected ? paint(c, SGR[r.verdict], 'F') : '.');
        if (++col % 60 === 0) io.out('\n');
      },
      end: (results, written) => io.out(`\n${summaryText(results, written, c)}`),
      failed() {},
      deferred: (_d, _t, r) => flight.done(r.id),
      dispose: flight.stop,
    };
  }
  /** How much longer the re-run's deadline was than the attempt's before it (the time the harness owed that one). */
  const stretchNote = (r: ScenarioResult) => {
    const before = r.attempts?.at(-1)?.deadlineMs;
    return before !== undefined && before < r.deadlineMs ? `, its deadline ${before} → ${r.deadlineMs} ms` : '';
  };
  const counter = (done: number, total: number) => `[${String(done).padStart(String(total).length)}/${total}]`;
  const deferred = (done: number, total: number, r: ScenarioResult) => {
    flight.done(r.id);
    io.err(
      `${counter(done, total)} ${paint(c, SGR[r.verdict], r.verdict.padEnd(13))} ${printableInline(r.id)} (${r.durationMs} ms) · the harness lagged (${printableInline(r.lag?.why ?? '')}): runs again on a drained lane once the others are done\n`,
    );
  };
  return {
    start: flight.start,
    result(done, total, r) {
      flight.done(r.id);
      if (r.attempts?.length) {
        io.err(
          `  ↻ ${paint(c, SGR[r.verdict], r.verdict.padEnd(13))} ${printableInline(r.id)} (${r.durationMs} ms) · ran again on a drained lane after the harness lagged${stretchNote(r)}: ${r.attempts.map((a) => a.verdict).join(' → ')} → ${r.verdict}\n`,
        );
        return;
      }
      io.err(`${counter(done, total)} ${paint(c, SGR[r.verdict], r.verdict.padEnd(13))} ${printableInline(r.id)} (${r.durationMs} ms)\n`);
    },
    deferred,
    end: (results, written) => io.out(summaryText(results, written, c)),
    failed() {},
    dispose: flight.stop,
  };
}

/**
 * A GitHub Actions workflow command on one line: the message's `%`, CR and LF escaped, and the
 * properties' `:` and `,` too (the runner's own escaping rules), every piece printable.
 */
function workflowCommand(kind: 'error' | 'warning' | 'notice', props: Record<string, string>, message: string): string {
  const data = (s: string) => printable(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const prop = (s: string) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  const list = Object.entries(props)
    .map(([k, v]) => `${k}=${prop(v)}`)
    .join(',');
  return `::${kind}${list ? ` ${list}` : ''}::${data(message)}\n`;
}

/**
 * A result's scenario file as a path in the repository the run started in (the current folder), for
 * an annotation; undefined for a built-in scenario (it lives in the harness's package, not the
 * vendor's repository) or a file outside the current folder.
 */
function repositoryFile(file: string): string | undefined {
  // As relativeToRoot (catalogue.ts) made it: under the code's root where it lies there, else under the package's.
  const absolute = file.startsWith('..') ? resolve(PACKAGE_ROOT, file) : resolve(CODE_ROOT, file);
  if (!relative(join(CODE_ROOT, 'scenarios'), absolute).startsWith('..')) return undefined;
  const rel = relative(process.cwd(), absolute);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split('\\').join('/') : undefined;
}

/** A reporter's output where it goes: the process's streams, or a file written when the run ends. */
export interface ReportersIo {
  stdout(text: string): void;
  stderr(text: string): void;
  colour: { stdout: boolean; stderr: boolean };
}

/** Several reporters at once (`--reporter a --reporter b=file`), and the files they wrote to, for the caller to put in place. */
export interface RunReporters extends RunReporter {
  files(): Array<{ file: string; text: string }>;
}

export function makeReporters(choices: ReporterChoice[], io: ReportersIo): RunReporters {
  const documentOnStdout = choices.some((c) => c.file === undefined && DOCUMENTS.includes(c.name));
  const buffers: Array<{ file: string; parts: string[] }> = [];
  const each = choices.map((c) => {
    if (c.file !== undefined) {
      const b = { file: c.file, parts: [] as string[] };
      buffers.push(b);
      const keep = (text: string) => void b.parts.push(text);
      return makeReporter(c.name, { out: keep, err: keep, colour: false });
    }
    // Human text gives stdout up to a document there: all of it goes to stderr then.
    const toErr = documentOnStdout && (c.name === 'progress' || c.name === 'dot');
    const out = toErr ? io.stderr : io.stdout;
    const colour = c.name === 'progress' || toErr ? io.colour.stderr : io.colour.stdout;
    return makeReporter(c.name, { out, err: io.stderr, colour });
  });
  return {
    start: (id) => {
      for (const r of each) r.start(id);
    },
    failed: (reason) => {
      for (const r of each) r.failed(reason);
    },
    result: (d, n, r, u) => {
      for (const x of each) x.result(d, n, r, u);
    },
    deferred: (d, n, r) => {
      for (const x of each) x.deferred?.(d, n, r);
    },
    end: (results, written) => {
      for (const r of each) r.end(results, written);
    },
    dispose: () => {
      for (const r of each) r.dispose();
    },
    files: () => buffers.map((b) => ({ file: b.file, text: b.parts.join('') })),
  };
}
