/** @jsxRuntime automatic */
/** @jsxImportSource preact */
/**
 * Where a reader of the report follows a check's authority: the published A2A specification at the
 * version cited, an RFC at its section, the SSE standard, or, for the duties from the field, their
 * text from docs/duties.md (shipped with the package) carried in the report itself, so the report
 * stays one file and every source it names can be read from it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RunResults } from '../../harness/core/results.js';
import type { Source } from '../../harness/core/sources.js';

const A2A_REPO = 'https://github.com/a2aproject/A2A/blob';

/** The public page a source's document and section resolve to, or undefined for the project's own documents. */
export function sourceHref(s: Pick<Source, 'doc' | 'section'>): string | undefined {
  const a2a = /^A2A v(\d+\.\d+\.\d+)( proto)?$/.exec(s.doc);
  if (a2a) return `${A2A_REPO}/v${a2a[1]}/${a2a[2] ? 'specification/a2a.proto' : 'docs/specification.md'}`;
  const rfc = /^RFC (\d+)$/.exec(s.doc);
  if (rfc) {
    const section = /^\d+(\.\d+)*/.exec(s.section)?.[0];
    return `https://www.rfc-editor.org/rfc/rfc${rfc[1]}${section ? `#section-${section}` : ''}`;
  }
  if (s.doc === 'WHATWG HTML' && s.section.startsWith('9.2')) return 'https://html.spec.whatwg.org/multipage/server-sent-events.html';
  if (s.doc === 'docs/duties.md') return `#duty-${dutyNumber(s.section)}`;
  return undefined;
}

const dutyNumber = (section: string) => /^\d+/.exec(section)?.[0] ?? '';

interface Duty {
  number: string;
  title: string;
  paragraphs: string[];
}

let cached: Map<string, Duty> | null | undefined;

/**
 * docs/duties.md by section number, read once, from the package: the nearest docs/duties.md above
 * this module, wherever it runs from (the sources, dist/, a chunk of the bundle); null where there is none.
 */
function duties(): Map<string, Duty> | null {
  if (cached !== undefined) return cached;
  const above = (dir: string): string | undefined => {
    const file = join(dir, 'docs/duties.md');
    return existsSync(file) ? file : dirname(dir) === dir ? undefined : above(dirname(dir));
  };
  const file = above(dirname(fileURLToPath(import.meta.url)));
  cached = file ? parseDuties(readFileSync(file, 'utf8')) : null;
  return cached;
}

/** Markdown of ours, read plainly: links to their text, emphasis and code marks dropped. */
const plain = (md: string) =>
  md
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .replace(/\s+/g, ' ')
    .trim();

export function parseDuties(text: string): Map<string, Duty> {
  const out = new Map<string, Duty>();
  for (const block of text.split(/^## /m).slice(1)) {
    const [head, ...rest] = block.split('\n');
    const m = /^(\d+)\s+(.*)$/.exec(head!.trim());
    if (!m) continue;
    const paragraphs = rest
      .join('\n')
      .split(/\n\s*\n/)
      .map(plain)
      .filter(Boolean);
    out.set(m[1]!, { number: m[1]!, title: m[2]!, paragraphs });
  }
  return out;
}

/** The duties the report's checks cite, in section order. */
function citedDuties(r: RunResults): string[] {
  const cited = new Set<string>();
  for (const s of r.results)
    for (const c of s.checks) for (const x of [...(c.sources ?? []), ...(c.cites ?? [])]) if (x.doc === 'docs/duties.md') cited.add(dutyNumber(x.section));
  return [...cited].filter(Boolean).sort((a, b) => Number(a) - Number(b));
}

/** The text of every duty from the field this report cites, each at `#duty-N` where its citations link. */
export function DutiesCited({ r }: { r: RunResults }) {
  const numbers = citedDuties(r);
  const all = duties();
  if (!numbers.length || !all) return null;
  return (
    <section id="duties">
      <h2>Duties from the field cited here</h2>
      <p class="muted">
        Level <code>field</code>: duties no A2A sentence states, learned from incidents in deployed agent systems; from docs/duties.md, shipped with
        a2a-conformance.
      </p>
      {numbers.map((n) => {
        const d = all.get(n);
        return d ? (
          <article id={`duty-${n}`} class="duty">
            <h3>
              §{d.number} {d.title}
            </h3>
            {d.paragraphs.map((p) => (
              <p>{p}</p>
            ))}
          </article>
        ) : null;
      })}
    </section>
  );
}
