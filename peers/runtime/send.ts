/**
 * SendMessage and the first half of SendStreamingMessage (spec §3.1.1, §3.1.2): a message to a task
 * it names (more input), or a first message (a task minted, or found again by its messageId where the
 * runtime deduplicates, §3.3.1; or no task at all where the runtime replies with a Message).
 */
import { isTerminal } from '../../harness/core/transcript.js';
import { A2AError, HttpRefusal } from './errors.js';
import { isObj } from './event.js';
import { namedSkill, optsInto, parseParts, type PushConfigInput, pushConfigOf } from './intake.js';
import type { OpContext, RuntimeState } from './state.js';
import type { TaskState } from './tasks.js';

type Params = Record<string, unknown>;

/** The inline push config of a first message, where the runtime takes one. */
function inlinePushOf(s: RuntimeState, config: Params, cx: OpContext): PushConfigInput | undefined {
  const push = s.rt.push;
  if (config.taskPushNotificationConfig === undefined) return undefined;
  // A runtime without push at all takes the message and drops the config it does not implement.
  if (!push.supported && push.missing === 'method-not-found') cx.ev.note = 'taskPushNotificationConfig ignored: this runtime has no push';
  else if (!push.supported) throw new A2AError('pushNotSupported');
  else return pushConfigOf(config.taskPushNotificationConfig);
  return undefined;
}

/** A message to a task it names: input for it. */
function continueTask(s: RuntimeState, message: Params, bytes: number, cx: OpContext): TaskState {
  const { rt, tasks } = s;
  const t = tasks.get(message.taskId as string);
  cx.ev.taskId = t.rec.id;
  if (typeof message.contextId === 'string' && message.contextId !== '' && message.contextId !== t.rec.contextId)
    throw new A2AError('invalidParams', `contextId ${message.contextId} does not match task ${t.rec.id}`);
  if (isTerminal(t.rec.state)) throw new A2AError('unsupportedOperation', `task is ${t.rec.state}`, { taskId: t.rec.id });
  if (bytes > 0 && rt.input && !rt.input.acceptsFrames && !t.session)
    throw new HttpRefusal(415, `Unsupported Media Type: this endpoint takes one complete ${rt.input.mediaType} payload per task`);
  tasks.remember(t, message);
  tasks.acceptInput(t, bytes, cx.ev.seq);
  return t;
}

/** The task a message went to, or none (a Message reply). */
export function send(s: RuntimeState, params: Params, cx: OpContext): TaskState | undefined {
  const { rt, tasks } = s;
  const { ev } = cx;
  const message = params.message;
  if (!isObj(message)) throw new A2AError('invalidParams', 'message is REQUIRED');
  if (typeof message.messageId !== 'string' || message.messageId === '') throw new A2AError('invalidParams', 'message.messageId is REQUIRED');
  if (message.role !== 'ROLE_USER') throw new A2AError('invalidParams', 'message.role must be ROLE_USER');
  if (Array.isArray(message.extensions)) ev.messageExtensions = message.extensions.filter((x): x is string => typeof x === 'string').slice(0, 20);
  ev.messageId = message.messageId.slice(0, 128);
  const { bytes } = parseParts(rt, s.inputModes, message, ev);
  const config = isObj(params.configuration) ? params.configuration : {};
  if (typeof message.taskId === 'string' && message.taskId !== '') return continueTask(s, message, bytes, cx);
  if (rt.input && bytes > rt.input.ceilingBytes) throw new A2AError('invalidParams', `payload of ${bytes} bytes is over this endpoint's ceiling`);
  const inlinePush = inlinePushOf(s, config, cx);
  if (rt.reply === 'message') return undefined;
  const seen = rt.idempotency === 'message-id' ? s.byMessageId.get(message.messageId) : undefined;
  if (seen) {
    ev.taskId = seen.rec.id;
    ev.deduplicated = true;
    return seen;
  }
  const opted = !!s.session && optsInto(cx.extensions, message, s.session);
  // The outputs a task emits follow the skill it names (an unnamed message's route does not pick outputs).
  const t = tasks.mint(ev.seq, typeof message.contextId === 'string' && message.contextId ? message.contextId : undefined, opted, namedSkill(message));
  if (rt.idempotency === 'message-id') s.byMessageId.set(message.messageId, t);
  ev.taskId = t.rec.id;
  tasks.remember(t, message);
  if (inlinePush) tasks.addPushConfig(t, inlinePush, 'inline', ev.seq, cx.pushBody);
  tasks.acceptInput(t, bytes, ev.seq);
  return t;
}
