/**
 * The card part of a peer: the Agent Card at `/.well-known/agent-card.json`, with the caching
 * headers of spec §8.6.1 (`Cache-Control: max-age`, an `ETag` from a hash of the card) and a 304 for
 * a matching `If-None-Match`. The listener's event records a digest of the body served.
 */
import { createHash } from 'node:crypto';
import { http, HttpResponse, type RequestHandler } from 'msw';
import type { PeerRunContext } from './context.js';
import { eventOf, exactly } from './event.js';

/** Whether the card's origin is down for this fetch (runtime.cardUnavailable): the wait to name, or undefined. */
export type CardDown = () => { retryAfterSeconds: number } | undefined;

export function cardHandler(ctx: PeerRunContext, cardUrl: string, card: Record<string, unknown>, down?: CardDown): RequestHandler {
  // Pretty-printed: the report shows the card as these very bytes (its view is JSON.stringify(card, null, 2)).
  const body = JSON.stringify(card, null, 2);
  const digest = createHash('sha256').update(body).digest('hex');
  const etag = `"${digest.slice(0, 32)}"`;
  // GET and HEAD (RFC 9110 §9.1: a server that answers GET MUST answer HEAD, with the same header fields and no content).
  return http.all(exactly(cardUrl), ({ request }) => {
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return new HttpResponse(`${request.method} is not allowed on the Agent Card`, {
        status: 405,
        headers: { allow: 'GET, HEAD', 'content-type': 'text/plain' },
      });
    const ev = eventOf(ctx, request);
    const gone = request.method === 'GET' ? down?.() : undefined;
    if (gone) {
      if (ev) ev.note = `scripted: the card's origin answered 503 with Retry-After: ${gone.retryAfterSeconds} (runtime.cardUnavailable)`;
      return new HttpResponse('Service Unavailable', { status: 503, headers: { 'content-type': 'text/plain', 'retry-after': String(gone.retryAfterSeconds) } });
    }
    const headers = { 'cache-control': 'max-age=60', etag };
    // If-None-Match compares weakly (RFC 9110 §13.1.2): a W/ prefix does not matter.
    const match = (request.headers.get('if-none-match') ?? '').split(',').map((s) => s.trim().replace(/^W\//, ''));
    if (match.includes(etag) || match.includes('*')) return new HttpResponse(null, { status: 304, headers });
    const typed = { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    if (request.method === 'HEAD') return new HttpResponse(null, { status: 200, headers: typed });
    if (ev) ev.bodyDigest = digest;
    return new HttpResponse(body, { status: 200, headers: typed });
  });
}
