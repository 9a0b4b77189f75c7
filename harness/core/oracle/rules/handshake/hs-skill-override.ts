/**
 * HS-SKILL-OVERRIDE (handshake): A skill's own input modes override the card's defaults: a mode the skill leaves out is not sent to it.
 * Registered in harness/core/oracle/rules.ts; docs/rules.md and the scenario schema follow from there.
 */
import type { Limit, Source } from '../../../sources.js';
import type { HttpEvent } from '../../../transcript.js';
import { wireEvidence } from '../../../verdict.js';
import { type CardView, inputModesFor, readCard, cardPointer } from '../../../protocol/card-view.js';
import { includesMediaType } from '../../../protocol/media-type.js';
import { cardReadEvidence, rpcCalls, taskEvidence, type GradeInput } from '../../evidence.js';
import { creditRejection, mustProceed as proceedBinding } from '../../graders.js';
import { binds, harm, informational, met, notBinding, signal, upFrontMiss, type Binding, type RuleOf } from '../../rule.js';
import { SEED_NO_RETRY, SEED_RESIDUAL, residual, complete } from './shared.js';

/** The proto says a skill's modes override the defaults; it carries no RFC keyword, so it makes no duty of its own. */
const SKILL_OVERRIDE: Limit = {
  doc: 'A2A v1.0.1 proto',
  section: 'AgentSkill.input_modes',
  quote: "The set of supported input media types for this skill, overriding the agent's defaults.",
};

/** The duty to read the skill's modes before sending: the signal of docs/duties.md §8, which the specification allows but does not require (so `field`, not MUST). */
const SEED_SKILL_SIGNAL: Source = {
  doc: 'docs/duties.md',
  section: '8 A skill that narrows the card',
  quote: "A skill that declares a field the card also declares, such as its input modes, is a signal: the skill's value may narrow the card's.",
  level: 'field',
};

const SEED_SKILL: Source = {
  doc: 'docs/duties.md',
  section: '8 A skill that narrows the card',
  quote: "An agent that honours the skill's narrower value refuses a payload the card's default allowed.",
  level: 'field',
  role: 'harm',
};

/** The card as the rule reads it, from the grade input. */
const situationCard = (x: GradeInput): CardView => readCard(x.card);

export const HS_SKILL_OVERRIDE: RuleOf<'HS-SKILL-OVERRIDE'> = {
  id: 'HS-SKILL-OVERRIDE',
  title: "A skill's own input modes override the card's defaults: a mode the skill leaves out is not sent to it",
  family: 'handshake',
  scope: 'own',
  sources: [SEED_SKILL_SIGNAL, SEED_SKILL, SEED_NO_RETRY],
  limits: [
    SKILL_OVERRIDE,
    {
      doc: 'A2A v1.0.1',
      section: '3.3.2',
      quote:
        "A Media Type provided in the request's message parts or implied for an artifact is not supported by the agent or the specific skill being invoked.",
    },
    {
      doc: 'docs/duties.md',
      section: '8 A skill that narrows the card',
      quote:
        "The card is consistent only when the skill's value is read as the one that counts, which the specification allows but does not require a client to prefer.",
    },
    {
      doc: 'docs/extensions.md',
      section: 'Naming the target skill of a message',
      quote: 'A2A v1.0 has no skill selector on the wire: a message goes to the agent, not to a skill.',
    },
    SEED_RESIDUAL,
  ],
  grades: [
    {
      when: 'the excluded card-default mode sent in a message that names the skill (the proto\'s comment says the skill\'s list overrides, with no RFC keyword; docs/duties.md §8: the specification "allows but does not require" a client to prefer it)',
      verdict: 'NON_STRICT (field)',
    },
    { when: 'the excluded mode sent again after -32005', verdict: 'FAIL (harm)' },
    {
      when: "a message that names no skill, in a mode the card's defaults list, which the runtime routed to the narrower skill on its own (a route no card field shows): not what the client aimed at",
      verdict: 'INFORMATIONAL',
    },
    { when: 'no such send, after the card was read: declined, or the intent carried in a mode the skill takes', verdict: 'PASS' },
    {
      when: "an input the skill takes, or a skill with no modes of its own, or no skill named where the card's defaults apply: no task completed",
      verdict: 'FAIL (over-rejection)',
    },
  ],
  notBinding: [
    "an input mode neither the card nor the skill lists (not this rule's question)",
    'the residual risk: an input the skill takes, over a ceiling no field shows (INFORMATIONAL)',
  ],
  applies(s) {
    const mt = s.intent.input.mediaType;
    const skillId = s.intent.skillId;
    const index = skillId === undefined ? -1 : s.card.skills.findIndex((k) => k.id === skillId);
    const modes = inputModesFor(s.card, index >= 0 ? skillId : undefined);
    if (!includesMediaType(modes, mt)) {
      if (index < 0 || !includesMediaType(s.card.defaultInputModes, mt))
        return notBinding(`${mt} is neither a default input mode nor one of the skill's: not this rule's question`);
      return binds(
        `skill ${skillId} takes ${modes.join(', ')} only, overriding the card's defaults, which list ${mt}`,
        ['reject'],
        [signal(s, cardPointer(s.card, 'skillInputModes', index), 'field', `${skillId} re-declares the card's inputModes without ${mt}`)],
      );
    }
    const res = residual(s);
    if (res) return res;
    if (index >= 0 && s.card.skills[index]!.inputModes?.length)
      return proceedBinding(s, `skill ${skillId} lists ${mt} among its own input modes: it must proceed`, ['proceed']);
    return proceedBinding(
      s,
      index >= 0
        ? `skill ${skillId} declares no input modes of its own: the card's defaults, which list ${mt}, apply`
        : `the intent names no skill: the card's defaults, which list ${mt}, apply`,
      ['proceed'],
    );
  },
  grade(b, x) {
    if (!b.binds) return informational(b.reason);
    if (b.acceptable.includes('proceed')) return complete(x, b.reason);
    const skillId = x.intent.skillId!;
    const modes = inputModesFor(situationCard(x), skillId);
    const excluded = (e: HttpEvent) => (e.partTypes ?? []).some((t) => !includesMediaType(modes, t));
    const sends = rpcCalls(x).filter((e) => e.rpc!.method === 'SendMessage' || e.rpc!.method === 'SendStreamingMessage');
    // What the client aimed at: the skill its message names. A message that names none went to the agent.
    const offending = sends.filter((e) => e.skillId === skillId && excluded(e));
    const evidence = offending
      .slice(0, 4)
      .map((e) =>
        wireEvidence(e.seq, `${e.rpc!.method} carried ${(e.partTypes ?? []).join(', ')} to skill ${skillId} → ${e.rpcError ? `${e.rpcError.code}` : e.status}`),
      );
    const refused = offending.findIndex((e) => e.rpcError?.code === -32005);
    if (refused >= 0 && offending.length > refused + 1)
      return harm(
        `${x.intent.input.mediaType} sent to skill ${skillId} ${offending.length} times, again after -32005 at #${offending[refused]!.seq}`,
        evidence,
      );
    if (offending.length > 0)
      return upFrontMiss(this, b as Binding, `sent ${x.intent.input.mediaType} to skill ${skillId}, whose own input modes (${modes.join(', ')}) leave it out`, [
        ...cardReadEvidence(x),
        ...evidence,
      ]);
    const defaults = situationCard(x).defaultInputModes;
    // A message that named no skill, in the card's default modes, refused where the runtime routed it.
    const routed = sends.filter(
      (e) => e.skillId === undefined && e.routedSkill === skillId && excluded(e) && (e.partTypes ?? []).every((t) => includesMediaType(defaults, t)),
    );
    if (routed.length > 0 && !x.tasks.some((t) => t.state === 'TASK_STATE_COMPLETED'))
      return informational(
        `the client's message named no skill and carried ${(routed[0]!.partTypes ?? []).join(', ')}, which the card's defaults list: it was sent to the agent, not aimed at skill ${skillId}; the runtime routed it there on its own (a route no card field shows). Not this rule's miss; the cross-cutting checks still grade what followed`,
        routed
          .slice(0, 3)
          .map((e) =>
            wireEvidence(
              e.seq,
              `${e.rpc!.method} naming no skill, ${(e.partTypes ?? []).join(', ')} → ${e.rpcError ? `${e.rpcError.code} (routed to ${skillId})` : e.status}`,
            ),
          ),
      );
    const done = x.tasks.find((t) => t.state === 'TASK_STATE_COMPLETED');
    if (done)
      return met(`never sent ${x.intent.input.mediaType} to skill ${skillId}; the task went in a mode the skill takes and completed`, taskEvidence(x, [done]));
    return creditRejection(x, `declined before sending: skill ${skillId} takes ${modes.join(', ')} only`);
  },
};
