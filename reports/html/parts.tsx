import type { ComponentChildren } from 'preact';
import type { RunResults } from '../../harness/core/results.js';
import type { VerdictKind } from '../../harness/core/verdict.js';

export const anchor = (id: string) => `scenario-${id.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
export const unexpectedIds = (r: RunResults) => new Set(r.unexpected.map((u) => u.id));

export function Badge({ v }: { v: VerdictKind }) {
  return <span class={`badge v-${v}`}>{v}</span>;
}

/** A value as JSON has it: keys whose value is undefined dropped, undefined in arrays null (JSON.stringify's rules). */
export const asJson = (value: unknown): unknown => (value === undefined ? null : JSON.parse(JSON.stringify(value)));

/**
 * Levels of nesting a JSON view shows. A scenario's card is at most 64 levels deep (checked when it
 * is loaded); a deeper value in a results file is shown elided and said to be, never walked.
 */
export const JSON_VIEW_DEPTH = 100;
/** Highlights nested inside highlights, at most (each is an element: the page's own depth stays bounded). */
export const MARKS_NESTED = 16;

/** One piece of work of the JSON view: a value to lay out, text to emit, or the end of a highlight. */
export type JsonStep = { v: unknown; ptr: string; indent: string; depth: number } | { text: ComponentChildren } | { endMark: string };

/**
 * JSON, pretty-printed with two spaces, with the values at `marks` (JSON pointers) highlighted. Its
 * text is exactly `JSON.stringify(value, null, 2)`: for a card, the bytes the peer served. Laid out
 * with a loop over an explicit stack, never by recursion on the value's depth; a value nested deeper
 * than JSON_VIEW_DEPTH levels is shown as `{…}` or `[…]` and a line under the view says so.
 */
export function JsonView({ value: raw, marks = [] }: { value: unknown; marks?: string[] }) {
  const value = asJson(raw);
  const marked = new Set(marks);
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  // The children being built, one list per open highlight (the first: the <pre> itself).
  const open: Array<{ ptr: string; children: ComponentChildren[] }> = [{ ptr: '', children: [] }];
  const emit = (c: ComponentChildren) => open[open.length - 1]!.children.push(c);
  let elided = 0;
  const work: JsonStep[] = [{ v: value, ptr: '', indent: '', depth: 0 }];
  while (work.length) {
    const step = work.pop()!;
    if ('text' in step) {
      emit(step.text);
      continue;
    }
    if ('endMark' in step) {
      const m = open.pop()!;
      emit(<mark title={m.ptr}>{m.children}</mark>);
      continue;
    }
    const { v, ptr, indent, depth } = step;
    if (marked.has(ptr) && open.length <= MARKS_NESTED) {
      open.push({ ptr, children: [] });
      work.push({ endMark: ptr });
    }
    const array = Array.isArray(v);
    if (!(v && typeof v === 'object')) {
      emit(<span class="s">{JSON.stringify(v)}</span>);
      continue;
    }
    const entries: Array<[string, unknown]> = array ? (v as unknown[]).map((x, i) => [String(i), x]) : Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) {
      emit(array ? '[]' : '{}');
      continue;
    }
    if (depth >= JSON_VIEW_DEPTH) {
      elided++;
      emit(
        <span class="elided" title={`nested deeper than ${JSON_VIEW_DEPTH} levels: not shown`}>
          {array ? '[…]' : '{…}'}
        </span>,
      );
      continue;
    }
    // Pushed in reverse: the stack gives them back in reading order.
    work.push({ text: indent + (array ? ']' : '}') });
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      work.push({ text: i < entries.length - 1 ? ',\n' : '\n' });
      work.push({ v: x, ptr: `${ptr}/${esc(k)}`, indent: indent + '  ', depth: depth + 1 });
      work.push({
        text: array ? (
          indent + '  '
        ) : (
          <>
            {indent + '  '}
            <span class="k">{JSON.stringify(k)}</span>
            {': '}
          </>
        ),
      });
    }
    work.push({ text: array ? '[\n' : '{\n' });
  }
  return (
    <>
      <pre class="json">{open[0]!.children}</pre>
      {elided ? (
        <p class="muted elided-note" data-testid="elided">
          {elided} value(s) nested deeper than {JSON_VIEW_DEPTH} levels are not shown ({'{…}'}, {'[…]'}).
        </p>
      ) : null}
    </>
  );
}

/** A duration as a reader can take it: a value JSON cannot hold (a tampered file's 1e400) is not printed as "Infinity". */
export const msText = (ms: number) => (Number.isFinite(ms) ? `${ms} ms` : 'no duration');
export const secsText = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : 'no duration');
