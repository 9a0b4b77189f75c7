/**
 * What the glue around a real SDK does the same way for every SDK version, as an application would:
 * a fetch that trusts the run's CA and presents the client certificate (an undici Agent), aborted
 * with the run; and, where the run provisions OAuth 2.0 client credentials, an authentication
 * handler for the SDK's own `createAuthenticatingFetchWithRetry` hook: a Bearer token on every
 * request, a new one for the SDK's single retry on a 401 whose challenge names Bearer.
 */
import { readPem } from './pem-files.js';
import { Agent } from 'undici';
import type { RunRequest } from '../../harness/core/protocol/types.js';
import { challengeSchemes, TokenSource } from './auth.js';

/** The shape both SDK lines give their authentication handlers. */
export interface SdkAuthHandler {
  headers: () => Promise<Record<string, string>>;
  shouldRetryWithHeaders: (req: RequestInit, res: Response) => Promise<Record<string, string> | undefined>;
}

export interface SdkFetch {
  agent: Agent;
  /** For the card and everything else that is not an A2A call. */
  fetchImpl: typeof fetch;
  /** For the A2A calls: `fetchImpl` wrapped by the SDK's hook where the run provisions credentials. */
  rpcFetch: typeof fetch;
  /** The run's trust store and client certificate (PEM), for a transport that takes no fetch (gRPC). */
  pem: { ca: string; cert: string; key: string };
}

export function errorText(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string } };
  return `${e.name ?? 'Error'}: ${e.message ?? String(err)}${e.cause?.code ? ` (${e.cause.code})` : ''}`;
}

export async function sdkFetch(
  req: RunRequest,
  signal: AbortSignal,
  withAuth: (fetchImpl: typeof fetch, handler: SdkAuthHandler) => typeof fetch,
): Promise<SdkFetch> {
  const [ca, cert, key] = await Promise.all([readPem(req.tls.caFile), readPem(req.tls.clientCertFile), readPem(req.tls.clientKeyFile)]);
  const agent = new Agent({ connect: { ca, cert, key } });
  // The run's abort signal, and the SDK's own where it passes one (a request's RequestOptions.signal).
  const fetchImpl = ((url: string, init?: RequestInit) =>
    fetch(url, { ...init, signal: init?.signal ? AbortSignal.any([signal, init.signal]) : signal, dispatcher: agent } as RequestInit)) as typeof fetch;
  const provisioned = (req.credentials ?? []).find((c) => c.kind === 'oauth2-client-credentials');
  if (!provisioned) return { agent, fetchImpl, rpcFetch: fetchImpl, pem: { ca, cert, key } };
  const tokens = new TokenSource({ scheme: 'provisioned', tokenUrl: provisioned.tokenUrl, scopes: [], credentials: provisioned, required: true }, fetchImpl);
  const handler: SdkAuthHandler = {
    headers: async () => ({ Authorization: `Bearer ${await tokens.token()}` }),
    shouldRetryWithHeaders: async (_req, res) =>
      res.status === 401 && challengeSchemes(res.headers.get('www-authenticate') ?? '').includes('bearer')
        ? { Authorization: `Bearer ${await tokens.renew()}` }
        : undefined,
  };
  return { agent, fetchImpl, rpcFetch: withAuth(fetchImpl, handler), pem: { ca, cert, key } };
}
