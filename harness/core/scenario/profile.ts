/**
 * The client side of a scenario: the profile and dialects a client is handed for it (its constraints
 * over the defaults, only what the client declared), and why a client cannot run it.
 */
import { DEFAULT_PROFILE, type ClientProfile, type Dialect, type Hello, type ProfileConstraints } from '../protocol/types.js';
import { fillCard } from './card.js';
import type { Scenario } from './scenario.js';

/**
 * The profile a per-run (`profile: null`) client is handed: defaults, then the constraints. Known
 * extensions are only those the client declared in its hello: the harness never assigns others.
 */
export function profileFor(base: ClientProfile, constraints: ProfileConstraints, declaredExtensions: readonly string[] = []): ClientProfile {
  const p: ClientProfile = { ...base, ...structuredCloneSafe(constraints) };
  p.knownExtensions = p.knownExtensions.filter((u) => declaredExtensions.includes(u));
  // A mode named live-only cannot also be bufferable.
  p.bufferableInputModes = p.bufferableInputModes.filter((m) => !p.liveOnlyInputModes.includes(m));
  return p;
}

function structuredCloneSafe<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/**
 * The dialects a per-run client is handed: the scenario's, as far as the client speaks them (its
 * hello's `dialects`; a client that declares none is taken to speak A2A v1.0). The harness never
 * hands a client a dialect it did not declare, as with extensions.
 */
/**
 * The dialects a per-run client is handed for a scenario (`profile.dialects`). A client whose hello
 * says it takes `profile.dialects` per run (`dialectsPerRun`) is narrowed to those of the scenario's
 * it declared; any other is handed, and graded by, all it declared: a client that cannot be narrowed
 * (the official Python SDK picks among what it speaks, by §8.3.2) is never graded by a narrowing it
 * was not told to honour.
 */
export function dialectsFor(hello: Pick<Hello, 'dialects' | 'dialectsPerRun'>, s: Pick<Scenario, 'profileConstraints' | 'dialectPremise'>): Dialect[] {
  const spoken = hello.dialects ?? DEFAULT_PROFILE.dialects;
  const shared = (s.profileConstraints.dialects ?? DEFAULT_PROFILE.dialects).filter((d) => spoken.includes(d));
  if (shared.length === 0) return [];
  return hello.dialectsPerRun === true ? shared : [...spoken];
}

/** Why a per-run client cannot run a scenario for its dialects, or undefined. */
export function dialectProblem(
  hello: Pick<Hello, 'dialects' | 'dialectsPerRun'>,
  s: Pick<Scenario, 'profileConstraints' | 'dialectPremise'>,
): string | undefined {
  const wanted = s.profileConstraints.dialects ?? DEFAULT_PROFILE.dialects;
  const spoken = hello.dialects ?? DEFAULT_PROFILE.dialects;
  const given = dialectsFor(hello, s);
  if (given.length === 0)
    return `the scenario needs a client that speaks ${wanted.join(' or ')}; the client speaks ${spoken.join(', ')}${hello.dialects ? '' : ' (none declared in hello: A2A v1.0 assumed)'}`;
  if (s.dialectPremise === 'only' && given.some((d) => !wanted.includes(d)))
    return `the scenario is about a client that speaks only ${wanted.join(', ')}; the client declared ${spoken.join(', ')} and is graded by what it declared (its hello does not say it takes profile.dialects per run: dialectsPerRun)`;
  return undefined;
}

/** Whether a fixed profile meets a scenario's constraints; the reason when it does not. */
export function unmetConstraint(profile: ClientProfile, constraints: ProfileConstraints): string | undefined {
  for (const [key, want] of Object.entries(constraints) as Array<[keyof ClientProfile, unknown]>) {
    const have = profile[key];
    if (Array.isArray(want)) {
      const list = Array.isArray(have) ? (have as unknown[]) : [];
      const perRun = want.filter((w) => typeof w === 'string' && /\{\{\w+\}\}/.test(w));
      if (perRun.length) return `profile.${key} must hold ${perRun.join(', ')}, filled per run; a fixed profile cannot (answer hello with profile null)`;
      const missing = want.filter((w) => !list.includes(w));
      if (missing.length) return `profile.${key} lacks ${missing.join(', ')}`;
      if (key === 'liveOnlyInputModes') {
        const both = want.filter((w) => profile.bufferableInputModes.includes(w as string));
        if (both.length) return `profile can buffer ${both.join(', ')}, the scenario needs it live-only`;
      }
    } else if (have !== want) {
      return `profile.${key} is ${JSON.stringify(have)}, the scenario needs ${JSON.stringify(want)}`;
    }
  }
  return undefined;
}

/**
 * The profile with its per-run placeholders filled: `{{vendorJwksUrl}}` in `trustedJwks`, the JWKS
 * on another vendor's origin where a signing peer publishes its keys.
 */
export function fillProfile(profile: ClientProfile, vars: Record<string, string>): ClientProfile {
  return { ...profile, trustedJwks: fillCard({ l: profile.trustedJwks }, vars).l as string[] };
}
