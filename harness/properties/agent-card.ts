/**
 * `agentCard`: A2A v1.0 Agent Cards valid by construction (every REQUIRED field of the proto's
 * `AgentCard` present and non-empty, ProtoJSON member names only), as templates whose interface URL
 * is `{{rpcUrl}}`. What a story decides (the modes that matter, the capability flags, the security
 * posture, the skills with modes of their own) comes in through the constraints; the rest (names,
 * versions, extra modes and skills that change nothing a rule reads) is generated around it.
 */
import fc from 'fast-check';

export interface CardSkill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  inputModes?: string[];
  outputModes?: string[];
}

export interface CardExtension {
  uri: string;
  description: string;
  required: boolean;
  params?: Record<string, unknown>;
}

/** How the card says callers authenticate (A2A v1.0 §4.5): nothing, mutual TLS, or OAuth 2.0 client credentials. */
export type CardSecurity = 'none' | 'mtls' | 'oauth2' | 'oauth2-listed-only';

export interface AgentCardConstraints {
  /** Input modes the card must list (in a generated order, among extra ones). Default `text/plain`. */
  inputModes?: string[];
  /** Modes that may be added to the inputs; they must change nothing the story's rules read. */
  extraInputModes?: string[];
  outputModes?: string[];
  extraOutputModes?: string[];
  streaming?: boolean;
  pushNotifications?: boolean;
  extendedAgentCard?: boolean;
  extensions?: CardExtension[];
  security?: CardSecurity;
  /** Skills the card must carry, first; up to `maxExtraSkills` plain ones (no modes of their own) follow. */
  skills?: CardSkill[];
  maxExtraSkills?: number;
}

export const VENDORS = ['Contoso', 'Fabrikam', 'Northwind', 'Tailspin', 'Woodgrove', 'Litware'] as const;
const NOUNS = ['Transcriber', 'Claims Desk', 'Reports', 'Intake', 'Interpreter', 'Ledger', 'Scheduler', 'Research'] as const;
const SKILL_WORDS = ['summarize', 'translate', 'file', 'review', 'plan', 'route', 'archive', 'answer'] as const;

/** The security schemes of a posture, as the v1.0 proto spells them, and the requirements that bind them. */
function securityOf(security: CardSecurity): Record<string, unknown> {
  switch (security) {
    case 'none':
      return {};
    case 'mtls':
      return {
        securitySchemes: { partnerMtls: { mtlsSecurityScheme: { description: 'Mutual TLS with partner certificates' } } },
        securityRequirements: [{ schemes: { partnerMtls: { list: [] } } }],
      };
    case 'oauth2':
    case 'oauth2-listed-only': {
      const schemes = {
        'vendor-oauth': {
          oauth2SecurityScheme: {
            description: 'OAuth 2.0 client credentials; tokens are presented as Bearer tokens (RFC 6750)',
            flows: { clientCredentials: { tokenUrl: '{{tokenUrl}}', scopes: { 'a2a:tasks': 'Send and follow tasks' } } },
          },
        },
      };
      return security === 'oauth2'
        ? { securitySchemes: schemes, securityRequirements: [{ schemes: { 'vendor-oauth': { list: ['a2a:tasks'] } } }] }
        : { securitySchemes: schemes };
    }
  }
}

/** Modes in a generated order: every required one, and a generated subset of the extras. */
function modes(required: string[], extra: string[]): fc.Arbitrary<string[]> {
  const pool = [...new Set([...required, ...extra.filter((m) => !required.includes(m))])];
  const optional = pool.filter((m) => !required.includes(m));
  return fc.subarray(optional).chain((picked) => fc.shuffledSubarray([...required, ...picked], { minLength: required.length + picked.length }));
}

const plainSkill = (id: string): fc.Arbitrary<CardSkill> =>
  fc.record({ name: fc.constantFrom(...SKILL_WORDS), tag: fc.constantFrom('general', 'office', 'ops', 'support') }).map(({ name, tag }) => ({
    id,
    name: name[0]!.toUpperCase() + name.slice(1),
    description: `Can ${name} for you`,
    tags: [tag],
  }));

export function agentCard(c: AgentCardConstraints = {}): fc.Arbitrary<Record<string, unknown>> {
  const required = c.skills ?? [];
  const maxExtra = c.maxExtraSkills ?? 2;
  if (maxExtra < 0) throw new Error('agentCard: maxExtraSkills must be >= 0');
  if (required.length === 0 && maxExtra === 0) throw new Error('agentCard: a card needs at least one skill (skills, or maxExtraSkills >= 1)');
  const ids = new Set(required.map((s) => s.id));
  if (ids.size !== required.length) throw new Error('agentCard: skill ids must be unique');
  const inputs = c.inputModes ?? ['text/plain'];
  const outputs = c.outputModes ?? ['text/plain'];
  if (inputs.length === 0 || outputs.length === 0) throw new Error('agentCard: a card lists at least one input and one output mode');
  return fc
    .record({
      vendor: fc.constantFrom(...VENDORS),
      noun: fc.constantFrom(...NOUNS),
      version: fc.tuple(fc.nat(9), fc.nat(20), fc.nat(9)).map(([a, b, d]) => `${a}.${b}.${d}`),
      inputModes: modes(inputs, c.extraInputModes ?? []),
      outputModes: modes(outputs, c.extraOutputModes ?? []),
      extra: fc
        .integer({ min: required.length === 0 ? 1 : 0, max: maxExtra })
        .chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => plainSkill(`skill-${i + 1}`)))),
    })
    .map(({ vendor, noun, version, inputModes, outputModes, extra }) => {
      const capabilities: Record<string, unknown> = { streaming: c.streaming ?? false, pushNotifications: c.pushNotifications ?? false };
      if (c.extendedAgentCard) capabilities.extendedAgentCard = true;
      if (c.extensions?.length) capabilities.extensions = c.extensions;
      return {
        name: `${vendor} ${noun}`,
        description: `${vendor}'s ${noun.toLowerCase()} agent.`,
        supportedInterfaces: [{ url: '{{rpcUrl}}', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
        provider: { organization: vendor, url: `https://${vendor.toLowerCase()}.example` },
        version,
        capabilities,
        ...securityOf(c.security ?? 'none'),
        defaultInputModes: inputModes,
        defaultOutputModes: outputModes,
        skills: [...required, ...extra],
      };
    });
}
