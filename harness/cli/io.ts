/**
 * Everything the CLI prints goes through here: a client's or a file's text cannot drive the
 * terminal. A reader that goes away (`list | head`, `run 2>&1 | head`) costs its stream, never the
 * run: what would have gone there is dropped, and the exit code stays the run's.
 */
import { isAbsolute, relative } from 'node:path';
import { printable, printableJson } from '../core/text.js';

const gone = new Set<NodeJS.WriteStream>();
export const write = (stream: NodeJS.WriteStream, text: string) => {
  if (!gone.has(stream)) stream.write(printable(text));
};
export const print = (text: string) => write(process.stdout, text);
/** For a reporter, which has made every untrusted piece printable itself (and may add colour). */
export const writeRaw = (stream: NodeJS.WriteStream, text: string) => {
  if (!gone.has(stream)) stream.write(text);
};
/**
 * A status line: on a terminal, one line redrawn in place (counts and time left), cleared before any
 * other text is written to its stream and drawn again after; elsewhere (a CI log, a pipe) nothing, and
 * the caller's periodic lines say it instead.
 */
export interface StatusLine {
  /** Whether a status line shows here (a terminal, outside CI). */
  readonly live: boolean;
  set(text: string): void;
  clear(): void;
  /** Writes text to the stream, the status line out of its way. */
  write(text: string): void;
}

export function statusLine(stream: Pick<NodeJS.WriteStream, 'write' | 'isTTY' | 'columns'>, env: NodeJS.ProcessEnv = process.env): StatusLine {
  const live = !!stream.isTTY && !env.CI;
  let shown = '';
  const draw = () => stream.write(`\r\x1b[K${shown}`);
  return {
    live,
    set(text) {
      if (!live) return;
      shown = printable(text)
        .replace(/\s+/g, ' ')
        .slice(0, Math.max(20, (stream.columns ?? 80) - 1));
      draw();
    },
    clear() {
      if (!live || !shown) return;
      shown = '';
      draw();
    },
    write(text) {
      if (!shown) {
        stream.write(printable(text));
        return;
      }
      stream.write(`\r\x1b[K${printable(text)}`);
      // A whole line: the status goes back under it. Part of one: the status waits for the next set.
      if (text.endsWith('\n')) draw();
      else shown = '';
    },
  };
}

let stderrStatus: StatusLine | undefined;
/** The status line of this process's stderr (made on first use). */
export const errStatus = (): StatusLine => (stderrStatus ??= statusLine(process.stderr));

export const printErr = (text: string) => {
  if (gone.has(process.stderr)) return;
  if (stderrStatus) stderrStatus.write(text);
  else write(process.stderr, text);
};
/** A value as indented JSON on stdout, every string in it printable. */
export const printJson = (value: unknown) => write(process.stdout, printableJson(value, 2) + '\n');
const onStreamError = function (this: NodeJS.WriteStream) {
  gone.add(this);
};
export const watchStream = (stream: NodeJS.WriteStream) => {
  if (!stream.listeners('error').includes(onStreamError)) stream.on('error', onStreamError);
};

/** A path as the messages name it: relative to `cwd` where it lies under it, else whole. */
export function shownPath(cwd: string, file: string): string {
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}
