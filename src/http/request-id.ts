import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes a sane incoming `X-Request-Id`, or makes one, into `ctx.state.requestId`; the edge middleware puts
 * it on every response (`setRequestIdHeader`) and a handler that writes its own response puts it in its
 * headers. `randomUUID` draws from a pre-filled entropy cache, which keeps this off the hot path's profile
 * (per-call `randomBytes` was 20%).
 */
export function assignRequestId(ctx: Context): string {
  // The raw header: Koa's get adds generic work (referer aliasing, lower-casing).
  const incoming = ctx.req.headers['x-request-id'];
  const id = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : `req_${randomUUID()}`;
  ctx.state.requestId = id;
  return id;
}

/**
 * Sets `X-Request-Id` on a response not yet written. Set late rather than at the start so that a handler
 * writing a prepared response (GET /v1/pricing) takes Node's fast `writeHead` path, which it only takes
 * while no header was set through `setHeader`.
 */
export function setRequestIdHeader(ctx: Context, id: string): void {
  if (!ctx.headerSent) ctx.res.setHeader('X-Request-Id', id);
}
