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
export const printErr = (text: string) => write(process.stderr, text);
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
