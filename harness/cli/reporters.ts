/**
 * What `run` prints while it runs and when it ends (`--reporter`):
 *
 * - `progress` (default): a line per scenario on stderr as it finishes, the summary on stdout;
 * - `dot`: a character per scenario on stdout (`.` as expected, `F` unexpected), then the summary;
 * - `tap`: TAP version 13 on stdout, `ok`/`not ok` by whether the verdict is expected, the plan last;
 * - `json`: nothing while it runs; the results document (docs/results.schema.json) on stdout.
 *
 * Colour only on a terminal, never with NO_COLOR set (https://no-color.org). Text that comes from a
 * scenario file or a client is made printable before any colour is added. A scenario still running
 * after 10 s is said on stderr (progress, dot), every 10 s, so a long run never looks hung.
 */
import { isAbsolute, relative } from 'node:path';
import { checkBehind, controlSentence, incompleteSentence, type RunResults, type ScenarioResult } from '../core/results.js';
import { printable, printableInline, printableJson } from '../core/text.js';
import { VERDICT_KINDS, type VerdictKind } from '../core/verdict.js';
import type { WrittenReport } from '../../reports/index.js';

export const REPORTERS = ['progress', 'dot', 'tap', 'json'] as const;
export type ReporterName = (typeof REPORTERS)[number];

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

/** Colour for a stream: a terminal, and NO_COLOR absent or empty. */
export const wantsColour = (stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env) => stream.isTTY === true && !env.NO_COLOR;

const SGR: Record<VerdictKind, number> = { PASS: 32, NON_STRICT: 33, FAIL: 31, INFORMATIONAL: 36, UNSUPPORTED: 90, TIMEOUT: 35, ERROR: 31 };
const paint = (on: boolean, code: number, text: string) => (on ? `\u001b[${code}m${text}\u001b[39m` : text);

/** The summary every human-facing reporter ends with. */
export function summaryText(r: RunResults, out: WrittenReport, colour = false): string {
  const counts = VERDICT_KINDS.map((k) => (r.summary[k] > 0 ? paint(colour, SGR[k], `${k} ${r.summary[k]}`) : `${k} ${r.summary[k]}`)).join('  ');
  const lines = [
    '',
    printable(`a2a-conformance ${r.harness.version} · client ${r.client.name} ${r.client.version} · ${r.results.length} scenario(s) run, ${r.notRun.length} not run · ${(r.durationMs / 1000).toFixed(1)} s`),
    counts,
  ];
  if (r.control?.length) lines.push(printable(`control: ${controlSentence(r.control)}`));
  const rerun = r.results.filter((x) => x.attempts?.length);
  if (rerun.length)
    lines.push(printable(`${rerun.length} scenario(s) ran again on a drained lane after the harness lagged: ${rerun.slice(0, 8).map((x) => `${x.id} ${x.attempts!.map((a) => a.verdict).join(' → ')} → ${x.verdict}`).join('; ')}${rerun.length > 8 ? '; …' : ''}`));
  if (r.lanes?.backoffs) lines.push(`lanes: ${r.lanes.start} asked, backed off to ${r.lanes.min} while the harness lagged (${r.lanes.backoffs} time(s))`);
  for (const u of r.unexpected) {
    const res = r.results.find((x) => x.id === u.id);
    const worst = checkBehind(res, u.verdict);
    // No result behind it (a stale expectation): the reason it is unexpected is all there is to say.
    lines.push(`  ✗ ${paint(colour, SGR[u.verdict], u.verdict.padEnd(10))} ${printable(`${u.id} — ${worst ? `${worst.rule}: ${worst.reason}` : u.why}`)}`);
  }
  if (r.incomplete) lines.push(`  ✗ ${printable(incompleteSentence(r.incomplete))}`);
  if (r.shard && !r.shard.startsWith('merged') && r.results.length === 0 && r.notRun.length > 0 && r.exitCode === 0)
    lines.push(printable(`shard ${r.shard} holds no scenario (there are more shards than scenarios): nothing to run here; \`report\` merges the shards`));
  lines.push(printable(`report: ${shown(out.html)}`), printable(`results: ${shown(out.results)} · junit: ${shown(out.junit)} · summary: ${shown(out.markdown)}`), `exit code ${r.exitCode}`);
  return lines.join('\n') + '\n';
}

/** A path as the console names it: relative to the current folder where it lies under it, else as it is. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : path;
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
  const counter = (done: number, total: number) => `[${String(done).padStart(String(total).length)}/${total}]`;
  const deferred = (done: number, total: number, r: ScenarioResult) => {
    flight.done(r.id);
    io.err(`${counter(done, total)} ${paint(c, SGR[r.verdict], r.verdict.padEnd(13))} ${printableInline(r.id)} (${r.durationMs} ms) · the harness lagged (${printableInline(r.lag?.why ?? '')}): runs again on a drained lane once the others are done\n`);
  };
  return {
    start: flight.start,
    result(done, total, r) {
      flight.done(r.id);
      if (r.attempts?.length) {
        io.err(`  ↻ ${paint(c, SGR[r.verdict], r.verdict.padEnd(13))} ${printableInline(r.id)} (${r.durationMs} ms) · ran again on a drained lane after the harness lagged: ${r.attempts.map((a) => a.verdict).join(' → ')} → ${r.verdict}\n`);
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
