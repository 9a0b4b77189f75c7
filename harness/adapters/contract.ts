/**
 * The adapter contract's harness side: the types a client implements live in core's protocol folder
 * (harness/core/protocol/adapter.ts); here is how the harness checks what a client says of itself.
 */
import { depthOver } from '../core/body.js';
import { BINDINGS, DIALECTS, TASK_CLASSES, type Hello } from '../core/protocol/types.js';
import { globProblem } from '../core/glob.js';
import { CAPABILITIES } from '../core/protocol/capabilities.js';

export type { BuiltinClient, ClientAdapter, ClientDiagnostics } from '../core/protocol/adapter.js';

/** The most runs one client process may declare it takes at once (`hello.concurrency`). */
export const MAX_CONCURRENCY = 64;

/** Checks a hello answer: name, version, profile (null or an object), known task classes. */
export function helloProblem(h: unknown): string | undefined {
  const o = h as Partial<Hello> | null;
  if (!o || typeof o !== 'object') return 'hello must be an object';
  // Its profile goes into every result: nesting past any real profile would cost the report its stack.
  if (depthOver(o, 32)) return 'hello nests deeper than 32 levels';
  if (typeof o.name === 'string' && o.name.length > 200) return 'hello.name must be at most 200 characters';
  if (typeof o.version === 'string' && o.version.length > 200) return 'hello.version must be at most 200 characters';
  if (typeof o.name !== 'string' || !o.name) return 'hello.name must be a non-empty string';
  if (typeof o.version !== 'string') return 'hello.version must be a string';
  if (o.profile !== null && (typeof o.profile !== 'object' || o.profile === undefined)) return 'hello.profile must be null or a profile object';
  if (!Array.isArray(o.taskClasses) || o.taskClasses.some((c) => !TASK_CLASSES.includes(c)))
    return `hello.taskClasses must list some of ${TASK_CLASSES.join(', ')}`;
  if (o.extensions !== undefined && (!Array.isArray(o.extensions) || o.extensions.some((e) => typeof e !== 'string' || e === '')))
    return 'hello.extensions must be a list of extension URIs';
  if (o.dialects !== undefined && (!Array.isArray(o.dialects) || o.dialects.some((d) => !DIALECTS.includes(d))))
    return `hello.dialects must list some of ${DIALECTS.join(', ')}`;
  if (o.bindings !== undefined && (!Array.isArray(o.bindings) || o.bindings.length === 0 || o.bindings.some((b) => !BINDINGS.includes(b))))
    return `hello.bindings must list some of ${BINDINGS.join(', ')}`;
  if (o.concurrency !== undefined && (!Number.isInteger(o.concurrency) || o.concurrency < 1 || o.concurrency > MAX_CONCURRENCY))
    return `hello.concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}`;
  if (o.dialectsPerRun !== undefined && typeof o.dialectsPerRun !== 'boolean') return 'hello.dialectsPerRun must be true or false';
  if (
    o.glue !== undefined &&
    (!Array.isArray(o.glue) ||
      o.glue.length > 50 ||
      o.glue.some(
        (g) =>
          !g ||
          typeof g !== 'object' ||
          typeof g.note !== 'string' ||
          g.note === '' ||
          g.note.length > 1000 ||
          !Array.isArray(g.scenarios) ||
          g.scenarios.length > 100 ||
          g.scenarios.some((x) => typeof x !== 'string' || x === '' || x.length > 200),
      ))
  )
    return 'hello.glue must be a list (at most 50) of {scenarios: [id or glob, …], note: "…"}';
  const absent = notImplementedProblem(o.notImplemented);
  if (absent) return absent;
  // Each glob is matched against every result: one past the limits is refused here, before it costs the run.
  for (const g of o.glue ?? [])
    for (const x of g.scenarios) {
      const problem = globProblem(x);
      if (problem) return `hello.glue: ${JSON.stringify(x.slice(0, 60))} is not a usable glob: ${problem}`;
    }
  return undefined;
}

/** The most characters of a declared capability's reason: one line, shown beside every scenario it leaves out. */
export const MAX_REASON_CHARS = 300;

/** hello.notImplemented: each capability of the closed list at most once, with a one-line reason. */
function notImplementedProblem(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  const shape = `hello.notImplemented must be a list of {capability, reason}, capability one of ${CAPABILITIES.join(', ')}, reason one line of 1 to ${MAX_REASON_CHARS} characters`;
  if (!Array.isArray(v) || v.length > CAPABILITIES.length) return shape;
  const seen = new Set<string>();
  for (const x of v as Array<{ capability?: unknown; reason?: unknown }>) {
    if (!x || typeof x !== 'object' || Object.keys(x).some((k) => k !== 'capability' && k !== 'reason')) return shape;
    if (typeof x.capability !== 'string' || !(CAPABILITIES as readonly string[]).includes(x.capability))
      return `hello.notImplemented: ${JSON.stringify(String(x.capability).slice(0, 60))} is not a capability the harness knows (${CAPABILITIES.join(', ')}; docs/protocol.md)`;
    if (
      typeof x.reason !== 'string' ||
      x.reason.trim() === '' ||
      x.reason.length > MAX_REASON_CHARS ||
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(x.reason)
    )
      return `hello.notImplemented: the reason for ${x.capability} must be one line of 1 to ${MAX_REASON_CHARS} characters`;
    if (seen.has(x.capability)) return `hello.notImplemented names ${x.capability} twice`;
    seen.add(x.capability);
  }
  return undefined;
}
