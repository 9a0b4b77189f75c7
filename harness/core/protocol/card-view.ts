/**
 * CardView: the dialect-neutral reading of an Agent Card that clients and rules reason about.
 * It reads A2A v1.0 cards (proto `lf.a2a.v1.AgentCard`, ProtoJSON camelCase) and v0.3 cards (`url`,
 * `preferredTransport`, `additionalInterfaces`, `type`-tagged security schemes, `security`); a card
 * with `supportedInterfaces` is v1.0, one with a top-level `url` and none is v0.3.
 * It interprets nothing: it only answers "what does the card say", never "what should I do".
 */

export interface CardInterface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
  tenant?: string;
}

export interface CardExtension {
  uri: string;
  description?: string;
  required: boolean;
  params: Record<string, unknown>;
}

export interface CardSkill {
  id: string;
  name: string;
  inputModes?: string[];
  outputModes?: string[];
}

/** The scheme kinds of the v1.0 `SecurityScheme` oneof, by their JSON member names. */
export type SecuritySchemeKind =
  | 'apiKeySecurityScheme'
  | 'httpAuthSecurityScheme'
  | 'oauth2SecurityScheme'
  | 'openIdConnectSecurityScheme'
  | 'mtlsSecurityScheme';

export interface CardView {
  dialect: 'a2a-v1' | 'a2a-v0.3';
  name: string;
  version: string;
  interfaces: CardInterface[];
  streaming: boolean | undefined;
  pushNotifications: boolean | undefined;
  extendedAgentCard: boolean | undefined;
  extensions: CardExtension[];
  defaultInputModes: string[];
  defaultOutputModes: string[];
  skills: CardSkill[];
  /** Scheme name → the kind of scheme it is. */
  securitySchemes: Record<string, SecuritySchemeKind | 'unknown'>;
  /** Alternatives (OR) of scheme-name sets (AND), as `securityRequirements` lists them. */
  securityRequirements: string[][];
  signed: boolean;
  raw: Record<string, unknown>;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function obj(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function optBool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** The v0.3 `type` tag of a security scheme → the v1.0 oneof member it became. */
export const V03_SCHEME_KIND: Readonly<Record<string, SecuritySchemeKind>> = {
  apiKey: 'apiKeySecurityScheme',
  http: 'httpAuthSecurityScheme',
  oauth2: 'oauth2SecurityScheme',
  openIdConnect: 'openIdConnectSecurityScheme',
  mutualTLS: 'mtlsSecurityScheme',
};

/** The dialect a protocol version names, its patch ignored (§3.6): 1.x is A2A v1.0's, 0.3 is v0.3's. */
export function dialectOfVersion(version: string): 'a2a-v1' | 'a2a-v0.3' | undefined {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(version.trim());
  if (!m) return undefined;
  if (m[1] === '1') return 'a2a-v1';
  return m[1] === '0' && m[2] === '3' ? 'a2a-v0.3' : undefined;
}

/** Which dialect a card is written in: v1.0 lists `supportedInterfaces`; v0.3 has a main `url` instead. */
export function cardDialect(card: unknown): 'a2a-v1' | 'a2a-v0.3' {
  const c = obj(card);
  return !Array.isArray(c.supportedInterfaces) && typeof c.url === 'string' ? 'a2a-v0.3' : 'a2a-v1';
}

/** Reads a v1.0 or v0.3 card. Tolerant: missing pieces read as empty; validation is a separate step. */
export function readCard(card: unknown): CardView {
  return cardDialect(card) === 'a2a-v0.3' ? readV03(obj(card)) : readV1(obj(card));
}

function extensionsOf(caps: Record<string, unknown>): CardExtension[] {
  return (Array.isArray(caps.extensions) ? caps.extensions : []).map((e) => {
    const o = obj(e);
    return {
      uri: String(o.uri ?? ''),
      ...(typeof o.description === 'string' ? { description: o.description } : {}),
      required: o.required === true,
      params: obj(o.params),
    };
  });
}

function skillsOf(c: Record<string, unknown>): CardSkill[] {
  return (Array.isArray(c.skills) ? c.skills : []).map((s) => {
    const o = obj(s);
    return {
      id: String(o.id ?? ''),
      name: String(o.name ?? ''),
      ...(Array.isArray(o.inputModes) ? { inputModes: strings(o.inputModes) } : {}),
      ...(Array.isArray(o.outputModes) ? { outputModes: strings(o.outputModes) } : {}),
    };
  });
}

/** A v0.3 card: the main `url` at `preferredTransport` (default JSONRPC), then `additionalInterfaces`, all at the card's `protocolVersion`. */
function readV03(c: Record<string, unknown>): CardView {
  const caps = obj(c.capabilities);
  const version = String(c.protocolVersion ?? '');
  const schemes: CardView['securitySchemes'] = {};
  for (const [name, s] of Object.entries(obj(c.securitySchemes))) schemes[name] = V03_SCHEME_KIND[String(obj(s).type)] ?? 'unknown';
  const main = {
    url: String(c.url ?? ''),
    protocolBinding: typeof c.preferredTransport === 'string' ? c.preferredTransport : 'JSONRPC',
    protocolVersion: version,
  };
  const more = (Array.isArray(c.additionalInterfaces) ? c.additionalInterfaces : []).map((i) => ({
    url: String(obj(i).url ?? ''),
    protocolBinding: String(obj(i).transport ?? ''),
    protocolVersion: version,
  }));
  return {
    dialect: 'a2a-v0.3',
    name: typeof c.name === 'string' ? c.name : '',
    version: typeof c.version === 'string' ? c.version : '',
    interfaces: [main, ...more.filter((i) => i.url !== main.url || i.protocolBinding !== main.protocolBinding)],
    streaming: optBool(caps.streaming),
    pushNotifications: optBool(caps.pushNotifications),
    extendedAgentCard: optBool(c.supportsAuthenticatedExtendedCard),
    extensions: extensionsOf(caps),
    defaultInputModes: strings(c.defaultInputModes),
    defaultOutputModes: strings(c.defaultOutputModes),
    skills: skillsOf(c),
    securitySchemes: schemes,
    securityRequirements: (Array.isArray(c.security) ? c.security : []).map((r) => Object.keys(obj(r))),
    signed: Array.isArray(c.signatures) && c.signatures.length > 0,
    raw: c,
  };
}

function readV1(c: Record<string, unknown>): CardView {
  const caps = obj(c.capabilities);
  const schemes: CardView['securitySchemes'] = {};
  for (const [name, s] of Object.entries(obj(c.securitySchemes))) {
    const keys = Object.keys(obj(s));
    const kind = keys.length === 1 ? keys[0] : undefined;
    schemes[name] =
      kind === 'apiKeySecurityScheme' ||
      kind === 'httpAuthSecurityScheme' ||
      kind === 'oauth2SecurityScheme' ||
      kind === 'openIdConnectSecurityScheme' ||
      kind === 'mtlsSecurityScheme'
        ? kind
        : 'unknown';
  }
  const requirements = (Array.isArray(c.securityRequirements) ? c.securityRequirements : []).map((r) => Object.keys(obj(obj(r).schemes)));
  return {
    dialect: 'a2a-v1',
    name: typeof c.name === 'string' ? c.name : '',
    version: typeof c.version === 'string' ? c.version : '',
    interfaces: (Array.isArray(c.supportedInterfaces) ? c.supportedInterfaces : []).map((i) => {
      const o = obj(i);
      return {
        url: String(o.url ?? ''),
        protocolBinding: String(o.protocolBinding ?? ''),
        protocolVersion: String(o.protocolVersion ?? ''),
        ...(typeof o.tenant === 'string' ? { tenant: o.tenant } : {}),
      };
    }),
    streaming: optBool(caps.streaming),
    pushNotifications: optBool(caps.pushNotifications),
    extendedAgentCard: optBool(caps.extendedAgentCard),
    extensions: extensionsOf(caps),
    defaultInputModes: strings(c.defaultInputModes),
    defaultOutputModes: strings(c.defaultOutputModes),
    skills: skillsOf(c),
    securitySchemes: schemes,
    securityRequirements: requirements,
    signed: Array.isArray(c.signatures) && c.signatures.length > 0,
    raw: c,
  };
}

/** Input modes in force for a skill: the skill's own list when it declares one, else the card's. */
export function inputModesFor(view: CardView, skillId?: string): string[] {
  const skill = skillId ? view.skills.find((s) => s.id === skillId) : undefined;
  return skill?.inputModes ?? view.defaultInputModes;
}

/** Output modes in force for a skill: the skill's own list when it declares one, else the card's. */
export function outputModesFor(view: CardView, skillId?: string): string[] {
  const skill = skillId ? view.skills.find((s) => s.id === skillId) : undefined;
  return skill?.outputModes ?? view.defaultOutputModes;
}

export function findExtension(view: CardView, uri: string): CardExtension | undefined {
  return view.extensions.find((e) => e.uri === uri);
}

/** The HTTP authentication scheme (`Bearer`, `Basic`, …) of each HTTP auth security scheme, by scheme name. */
export function httpAuthSchemes(view: CardView): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, kind] of Object.entries(view.securitySchemes)) {
    if (kind !== 'httpAuthSecurityScheme') continue;
    const s = obj(obj(view.raw.securitySchemes)[name]);
    // v1.0 wraps the scheme in its oneof member; v0.3 tags it with `type: http` and puts `scheme` beside the tag.
    const scheme = view.dialect === 'a2a-v0.3' ? s.scheme : obj(s.httpAuthSecurityScheme).scheme;
    if (typeof scheme === 'string') out[name] = scheme;
  }
  return out;
}

/** A field of the view, as a rule names it when it cites where a card says something. */
export type CardField =
  | 'streaming'
  | 'pushNotifications'
  | 'extendedAgentCard'
  | 'extension'
  | 'defaultInputModes'
  | 'defaultOutputModes'
  | 'skills'
  | 'skillInputModes'
  | 'skillOutputModes'
  | 'securitySchemes'
  | 'securityRequirements'
  | 'signature'
  | 'protocolVersions'
  | 'rpcUrl';

/**
 * Where a field of the view sits in the card as served: a JSON pointer in the card's own dialect, for
 * the evidence a rule cites. `index` picks an extension, a skill or a signature (the first by default).
 */
export function cardPointer(view: CardView, field: CardField, index = 0): string {
  const v03 = view.dialect === 'a2a-v0.3';
  switch (field) {
    case 'streaming':
    case 'pushNotifications':
      return `/capabilities/${field}`;
    case 'extendedAgentCard':
      return v03 ? '/supportsAuthenticatedExtendedCard' : '/capabilities/extendedAgentCard';
    case 'extension':
      return `/capabilities/extensions/${index}`;
    case 'defaultInputModes':
    case 'defaultOutputModes':
    case 'skills':
    case 'securitySchemes':
      return `/${field}`;
    case 'skillInputModes':
      return `/skills/${index}/inputModes`;
    case 'skillOutputModes':
      return `/skills/${index}/outputModes`;
    case 'securityRequirements':
      return v03 ? '/security' : '/securityRequirements';
    case 'signature':
      return `/signatures/${index}`;
    case 'protocolVersions':
      // v0.3 states one version for the whole card; v1.0 one per interface.
      return v03 ? '/protocolVersion' : '/supportedInterfaces';
    case 'rpcUrl':
      // The first interface: v0.3's main `url`, v1.0's first supported interface.
      return v03 ? '/url' : '/supportedInterfaces/0/url';
  }
}
