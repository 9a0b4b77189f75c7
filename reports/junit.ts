/**
 * JUnit XML for CI systems: one testcase per scenario, outcome after expectations are applied (an
 * expected FAIL passes), the raw verdict and rule as properties, INFORMATIONAL and UNSUPPORTED as
 * skipped, reason and evidence in the failure. Built with fast-xml-parser, which escapes.
 */
import { XMLBuilder } from 'fast-xml-parser';
import { inAnotherShard, incompleteSentence, type RunResults, type ScenarioResult } from '../harness/core/results.js';
import { sourceLabel } from '../harness/core/sources.js';
import { printable } from '../harness/core/text.js';

const SKIPPED = new Set(['INFORMATIONAL', 'UNSUPPORTED']);

/**
 * Text as junit.xml holds it. Control characters and the bidirectional controls (which reorder what a
 * CI page shows: a name that reads "PASS" backwards) are shown as `\u{…}` escapes, as on the terminal;
 * what XML 1.0 cannot hold at all (lone surrogates, U+FFFE) becomes U+FFFD.
 */
const xml = (s: string) => printable(s).replace(/[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD');

/** JUnit's `time`, in seconds; a duration JSON cannot hold (a tampered file's 1e400) is 0, never "Infinity". */
const secs = (ms: number) => (Number.isFinite(ms) && ms >= 0 ? (ms / 1000).toFixed(3) : '0.000');

/** Applies `xml` to every string of a plain object tree. */
function clean<T>(v: T): T {
  if (typeof v === 'string') return xml(v) as T;
  if (Array.isArray(v)) return v.map(clean) as T;
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, clean(x)])) as T;
  return v;
}

function detail(s: ScenarioResult): string {
  return s.checks
    .filter((c) => c.verdict !== 'PASS' && c.verdict !== 'INFORMATIONAL')
    .map((c) => {
      const why = c.basis ? ` [${c.basis}${c.level ? ` · ${c.level}` : ''}]` : '';
      const graded = ['up-front', 'duty', 'record', 'harm'].includes(c.basis ?? '');
      const src = graded
        ? (c.sources ?? []).filter((x) => (c.basis === 'harm' ? x.role === 'harm' : x.role !== 'harm')).map((x) => `  source: ${sourceLabel(x)}`)
        : [];
      return [
        `${c.rule} ${c.verdict}${why}: ${c.reason}`,
        ...c.evidence.map((e) => `  ${e.source ? `${e.source} ` : ''}${e.seq !== undefined ? `#${e.seq} ` : ''}${e.fact}`),
        ...src,
      ].join('\n');
    })
    .join('\n');
}

export function renderJunit(r: RunResults): string {
  const unexpected = new Map(r.unexpected.map((u) => [u.id, u.why]));
  // A property run: one test per family, failing with its counterexample.
  const familyCases = (r.properties ?? []).map((f) => {
    const ce = r.results.find((x) => x.id === f.counterexample);
    const base = {
      '@_name': `property:${f.family}`,
      '@_classname': `a2a-conformance.properties`,
      '@_time': secs(f.durationMs),
      '@_status': f.failed ? (ce?.verdict ?? 'FAIL') : 'PASS',
    };
    if (f.failed && ce?.verdict === 'ERROR')
      return { ...base, error: { '@_message': ce.checks[0]?.reason ?? 'harness error', '@_type': 'ERROR', '#text': detail(ce) } };
    if (f.failed && ce)
      return {
        ...base,
        failure: { '@_message': `${ce.verdict} after ${f.ran} case(s); replay: ${ce.property?.replay ?? ''}`, '@_type': ce.verdict, '#text': detail(ce) },
      };
    return base;
  });
  const cases = r.properties
    ? familyCases
    : r.results.map((s) => {
        try {
          return testcase(s);
        } catch (err) {
          // Data this renderer cannot lay out costs its own testcase's detail, never the file.
          const name = typeof s.id === 'string' ? s.id : '(unknown)';
          const text = `this scenario's data could not be rendered (${err instanceof Error ? err.message : 'unknown error'})`;
          const why = unexpected.get(name);
          const base = {
            '@_name': name,
            '@_classname': `a2a-conformance.${typeof s.rule === 'string' ? s.rule : 'unknown'}`,
            '@_time': '0.000',
            '@_status': typeof s.verdict === 'string' ? s.verdict : 'ERROR',
          };
          return why
            ? { ...base, failure: { '@_message': `${base['@_status']}: ${why}`, '@_type': base['@_status'], '#text': text } }
            : { ...base, 'system-out': text };
        }
      });
  function testcase(s: ScenarioResult) {
    const why = unexpected.get(s.id);
    const props = {
      property: [
        { '@_name': 'verdict', '@_value': s.verdict },
        { '@_name': 'rule', '@_value': s.rule },
        { '@_name': 'expect', '@_value': s.expect },
        { '@_name': 'opaqueId', '@_value': s.opaqueId },
      ],
    };
    // `status` carries the raw verdict where importers only read the XSD's attributes (Jenkins' junit-10.xsd
    // has no testcase-level properties); `properties` carries it for those that read them.
    const base = { '@_name': s.id, '@_classname': `a2a-conformance.${s.rule}`, '@_time': secs(s.durationMs), '@_status': s.verdict, properties: props };
    const text = detail(s) + (s.unrendered ? `${s.checks.length ? '\n' : ''}not all of this scenario could be written: ${s.unrendered}` : '');
    if (s.verdict === 'ERROR') return { ...base, error: { '@_message': s.checks[0]?.reason ?? 'harness error', '@_type': 'ERROR', '#text': text } };
    if (why) return { ...base, failure: { '@_message': `${s.verdict}: ${why}`, '@_type': s.verdict, '#text': text } };
    // The reason as text: Jenkins' XSD gives <skipped> no attributes.
    if (SKIPPED.has(s.verdict)) return { ...base, skipped: `${s.verdict}: ${s.checks.find((c) => c.rule === s.rule)?.reason ?? ''}` };
    return base;
  }
  // What is unexpected without a scenario result behind it fails a case of its own: a stale
  // expectation, and the shards a merge lacks. A CI that reads only junit.xml sees why the exit is 1.
  const ran = new Set(r.results.map((s) => s.id));
  if (!r.properties)
    for (const u of r.unexpected)
      if (!ran.has(u.id))
        cases.push({
          '@_name': u.id,
          '@_classname': 'a2a-conformance.expectations',
          '@_time': '0.000',
          '@_status': u.verdict,
          failure: { '@_message': u.why, '@_type': 'stale', '#text': `expected ${u.verdict}: ${u.why}` },
        } as (typeof cases)[number]);
  // What did not run is listed as skipped, with why (as TAP lists it): a CI's test view shows the
  // whole catalogue, not only what this run or shard graded.
  if (!r.properties) {
    const listed = new Set(cases.map((c) => (c as { '@_name': string })['@_name']));
    // Not another shard's: a CI that joins the shards' files counts each scenario once.
    for (const n of r.notRun)
      if (!listed.has(n.id) && !inAnotherShard(n.reason))
        cases.push({
          '@_name': n.id,
          '@_classname': 'a2a-conformance.not-run',
          '@_time': '0.000',
          '@_status': 'NOT_RUN',
          skipped: n.reason,
        } as unknown as (typeof cases)[number]);
  }
  if (r.incomplete)
    cases.push({
      '@_name': 'merge',
      '@_classname': 'a2a-conformance.merge',
      '@_time': '0.000',
      '@_status': 'ERROR',
      failure: { '@_message': incompleteSentence(r.incomplete), '@_type': 'incomplete', '#text': r.incomplete.missing.join('\n') },
    } as (typeof cases)[number]);
  const failures = cases.filter((c) => 'failure' in c).length;
  const errors = cases.filter((c) => 'error' in c).length;
  const skipped = cases.filter((c) => 'skipped' in c).length;
  const suite = {
    '@_name': `a2a-conformance · ${r.client.name} ${r.client.version}`,
    '@_tests': cases.length,
    '@_failures': failures,
    '@_errors': errors,
    '@_skipped': skipped,
    '@_time': secs(r.durationMs),
    '@_timestamp': r.startedAt,
    properties: {
      property: [
        { '@_name': 'harness', '@_value': `${r.harness.name} ${r.harness.version}` },
        { '@_name': 'ruleset', '@_value': r.ruleset },
        { '@_name': 'seed', '@_value': r.seed },
        ...(r.shard ? [{ '@_name': 'shard', '@_value': r.shard }] : []),
      ],
    },
    testcase: cases,
  };
  const doc = {
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    testsuites: {
      '@_name': 'a2a-conformance',
      '@_tests': cases.length,
      '@_failures': failures,
      '@_errors': errors,
      '@_time': secs(r.durationMs),
      testsuite: suite,
    },
  };
  const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', format: true, suppressEmptyNode: true, processEntities: true });
  return builder.build(clean(doc)) as string;
}
