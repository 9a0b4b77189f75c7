/**
 * The hostile matrix (test/helpers/hostile.ts): arguments, paths, input files and output. What ends before a run starts (through `main` in this process): arguments and paths, input files, a previous report, terminal and Markdown output; exit 2 and one line that names the cause.
 * Each case asserts that it ends within its bound, with the documented exit code, a verdict or a
 * one-line error that names the cause, and that nothing is left behind: no run folder, no temp file,
 * no client process (by the run's environment mark), no listener.
 */
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { validateCardV1 } from '../../harness/core/card-validator.js';
import { ROOT } from '../helpers/cli.js';
import { runMain } from '../helpers/main.js';
import { assemble } from '../helpers/results.js';
import { scenario } from '../helpers/scenarios.js';
import { CONTROL, listening, leftInProcess, ownRunFolders, hostileMatrix } from '../helpers/hostile.js';

const m = hostileMatrix('arguments, paths, input files and output');
const { hostile } = m;
const write = (name: string, text: string) => m.write(name, text);
const vendor: typeof m.vendor = (id, change) => m.vendor(id, change);

const danglingLink = () => {
  const link = join(m.fixtures, 'dangling');
  if (!existsSync(link)) symlinkSync(join(m.fixtures, 'nowhere', 'at-all'), link);
  return link;
};

describe('arguments and paths: exit 2 and one line, before anything runs', () => {
  const cases: Array<[string, () => string[], RegExp]> = [
    ['an unknown option', () => ['run', '--client', 'reference', '--nope'], /unknown option '--nope'/],
    ['`report` with no files', () => ['report'], /missing required argument 'results'/],
    ['`doctor` without --client-cmd', () => ['doctor'], /doctor checks a subprocess client: give --client-cmd "<command>" \(or clientCmd in the config file\)/],
    ["--out ''", () => ['run', '--client', 'reference', '--out', ''], /--out needs a folder name/],
    [
      'run --out /proc/x (recursive mkdir would spin)',
      () => ['run', '--client', 'reference', '--out', '/proc/a2a-x'],
      /--out \/proc\/a2a-x: cannot create \/proc\/a2a-x/,
    ],
    [
      'report --out /proc/x',
      () => ['report', write('r.json', JSON.stringify(assemble('x', []))), '--out', '/proc/a2a-x'],
      /--out \/proc\/a2a-x: cannot create/,
    ],
    ['serve --pki-dir /proc/x', () => ['serve', '--peer', CONTROL, '--pki-dir', '/proc/a2a-x'], /--pki-dir \/proc\/a2a-x: cannot create/],
    [
      '--out naming an existing file',
      () => ['run', '--client', 'reference', '--out', join(ROOT, 'package.json')],
      /--out .*package\.json is a file, not a folder/,
    ],
    [
      '--out naming a folder of other files',
      () => ['run', '--client', 'reference', '--out', join(ROOT, 'docs')],
      /--out .*docs holds files that are not a report/,
    ],
    ['--out naming a link to nowhere', () => ['run', '--client', 'reference', '--out', danglingLink()], /--out .*dangling: .*dangling is a link to nothing/],
    [
      'an unwritable --update-expectations',
      () => ['run', '--client', 'reference', '--update-expectations', '/proc/a2a-x/e.json', '--out', join(m.fixtures, 'never')],
      /--update-expectations \/proc\/a2a-x\/e\.json: cannot write in \/proc\/a2a-x/,
    ],
  ];
  for (const [name, args, says] of cases)
    hostile(name, 30_000, async () => {
      const before = listening();
      const o = await runMain(args());
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr).toMatch(says);
      // One line that says what is wrong; after an argument error, the command's usage line too.
      expect(
        o.stderr
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('usage: a2a-conformance ')).length,
        o.stderr,
      ).toBe(1);
      expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
      return leftInProcess([], before);
    });
});

describe('input files: exit 2 and one line that names the file and the field, before anything runs', () => {
  const deepJson = (n: number) => '{"x":'.repeat(n) + '1' + '}'.repeat(n);
  const expectations = (entries: unknown[], extra: object = {}) => JSON.stringify({ schema: 'a2a-conformance/expectations@1', entries, ...extra });
  const cases: Array<[string, () => string[], RegExp]> = [
    [
      'a scenario file that is `[]`',
      () => ['run', '--client', 'reference', '--scenarios', write('empty.scenario.json', '[]')],
      /empty\.scenario\.json: declares no scenarios/,
    ],
    [
      'a JSON scenario wrapper with an extra key',
      () => ['run', '--client', 'reference', '--scenarios', write('extra.scenario.json', JSON.stringify({ scenarios: [vendor('x/extra')], also: 1 }))],
      /extra\.scenario\.json: unknown key "also"/,
    ],
    [
      'an unknown peer factory',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('factory.scenario.json', JSON.stringify([vendor('x/factory', (s) => (s.peer.factory = 'no-such-peer'))])),
      ],
      /factory\.scenario\.json: scenario "x\/factory": peer\.factory: unknown peer factory "no-such-peer"/,
    ],
    [
      'an invalid card',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('card.scenario.json', JSON.stringify([vendor('x/card', (s) => delete (s.peer.card as Record<string, unknown>).name)])),
      ],
      /card\.scenario\.json: scenario "x\/card": peer\.card\.name: AgentCard\.name is REQUIRED/,
    ],
    [
      'a card with a `__proto__` field',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write('proto.scenario.json', JSON.stringify([vendor('x/proto')]).replace('"name":"Contoso Helpdesk"', '"name":"Contoso Helpdesk","__proto__":{"x":1}')),
      ],
      /proto\.scenario\.json: scenario "x\/proto": peer\.card\.__proto__: unknown field "__proto__" in AgentCard/,
    ],
    [
      'a card nested 3,000 deep in a TypeScript scenario',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write(
          'deep.scenario.ts',
          `const s = ${JSON.stringify(vendor('x/deep'))};\nlet p: Record<string, unknown> = {};\n(s.peer.card as Record<string, unknown>).metadata = p;\nfor (let i = 0; i < 3000; i++) { const q = {}; p.x = q; p = q; }\nexport default [s];\n`,
        ),
      ],
      /deep\.scenario\.ts: scenario "x\/deep": peer\.card\.metadata\.x…: nested deeper than 64 levels/,
    ],
    [
      'a card nested 20,000 deep in a JSON scenario',
      () => [
        'run',
        '--client',
        'reference',
        '--scenarios',
        write(
          'deeper.scenario.json',
          JSON.stringify([vendor('x/deeper')]).replace('"name":"Contoso Helpdesk"', `"name":"Contoso Helpdesk","metadata":${deepJson(20_000)}`),
        ),
      ],
      /deeper\.scenario\.json: scenario "x\/deeper": peer\.card\.metadata\.x…: nested deeper than 64 levels/,
    ],
    [
      'an expectations glob over 64 KiB',
      () => [
        'run',
        '--client',
        'reference',
        '--expectations',
        write('big.json', expectations([{ scenario: 'x'.repeat(70_000), verdict: 'FAIL', reason: '' }])),
      ],
      /big\.json: entries\[0\]\.scenario is not a usable glob/,
    ],
    [
      'an expectations file with an extra key',
      () => ['run', '--client', 'reference', '--expectations', write('extra.json', expectations([{ scenario: 'x', verdict: 'FAIL', reason: '', because: 1 }]))],
      /extra\.json: entries\[0\]: must NOT have additional properties "because"/,
    ],
    [
      'a results.json whose embedded expectations are malformed',
      () => [
        'report',
        write(
          'bad-exp.results.json',
          JSON.stringify({
            ...assemble('x', []),
            expectations: { schema: 'a2a-conformance/expectations@1', entries: [{ scenario: '', verdict: 'FAIL', reason: '' }] },
          }),
        ),
      ],
      /bad-exp\.results\.json \(its "expectations"\): entries\[0\]\.scenario must be a scenario id or glob/,
    ],
  ];
  for (const [name, args, says] of cases)
    hostile(name, 30_000, async () => {
      const before = listening();
      const foldersBefore = ownRunFolders().length;
      const o = await runMain([...args(), '--out', join(m.fixtures, 'never')]);
      expect(o.code, o.stderr).toBe(2);
      expect(o.stderr).toMatch(says);
      expect(o.stderr.trim().split('\n'), o.stderr).toHaveLength(1);
      expect(o.stderr).not.toMatch(/\n\s+at /);
      // Nothing ran: no report folder, no run folder.
      expect(existsSync(join(m.fixtures, 'never'))).toBe(false);
      expect(ownRunFolders().length).toBeLessThanOrEqual(foldersBefore);
      return leftInProcess([], before);
    });

  hostile('`__proto__`, `constructor` and `toString` are unknown card fields, not inherited ones', 10_000, async () => {
    const card = JSON.parse(JSON.stringify(scenario(CONTROL).peer.card).replace('"name":', '"__proto__":{},"constructor":1,"toString":"x","name":')) as Record<
      string,
      unknown
    >;
    const unknown = validateCardV1(card).map((i) => i.message);
    for (const k of ['__proto__', 'constructor', 'toString']) expect(unknown).toContain(`unknown field "${k}" in AgentCard`);
    return [];
  });
});

describe('a previous report', () => {
  hostile('`report` with a bad --expectations keeps the previous report untouched (exit 2)', 30_000, async () => {
    const input = write('good.results.json', JSON.stringify(assemble('x', [])));
    const out = join(m.fixtures, 'out-kept');
    expect((await runMain(['report', input, '--out', out])).code).toBe(1);
    const before = readFileSync(join(out, 'results.json'), 'utf8');
    const o = await runMain(['report', input, '--out', out, '--expectations', join(m.fixtures, 'no-such.json')]);
    expect(o.code, o.stderr).toBe(2);
    expect(o.stderr).toMatch(/cannot read the expectations file/);
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toBe(before);
    expect(existsSync(join(out, 'INCOMPLETE'))).toBe(false);
    return [];
  });
});

describe('terminal and Markdown output', () => {
  hostile(
    'a results.json full of escape sequences, carriage returns, NUL, BEL, right-to-left overrides, autolinks and @mentions: inert on the terminal and in summary.md',
    30_000,
    async () => {
      const evil = 'evil\u001b[2K\rPASS\u0000\u0007\u202e <https://evil.example> www.evil.example @octocat x@evil.example';
      const r = assemble('naive', []);
      r.client.name = evil;
      r.client.version = evil;
      r.unexpected.push({ id: evil, verdict: 'FAIL', why: evil });
      const out = join(m.fixtures, 'out-report');
      const o = await runMain(['report', write('evil.results.json', JSON.stringify(r)), '--out', out]);
      expect(o.code, o.stderr).toBe(1);
      expect(o.stdout + o.stderr).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
      expect(o.stdout).toContain('client evil\\u{1b}[2K\\u{d}PASS');
      const md = readFileSync(join(out, 'summary.md'), 'utf8');
      expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/);
      // Every untrusted value sits in a code span: no autolink, no mention, no HTML outside one.
      const outside = md.replace(/(`+) ?[^`]*?(?:`(?!\1)[^`]*?)*? ?\1/g, '');
      expect(outside).not.toMatch(/https?:|www\.|@\w|</);
      expect(existsSync(join(out, 'INCOMPLETE'))).toBe(false);
      return [];
    },
  );
});

// =============================================================================================
