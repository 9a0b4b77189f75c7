/**
 * Bodies as the transcript keeps them (docs/results.schema.json): what a peer answered, what a push carried,
 * so that a disputed verdict can be settled from the report alone. Bounded (a body over
 * MAX_BODY_CHARS keeps its head, its size and its digest) and redacted (a value under a key that
 * names a credential becomes `REDACTED`: OAuth's `access_token`, a push config's `token` and
 * `credentials`, a client secret). Pure: the caller hashes.
 */

/** A body kept whole up to this many characters (UTF-16 code units); beyond it, its head only, scrubbed. */
export const MAX_BODY_CHARS = 64 * 1024;
/** The head kept of a body over MAX_BODY_CHARS. */
export const BODY_HEAD_CHARS = 2048;
/** Deepest JSON kept as JSON: anything deeper is kept as text (a flood of nesting costs no stack). */
export const MAX_BODY_DEPTH = 48;
/** Events kept of one event stream. */
export const MAX_STREAM_EVENTS = 200;

/** Keys whose string values are credentials (RFC 6749 §5.1, §2.3.1; A2A TaskPushNotificationConfig, AuthenticationInfo). */
const SECRET_KEY = /^(access_token|refresh_token|id_token|client_secret|password|token|credentials|api_?key|secret)$/i;

export interface BodyRecord {
  /** The response's Content-Type, as sent. */
  contentType?: string;
  /** Size of the body in bytes (of the text, for a stream: so far). */
  bytes: number;
  /** SHA-256 (hex, first 16) of the body, where it was complete. */
  digest?: string;
  /** The body parsed as JSON, redacted; absent where it is not JSON or not kept. */
  json?: unknown;
  /** The body as text (not JSON), or the head of one too large to keep. */
  text?: string;
  /** An event stream: each event's `data`, parsed as JSON where it is, redacted. */
  events?: unknown[];
  /** Kept in part only: over the bound, nested too deep, or more events than kept. */
  truncated?: string;
  /** Paths (JSON pointers) whose values were replaced by `REDACTED`. */
  redacted?: string[];
  /** Why the body itself is not here (a card: shown beside the scenario, byte for byte). */
  omitted?: string;
}

/**
 * The first `n` characters of a string as a string of their own. V8 keeps a short slice of a long
 * string as a view of the whole: a 2 KiB head kept of a 1.5 MB body held the 1.5 MB (measured:
 * 300 such answers kept 450 MiB alive in `serve`).
 */
export const ownHead = (s: string, n: number): string => (s.length <= n ? s : Buffer.from(s.slice(0, n), 'utf8').toString('utf8'));

const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');

/** Depth of a JSON value, counted without recursion (stops counting past `limit`). */
export function depthOver(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (d > limit) return true;
    if (v && typeof v === 'object') for (const x of Object.values(v as Record<string, unknown>)) stack.push([x, d + 1]);
  }
  return false;
}

/** Query parameters whose values may be credentials (RFC 6750 §2.3 `access_token`, a client secret, an API key): recorded by name only. */
const SECRET_QUERY = /token|secret|key|password|passwd|credential|auth|code|assertion|session|sig/i;

/** A request path as the transcript keeps it: every query value that may be a credential replaced by `REDACTED`. */
export function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const parts = url
    .slice(q + 1)
    .split('&')
    .map((kv) => {
      const eq = kv.indexOf('=');
      if (eq < 0) return kv;
      let name = kv.slice(0, eq);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // a name that is not valid percent-encoding is judged as it is
      }
      return SECRET_QUERY.test(name) ? `${kv.slice(0, eq)}=REDACTED` : kv;
    });
  return `${url.slice(0, q)}?${parts.join('&')}`;
}

/**
 * A URL as the transcript keeps it: a user and password in it (`https://user:secret@host/…`) become
 * `REDACTED@`, and query values that may be credentials are redacted as a request path's are. Text
 * that is not an absolute URL with an authority is returned as it is.
 */
export function redactUrl(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*@)?(.*)$/is.exec(url);
  if (!m) return url;
  return `${m[1]}${m[2] ? 'REDACTED@' : ''}${redactQuery(m[3]!)}`;
}

/** The length of JSON text without its insignificant whitespace; the text's own where it is not JSON. */
function compactSize(text: string): number {
  try {
    return JSON.stringify(JSON.parse(text)).length;
  } catch {
    return text.length;
  }
}

/**
 * A copy of a JSON value with every string under a credential key replaced by `REDACTED`; the
 * pointers replaced are pushed to `paths`. The value must be no deeper than MAX_BODY_DEPTH.
 */
export function redactJson(value: unknown, paths: string[] = [], at = ''): unknown {
  if (Array.isArray(value)) return value.map((v, i) => redactJson(v, paths, `${at}/${i}`));
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (SECRET_KEY.test(k) && typeof v === 'string' && v !== '') {
      out[k] = 'REDACTED';
      if (paths.length < 20) paths.push(`${at}/${esc(k)}`);
    } else if (typeof v === 'string' && v !== redactUrl(v)) {
      // A URL carrying a credential (a push config's `url` with a user and password, or a token in its query).
      out[k] = redactUrl(v);
      if (paths.length < 20) paths.push(`${at}/${esc(k)}`);
    } else out[k] = redactJson(v, paths, `${at}/${esc(k)}`);
  }
  return out;
}

/**
 * The head of a body too large (or too deep) to parse, with every credential value scrubbed as text:
 * a JSON string under a credential key, cut or whole, and a form field of one.
 */
function scrubHead(text: string, paths: string[]): string {
  const json = text.replace(
    /"(access_token|refresh_token|id_token|client_secret|password|token|credentials|api_?key|secret)"(\s*:\s*)"(?:[^"\\]|\\.)*("|$)/gi,
    (_m, k: string, sep: string, end: string) => {
      if (paths.length < 20) paths.push(`(head) ${k}`);
      return `"${k}"${sep}"REDACTED${end}`;
    },
  );
  return redactForm(json, paths);
}

/** A form-encoded body (a token request or answer) with every credential value replaced. */
function redactForm(text: string, paths: string[]): string {
  return text
    .split('&')
    .map((kv) => {
      const eq = kv.indexOf('=');
      if (eq < 0) return kv;
      const name = kv.slice(0, eq);
      if (!SECRET_KEY.test(name)) return kv;
      paths.push(`/${esc(name)}`);
      return `${name}=REDACTED`;
    })
    .join('&');
}

/** JSON text as the transcript keeps it: parsed and redacted, or undefined where it is not JSON. */
function jsonOf(text: string): { json: unknown; redacted: string[]; deep?: true } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (depthOver(parsed, MAX_BODY_DEPTH)) return { json: undefined, redacted: [], deep: true };
  const redacted: string[] = [];
  return { json: redactJson(parsed, redacted), redacted };
}

/** What a transcript keeps whole of a body of this many characters (a larger one keeps its head only). */
export const keptChars = (chars: number): number => (chars > MAX_BODY_CHARS ? BODY_HEAD_CHARS : chars);

/** A body past its run's budget of payloads kept (transcript.ts KEPT_PAYLOAD_CHARS): its size and digest only. */
export function shedRecord(bytes: number, contentType: string | undefined, digest: string | undefined): BodyRecord {
  return {
    ...(contentType ? { contentType: contentType.slice(0, 200) } : {}),
    bytes,
    ...(digest ? { digest } : {}),
    truncated: "past the run's budget of payloads kept whole: its size and digest only",
  };
}

/** A whole (non-streamed) body as the transcript keeps it. */
export function bodyRecord(text: string, bytes: number, contentType: string | undefined, digest: string | undefined): BodyRecord {
  const base: BodyRecord = { ...(contentType ? { contentType: contentType.slice(0, 200) } : {}), bytes, ...(digest ? { digest } : {}) };
  if (bytes === 0) return base;
  const head = () => {
    const redacted: string[] = [];
    const shown = scrubHead(ownHead(text, BODY_HEAD_CHARS), redacted);
    return { text: shown, ...(redacted.length ? { redacted } : {}) };
  };
  if (text.length > MAX_BODY_CHARS) return { ...base, ...head(), truncated: `over ${MAX_BODY_CHARS} characters: the first ${BODY_HEAD_CHARS} kept` };
  const j = jsonOf(text);
  if (j?.deep)
    return {
      ...base,
      ...head(),
      truncated: `JSON nested deeper than ${MAX_BODY_DEPTH}: the first ${Math.min(BODY_HEAD_CHARS, text.length)} characters kept as text`,
    };
  if (j) return { ...base, json: j.json, ...(j.redacted.length ? { redacted: j.redacted } : {}) };
  const redacted: string[] = [];
  const shown = /x-www-form-urlencoded/i.test(contentType ?? '') ? redactForm(text, redacted) : text;
  return { ...base, text: shown, ...(redacted.length ? { redacted } : {}) };
}

/**
 * One event of a stream added to its record (the `data` of an SSE event), within the bounds: at most
 * MAX_STREAM_EVENTS events and MAX_BODY_CHARS characters of data in all.
 */
export function addStreamEvent(rec: BodyRecord, data: string, kept: { chars: number; room?: (chars: number) => boolean }): void {
  rec.bytes += data.length;
  rec.events ??= [];
  // An event is kept as parsed JSON, so its whitespace is no information: a large one counts by its compact size
  // (an event padded to a mebibyte of one line, runtime.sseFraming, is a small event kept whole).
  const size = data.length > MAX_BODY_CHARS / 4 ? compactSize(data) : data.length;
  // Once one event is left out, every later one is too: the events kept are the first ones, without gaps.
  if (rec.truncated || rec.events.length >= MAX_STREAM_EVENTS || kept.chars + size > MAX_BODY_CHARS) {
    rec.truncated = `more than ${rec.events.length} event(s) or ${MAX_BODY_CHARS} characters: the first ${rec.events.length} kept`;
    return;
  }
  if (kept.room && !kept.room(size)) {
    rec.truncated = `past the run's budget of payloads kept whole: the first ${rec.events.length} event(s) kept`;
    return;
  }
  kept.chars += size;
  const j = jsonOf(data);
  if (j && !j.deep) {
    rec.events.push(j.json);
    if (j.redacted.length) rec.redacted = [...(rec.redacted ?? []), ...j.redacted.map((p) => `/events/${rec.events!.length - 1}${p}`)].slice(0, 20);
  } else {
    const redacted: string[] = [];
    rec.events.push(scrubHead(ownHead(data, BODY_HEAD_CHARS), redacted));
    if (redacted.length) rec.redacted = [...(rec.redacted ?? []), ...redacted].slice(0, 20);
  }
}
