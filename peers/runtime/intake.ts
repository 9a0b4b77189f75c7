/**
 * What the runtime takes in, checked as A2A v1.0 defines it (neutral shapes, whatever wire they came
 * on): a message's parts against the input modes of the card or of the skill the message names, and
 * a push notification config (https only, bounded fields).
 */
import { ownHead } from '../../harness/core/body.js';
import type { PeerRuntime } from '../../harness/core/scenario/runtime.js';
import type { HttpEvent } from '../../harness/core/transcript.js';
import { includesMediaType } from '../../harness/core/protocol/media-type.js';
import { A2AError } from './errors.js';
import { isObj } from './event.js';

type Params = Record<string, unknown>;

/** The longest webhook URL, token or credentials a push config may carry (characters). */
const MAX_PUSH_FIELD = 8000;
/** The longest push config id a client may choose (a UUID is 36). */
const MAX_PUSH_ID = 256;

export interface PushConfigInput {
  /** The client's own id for the config (proto `TaskPushNotificationConfig.id`), where it chose one. */
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** The skill a message names (`Message.metadata.skillId`, docs/extensions.md), if any. */
export function namedSkill(message: Params): string | undefined {
  const meta = isObj(message.metadata) ? message.metadata : {};
  return typeof meta.skillId === 'string' && meta.skillId ? meta.skillId.slice(0, 128) : undefined;
}

/** Whether a request opts into an extension URI: by its service parameter (A2A-Extensions, as its wire read it) or Message.extensions (§4.6.1). */
export const optsInto = (extensions: readonly string[], message: Params, uri: string) =>
  extensions.includes(uri) || (Array.isArray(message.extensions) && message.extensions.includes(uri));

/**
 * Checks a message's parts against the input modes the message's skill takes (the card's defaults
 * where the skill has none of its own, docs/duties.md §8), noting on the event what it carried; returns the
 * bytes of the runtime's batch input it carries.
 */
export function parseParts(rt: PeerRuntime, inputModes: string[], message: Params, ev: HttpEvent): { bytes: number } {
  const parts = message.parts;
  if (!Array.isArray(parts) || parts.length === 0) throw new A2AError('invalidParams', 'message.parts is REQUIRED');
  // The skill a message goes to: the one it names, else the runtime's route for unnamed messages.
  const skill = namedSkill(message) ?? rt.unnamedSkill;
  const skillModes = skill !== undefined && rt.skillInputModes && Object.hasOwn(rt.skillInputModes, skill) ? rt.skillInputModes[skill] : undefined;
  const accepted = skillModes ?? inputModes;
  // What the message named, apart from where the runtime routed a message that named none.
  if (skill !== undefined && skill === namedSkill(message)) ev.skillId = skill;
  else if (skill !== undefined) ev.routedSkill = skill;
  const types: string[] = [];
  let bytes = 0;
  for (const p of parts) {
    if (!isObj(p)) throw new A2AError('invalidParams', 'a part must be an object');
    const kinds = ['text', 'raw', 'url', 'data'].filter((k) => p[k] !== undefined);
    if (kinds.length !== 1) throw new A2AError('invalidParams', 'a part must set exactly one of text, raw, url, data');
    const mt = typeof p.mediaType === 'string' ? p.mediaType : kinds[0] === 'text' ? 'text/plain' : kinds[0] === 'data' ? 'application/json' : '';
    if (types.length < 20) types.push(ownHead(mt, 200));
    ev.partTypes = types;
    if (!mt) throw new A2AError('invalidParams', 'a raw or url part needs mediaType');
    if (!includesMediaType(accepted, mt))
      throw new A2AError('contentTypeNotSupported', skillModes ? `${mt} is not an input mode of skill ${skill}` : `${mt} is not an input mode of this agent`);
    if (kinds[0] === 'raw') {
      if (typeof p.raw !== 'string') throw new A2AError('invalidParams', 'raw must be base64');
      if (rt.input && mt === rt.input.mediaType) bytes += Buffer.from(p.raw, 'base64').length;
    }
  }
  return { bytes };
}

function tooLong(field: string, length: number): A2AError {
  return new A2AError('invalidParams', `TaskPushNotificationConfig.${field} has ${length} characters: at most ${MAX_PUSH_FIELD}`);
}

/** A push config, refused at registration unless its URL is https (spec §13.2: webhooks SHOULD use HTTPS). */
export function pushConfigOf(v: unknown): PushConfigInput {
  if (!isObj(v) || typeof v.url !== 'string' || v.url === '') throw new A2AError('invalidParams', 'TaskPushNotificationConfig.url is REQUIRED');
  // RFC 9110 §4.1 asks for URIs of at least 8,000 octets; a webhook URL of megabytes is a flood, kept nowhere.
  if (v.url.length > MAX_PUSH_FIELD)
    throw new A2AError(
      'invalidParams',
      `TaskPushNotificationConfig.url has ${v.url.length} characters: this agent takes webhook URLs of at most ${MAX_PUSH_FIELD}`,
    );
  if (typeof v.token === 'string' && v.token.length > MAX_PUSH_FIELD) throw tooLong('token', v.token.length);
  if (isObj(v.authentication) && typeof v.authentication.credentials === 'string' && v.authentication.credentials.length > MAX_PUSH_FIELD)
    throw tooLong('authentication.credentials', v.authentication.credentials.length);
  let protocol = '';
  try {
    protocol = new URL(v.url).protocol;
  } catch {
    throw new A2AError('invalidParams', `TaskPushNotificationConfig.url is not a URL: ${v.url.slice(0, 200)}`);
  }
  if (protocol !== 'https:') throw new A2AError('invalidParams', 'TaskPushNotificationConfig.url must be https: this agent calls webhooks over TLS only');
  const auth =
    isObj(v.authentication) && typeof v.authentication.scheme === 'string'
      ? { scheme: v.authentication.scheme, ...(typeof v.authentication.credentials === 'string' ? { credentials: v.authentication.credentials } : {}) }
      : undefined;
  if (typeof v.id === 'string' && v.id.length > MAX_PUSH_ID) throw tooLong('id', v.id.length);
  const id = typeof v.id === 'string' && v.id !== '' ? { id: v.id } : {};
  return { ...id, url: v.url, ...(typeof v.token === 'string' ? { token: v.token } : {}), ...(auth ? { authentication: auth } : {}) };
}

/** A direct Message answer (spec §3.1.1): no task is minted. */
export function messageReply(key: string, params: Params): Record<string, unknown> {
  const m = isObj(params.message) ? params.message : {};
  return {
    messageId: `reply-${key}-${String(m.messageId ?? '').slice(0, 40)}`,
    role: 'ROLE_AGENT',
    ...(typeof m.contextId === 'string' && m.contextId ? { contextId: m.contextId } : {}),
    parts: [{ text: 'result', mediaType: 'text/plain' }],
  };
}

export const taskIdParam = (params: Params, key = 'id') => {
  const id = params[key];
  if (typeof id !== 'string' || id === '') throw new A2AError('invalidParams', `${key} is REQUIRED`);
  return id;
};

export const historyLength = (params: Params) => {
  const h = params.historyLength;
  if (h === undefined || h === null) return undefined;
  if (typeof h !== 'number' || !Number.isInteger(h) || h < 0) throw new A2AError('invalidParams', 'historyLength must be a non-negative integer');
  return h;
};

/** The media types of a task's artifact parts, for the transcript (absent: none). */
export function artifactTypesOf(task: Record<string, unknown>): string[] | undefined {
  const artifacts = Array.isArray(task.artifacts) ? (task.artifacts as Array<{ parts?: Array<{ mediaType?: unknown }> }>) : [];
  const types = artifacts.flatMap((a) => (a.parts ?? []).map((p) => (typeof p.mediaType === 'string' ? p.mediaType : '')));
  return types.length ? types.slice(0, 20) : undefined;
}
