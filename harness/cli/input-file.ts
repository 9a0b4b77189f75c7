/**
 * Reading a file the user named (`--expectations`, `report`'s results files): a path that is not a
 * regular file is said in one line, never read. A fifo would hold the command until something wrote
 * to it, a device could be read forever; so the file is opened without blocking (a fifo opens at
 * once that way) and looked at through the open descriptor (what is checked is what is read) before
 * a byte is read.
 */
import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

/** What a path is when it is not a regular file, in words; undefined for a regular file. */
function notAFile(st: Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isFIFO()) return 'a fifo (named pipe)';
  if (st.isDirectory()) return 'a folder';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const why = (err: unknown): string => {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file (ENOENT)';
  if (e.code === 'EACCES' || e.code === 'EPERM') return `permission denied (${e.code})`;
  // open(2) on a Unix socket
  if (e.code === 'ENXIO') return 'it is a socket, not a file (ENXIO)';
  return e.code ? `${e.code}${e.syscall ? ` (${e.syscall})` : ''}` : String(e.message).split('\n')[0]!;
};

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/**
 * The text of a regular file, at most `maxBytes` long. Throws an Error whose message says what is
 * wrong in a few words ("it is a fifo (named pipe), not a file"), for the caller to put after the
 * file's name.
 */
export async function readInputFile(file: string, maxBytes?: number): Promise<string> {
  let fh: Awaited<ReturnType<typeof open>>;
  try {
    fh = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new Error(why(err));
  }
  try {
    const st = await fh.stat();
    const kind = notAFile(st);
    if (kind) throw new Error(`it is ${kind}, not a file`);
    if (maxBytes !== undefined && st.size > maxBytes) throw new Error(`it is ${mib(st.size)}, more than the ${mib(maxBytes)} such a file may be`);
    return await fh.readFile('utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw new Error(why(err));
    throw err;
  } finally {
    await fh.close();
  }
}
