/**
 * Text from a client or an input file, made safe to print. Control characters (C0 but newline and
 * tab, DEL, C1) and the bidirectional controls that reorder what a reader sees are shown as
 * `\u{…}` escapes: an escape sequence or a carriage return from a client's name or a results file
 * cannot rewrite a line of the terminal (a fake "PASS"), and nothing hides in a summary.
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_INLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const shown = (c: string) => `\\u{${c.codePointAt(0)!.toString(16)}}`;

/** For terminal output: lines stay lines, every other control is shown escaped. */
export const printable = (s: string): string => s.replace(UNSAFE, shown);

/**
 * For a rendered HTML page (the report, the matrix page): the controls that reorder or hide what a reader
 * sees are shown escaped wherever a client's text stands; tabs and line ends stay (a transcript's bodies
 * keep their lines). The page's own markup, style and script hold none of these characters.
 */
const UNSAFE_HTML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
export const printableHtml = (html: string): string => html.replace(UNSAFE_HTML, shown);

/** For one line (a table cell, a title): newlines too are shown escaped. */
export const printableInline = (s: string): string => s.replace(UNSAFE_INLINE, shown);

/**
 * Text from a client or an input file as one Markdown inline code span: nothing in it renders (HTML,
 * images, links, @mentions, emphasis), a newline cannot start a row or a heading, and in a table cell
 * (`cell`) a pipe cannot open a column. Empty text stays empty.
 */
export const markdownCode = (s: string, cell = true): string => {
  const text = cell ? printableInline(s).replace(/\|/g, '\\|') : printableInline(s);
  if (!text) return '';
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((r) => r.length));
  const fence = '`'.repeat(longest + 1);
  const pad = /^[`\s]|[`\s]$/.test(text) ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
};

/**
 * JSON for a terminal: JSON.stringify leaves C1 controls, bidirectional controls and the line
 * separators as they are; here they become `\uXXXX` escapes, so the text stays the same JSON.
 */
export const printableJson = (value: unknown, indent?: number): string =>
  JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
