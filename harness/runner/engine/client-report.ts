/**
 * A client's result (its ClientReport, docs/protocol.md) as the harness takes it: checked before any
 * field is read, and kept to its declared fields.
 */
import { DECISIONS, ERROR_CLASSES, type ClientReport } from '../../core/protocol/types.js';

/** Deepest nesting a client's result may have: its declared fields are flat; far below any stack. */
const MAX_REPORT_DEPTH = 32;
/** The fields of a ClientReport (docs/protocol.md); any other is ignored, and said. */
export const REPORT_FIELDS = ['decision', 'errorClass', 'degradations', 'taskIds', 'notes'] as const;

/** The first of an object's own keys (walked without recursion) nested deeper than `max`, as a path. */
function tooDeep(value: unknown, max: number): string | undefined {
  const stack: Array<[unknown, string[]]> = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (path.length >= max)
      return `${path
        .slice(0, 3)
        .map((k) => JSON.stringify(k.slice(0, 40)))
        .join('.')}…`;
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) if (x && typeof x === 'object') stack.push([x, [...path, k]]);
  }
  return undefined;
}

/** Why a client's result is not a valid ClientReport, or undefined when it is one. */
export function reportProblem(r: unknown): string | undefined {
  const o = r as Partial<ClientReport> | null | undefined;
  if (!o || typeof o !== 'object') return `the result is ${o === null ? 'null' : typeof o}, not a report object`;
  // Before any field is read: a result nested past any use would cost the report its renderer's stack.
  const deep = tooDeep(o, MAX_REPORT_DEPTH);
  if (deep) return `it nests deeper than ${MAX_REPORT_DEPTH} levels (at ${deep})`;
  if (!DECISIONS.includes(o.decision as never)) return `decision must be one of ${DECISIONS.join(', ')}`;
  if (o.errorClass !== undefined && !ERROR_CLASSES.includes(o.errorClass)) return `errorClass must be one of ${ERROR_CLASSES.join(', ')}`;
  if (!Array.isArray(o.degradations) || o.degradations.some((d) => typeof d !== 'string')) return 'degradations must be a list of strings';
  if (!Array.isArray(o.taskIds) || o.taskIds.some((d) => typeof d !== 'string')) return 'taskIds must be a list of strings';
  if (o.notes !== undefined && typeof o.notes !== 'string') return 'notes must be a string';
  return undefined;
}

/**
 * A valid result as the harness keeps it: its declared fields only, so nothing a client adds reaches
 * results.json or the report; the names of the others (at most ten, cut to 60 characters) for a warning.
 */
export function keptReport(r: ClientReport): { claims: ClientReport; unknown: string[] } {
  const claims = {} as Record<string, unknown>;
  for (const k of REPORT_FIELDS) if ((r as unknown as Record<string, unknown>)[k] !== undefined) claims[k] = (r as unknown as Record<string, unknown>)[k];
  const unknown = Object.keys(r).filter((k) => !(REPORT_FIELDS as readonly string[]).includes(k));
  return {
    claims: claims as unknown as ClientReport,
    unknown: unknown
      .slice(0, 10)
      .map((k) => k.slice(0, 60))
      .concat(unknown.length > 10 ? [`… ${unknown.length - 10} more`] : []),
  };
}
