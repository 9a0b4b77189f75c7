/** The status line of long commands (issue 42 item 5): drawn in place on a terminal, nothing elsewhere, never in the way of other text. */
import { describe, expect, it } from 'vitest';
import { statusLine } from '../harness/cli/io.js';

const fake = (isTTY: boolean) => {
  const out: string[] = [];
  return { out, stream: { isTTY, columns: 40, write: (t: string) => out.push(t) > 0 } };
};

describe('statusLine', () => {
  it('on a terminal: redrawn in place, cut to the width, cleared around other lines and drawn again after them', () => {
    const { out, stream } = fake(true);
    const s = statusLine(stream as never, {});
    expect(s.live).toBe(true);
    s.set('reference: 10/239 scenarios · about 12.0 s left in this one and more');
    const cut = '\r\x1b[K' + 'reference: 10/239 scenarios · about 12.0 s left'.slice(0, 39);
    expect(out).toEqual([cut]);
    s.write('✓ negotiation 100 case(s)\n');
    expect(out.slice(1)).toEqual(['\r\x1b[K✓ negotiation 100 case(s)\n', cut]);
    // Part of a line: written over the status, which waits for the next set rather than erase it.
    s.write('partial ');
    expect(out.at(-1)).toBe('\r\x1b[Kpartial ');
    s.write('rest\n');
    expect(out.at(-1)).toBe('rest\n');
    s.set('again');
    s.clear();
    expect(out.at(-1)).toBe('\r\x1b[K');
    s.write('done\n');
    expect(out.at(-1)).toBe('done\n');
  });

  it('in a CI log or a pipe: no status line, text as it is (the periodic lines say the progress)', () => {
    for (const [tty, env] of [
      [false, {}],
      [true, { CI: 'true' }],
    ] as const) {
      const { out, stream } = fake(tty);
      const s = statusLine(stream as never, env);
      expect(s.live).toBe(false);
      s.set('anything');
      s.clear();
      s.write('a line\n');
      expect(out).toEqual(['a line\n']);
    }
  });

  it("a client's text cannot drive the terminal through it", () => {
    const { out, stream } = fake(true);
    statusLine(stream as never, {}).set('name\x1b[2J\r\nnext');
    expect(out[0]).not.toMatch(/\x1b\[2J|\r\n/);
  });
});
