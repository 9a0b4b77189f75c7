/**
 * A run against a live agent (`proxy`, docs/live.md): the agent's card read once, a scenario made of
 * it whose peer is the recording proxy (peers/live.ts), and the client driven through that proxy as
 * through any peer. The report says which agent, when, and that it was not scripted; only the rules
 * its wire can show grade (harness/core/oracle/live.ts).
 */
import { Agent, fetch } from 'undici';
import { UsageError } from '../../faults.js';
import { OPERATIONS } from '../../core/scenario/runtime.js';
import type { LiveUpstream, Scenario } from '../../core/scenario/scenario.js';
import { runConformance, type RunOptions } from './run.js';
import type { LiveRecord, RunResults } from '../../core/results.js';
import { LIVE_MEASURED } from '../../core/oracle/live.js';

export interface LiveOptions {
  /** The agent card's URL. */
  upstream: string;
  cutStreams?: boolean;
  refuseFirst?: string;
  /** The client's deadline, in ms (default 20 s). */
  deadlineMs?: number;
  /** The message the client is asked to send (default a short question). */
  text?: string;
}

/** The agent's card, read from its URL: an A2A v1.0 card, with an interface the proxy can front. */
export async function readAgentCard(url: string): Promise<LiveUpstream> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--upstream must be the agent card's URL (http:// or https://), got "${url}"`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new UsageError(`--upstream must be an http:// or https:// URL, got ${parsed.protocol}`);
  const agent = new Agent({ connect: { timeout: 10_000 } });
  let card: unknown;
  try {
    const res = await fetch(parsed, { headers: { accept: 'application/json' }, dispatcher: agent, signal: AbortSignal.timeout(15_000) });
    if (!res.ok) throw new UsageError(`--upstream ${url} answered HTTP ${res.status}: give the URL of the agent's card (e.g. …/.well-known/agent-card.json)`);
    card = await res.json().catch(() => {
      throw new UsageError(`--upstream ${url} did not answer JSON: give the URL of the agent's card`);
    });
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`--upstream ${url}: the agent's card could not be read (${(err as Error).message})`);
  } finally {
    await agent.close().catch(() => {});
  }
  if (!card || typeof card !== 'object' || !Array.isArray((card as { supportedInterfaces?: unknown }).supportedInterfaces))
    throw new UsageError(`--upstream ${url}: not an A2A v1.0 card (no supportedInterfaces); the proxy fronts v1.0 agents`);
  const interfaces = (card as { supportedInterfaces: Array<{ protocolBinding?: unknown }> }).supportedInterfaces;
  if (!interfaces.some((i) => i?.protocolBinding === 'JSONRPC' || i?.protocolBinding === 'HTTP+JSON'))
    throw new UsageError(`--upstream ${url}: the card lists no JSON-RPC or HTTP+JSON interface, the bindings the proxy fronts`);
  return { cardUrl: parsed.href, card: card as Record<string, unknown> };
}

/** The scenario of a live run: the proxy in front of the agent, a plain text task. */
export function liveScenario(up: LiveUpstream, o: LiveOptions, at = new Date()): Scenario {
  const streaming = (up.card.capabilities as { streaming?: unknown } | undefined)?.streaming === true;
  const name = typeof up.card.name === 'string' ? up.card.name : 'the agent';
  const cuts = cutsOf(o);
  return {
    id: `live/${new URL(up.cardUrl).host}`,
    rule: 'SPEC-INTERFACE-SELECTION',
    title: `${name}, live at ${up.cardUrl}`,
    description: `A live A2A agent, not scripted: ${name}, its card read from ${up.cardUrl} at ${at.toISOString()}. The harness's proxy serves the card with each JSON-RPC and HTTP+JSON interface pointed at itself, in the agent's order, forwards every call to the agent and records the exchange.${cuts.length ? ` The proxy's own cuts: ${cuts.join('; ')}.` : ''}`,
    expectation:
      "Carry out the task on the card's first interface the client speaks, with A2A-Version on every call, following it to its end without blind retries, and report what the agent did. Only the duties the wire shows are graded (docs/live.md).",
    spec: 'A2A v1.0.1 §8.3.2 (interface selection), §3.2.5 (A2A-Version), §3.3 (errors, idempotency); docs/live.md',
    peer: {
      factory: 'live',
      card: up.card,
      runtime: {
        cardListener: 'tls',
        rpcListener: 'tls',
        workMs: 0,
        // Whether the agent would have ended a task the client canceled is unknown: no cancel is taken for destroyed work.
        staysWorking: true,
        streaming,
        push: { supported: false, delivery: 'plain' },
        outputs: [{ mediaType: 'text/plain', channel: 'task' }],
        ...(o.cutStreams ? { streamEnds: { afterEvents: 1 } } : {}),
        ...(o.refuseFirst ? { unavailable: { status: 503, retryAfterSeconds: 1, calls: 1, method: o.refuseFirst as (typeof OPERATIONS)[number] } } : {}),
      },
      signals: [],
      live: { ...up, ...(o.cutStreams ? { cutStreams: true } : {}), ...(o.refuseFirst ? { refuseFirst: o.refuseFirst } : {}) },
    },
    profileConstraints: {},
    intent: {
      taskClass: 'text',
      input: { mediaType: 'text/plain', text: o.text ?? 'What can you do?' },
      acceptedOutputModes: ['text/plain'],
      completion: streaming ? 'stream' : 'poll',
    },
    deadlineMs: o.deadlineMs ?? 20_000,
    expect: 'PASS',
  };
}

/** What the proxy does to the agent's traffic, in words. */
const cutsOf = (o: LiveOptions): string[] =>
  [
    o.cutStreams ? 'every event stream ended after its first event (--cut-streams)' : '',
    o.refuseFirst ? `the first ${o.refuseFirst} answered 503 with Retry-After: 1 (--refuse-first)` : '',
  ].filter(Boolean);

/** `--refuse-first`'s operation, checked. */
export function refusableOperation(v: string): string {
  if (!(OPERATIONS as readonly string[]).includes(v)) throw new UsageError(`--refuse-first must be an A2A operation (${OPERATIONS.join(', ')}), got "${v}"`);
  return v;
}

/** The live run: the agent's card read, the client driven through the proxy, graded by what its wire shows. */
export async function runLive(
  o: LiveOptions & Pick<RunOptions, 'client' | 'clientCmd' | 'signal' | 'onProgress' | 'cwd'> & { read?: LiveUpstream },
): Promise<RunResults> {
  const up = o.read ?? (await readAgentCard(o.upstream));
  const readAt = new Date();
  const scenario = liveScenario(up, o, readAt);
  const { upstream: _u, cutStreams: _c, refuseFirst: _r, deadlineMs: _d, text: _t, read: _read, ...run } = o;
  const results = await runConformance({ ...run, files: [], catalogue: [{ scenario, file: '(live)' }], lanes: 1, workers: 1 });
  const live: LiveRecord = {
    cardUrl: up.cardUrl,
    name: typeof up.card.name === 'string' ? up.card.name : '(no name)',
    readAt: readAt.toISOString(),
    scripted: false,
    measured: Object.keys(LIVE_MEASURED),
    cuts: cutsOf(o),
  };
  return { ...results, live };
}
