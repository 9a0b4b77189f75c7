/** The transcript event of the request a peer handler is answering (the listener numbered it). */
import { SEQ_HEADER, type HttpEvent } from '../../harness/core/transcript.js';
import type { PeerRunContext } from './context.js';

export function eventOf(ctx: PeerRunContext, request: Request): HttpEvent | undefined {
  const seq = Number(request.headers.get(SEQ_HEADER));
  const ev = ctx.transcript.bySeq(seq);
  return ev?.kind === 'http' ? ev : undefined;
}

export const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The URLs an interface listening at paths under `url` answers at: `url` itself and every path below it (not `url` with more letters: `/rest` is not `/restful`). */
export const atOrBelow = (url: string): RegExp => new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:/.*)?$`);

/**
 * The URL a route answers at, as msw matches a string URL (case aside, an optional trailing slash),
 * compiled once: msw compiles a string route again for every request it tries it on (path-to-regexp).
 */
export const exactly = (url: string): RegExp => new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/?$`, 'i');
